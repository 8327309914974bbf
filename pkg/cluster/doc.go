// Package cluster runs a whole kplane cluster on one machine: the apiserver,
// the scheduler, the controller-manager (once it is built) and one kubelet
// per simulated node, each as a child process of the launcher. It is what
// `ctl up`, `ctl down` and `ctl status` do, and what the end-to-end tests
// use to get a real multi-process cluster.
//
// A local cluster lives in one data directory (default ./.kplane):
//
//	.kplane/
//	  etcd/, pki/              the apiserver's data: etcd, CA, tokens.csv
//	  kubeconfig               the admin's kubeconfig, for kubectl
//	  kubeconfigs/<c>.kubeconfig  one identity per component
//	  logs/<c>.log             each component's output (appended)
//	  logs/audit.log           the apiserver's audit log (audit.k8s.io/v1 Events)
//	  audit-policy.yaml        what the audit log records (written once; edit it)
//	  cluster.json             which processes run: pid, start time, args
//
// Start-up follows the order kubeadm uses for a real control plane, because
// each step needs the previous one: credentials first (the apiserver reads
// its token file only when it starts, so every component's token must exist
// before it does), then the apiserver, then — once it answers /readyz — the
// components that talk to it, each with a kubeconfig of its own. The
// cluster is ready when every node reports the Ready condition.
//
// While it runs, the launcher is a small process supervisor: a component
// that exits is reported and started again with back-off, much as systemd
// or the kubelet's CrashLoopBackOff would. Stopping goes the other way
// round: kubelets and controllers first, the apiserver last, SIGTERM before
// SIGKILL. Processes are only ever found by the PID recorded in
// cluster.json, and a PID is only signalled after /proc/<pid>/cmdline shows
// it is still the process the launcher started.
//
// Reading order: options.go → components.go (what runs, with which flags)
// → credentials.go → up.go (start-up) → process.go and logs.go (one child
// and its output) → supervise.go (restarts) → stop.go → state.go
// (cluster.json) → down.go, status.go, detach.go (`ctl up -d`).
package cluster
