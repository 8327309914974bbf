// Package simshell is the shell of kplane's simulated runtime: what
// answers `kubectl exec -it nginx-ss-0 -- /bin/sh` when nothing runs.
//
// In the simulated runtime a container is a timer, not a process, so
// there is no /bin/sh to start. A student still wants to look around a
// pod the way the tutorials do — read /etc/resolv.conf, `getent hosts` a
// StatefulSet pod's stable name, `curl` a Service and see which pod
// answered. This package interprets one command line, or an interactive
// session, with a documented set of commands (see docs/kubelet.md, "The
// simulated shell") and answers each one from what the pod really is:
//
//   - the files the kubelet manages in every container (/etc/hosts,
//     /etc/resolv.conf, /etc/hostname; package podfiles computes them as
//     upstream's kubelet does), and the pod's ConfigMap and Secret volumes
//     read from the API, read-only as upstream mounts them;
//   - what the student writes (`echo hi > /tmp/a`, `kubectl cp`, which
//     runs tar): in the container's writable layer, which lasts as long as
//     the container's run, or in an emptyDir volume, which the pod's
//     containers share and which lasts as long as the pod — all in the
//     kubelet's memory, bounded per pod (storage.go);
//   - names, resolved like glibc and busybox do with that resolv.conf
//     (the search list, ndots:5) by real DNS queries — sent to the
//     loopback address where kplane's cluster DNS answers, because the
//     nameserver 10.96.0.10 in resolv.conf is a Service IP, a label;
//   - connections: `curl web` resolves web to its ClusterIP and asks the
//     node's kube-proxy which endpoint its rules would pick (package
//     pkg/proxy/route), then answers as that pod (nginx's welcome page
//     naming it). No connection to a pod or Service IP is ever opened;
//   - NetworkPolicies: before the pod answers, the policies of both ends
//     judge the connection (package pkg/networkpolicy); one they drop gets
//     no answer, and curl or wget waits for its timeout as it would on a
//     node whose network plugin enforces them.
//
// Anything outside that set answers "sh: <cmd>: not found" (exit 127), and
// the first time in a session it also says that this is kplane's
// simulated runtime and lists the commands it knows. The shell is a small
// subset of busybox ash (parse.go lists the grammar); upstream has no
// counterpart, since a real runtime execs the image's own shell.
package simshell
