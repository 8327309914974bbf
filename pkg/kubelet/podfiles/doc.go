// Package podfiles writes the three files the kubelet manages inside every
// container of a pod: /etc/resolv.conf, /etc/hosts and /etc/hostname.
//
// Upstream the kubelet computes a pod's DNS settings
// (pkg/kubelet/network/dns/dns.go, GetPodDNS), hands them to the CRI runtime,
// which writes resolv.conf, and writes the hosts file itself
// (pkg/kubelet/kubelet_pods.go, managedHostsFileContent) before bind-mounting
// it into each container. kplane computes the same contents here, as plain
// strings, so that any runtime can show them: the simulated runtime's shell
// answers `cat /etc/resolv.conf` with them, and the process runtime could
// write them to disk.
//
// Every address in these files is a label. The nameserver 10.96.0.10 of a
// ClusterFirst pod is the kube-dns Service's ClusterIP; nothing in kplane
// dials it. The simulated shell sends its DNS queries to the loopback
// address where kplane's DNS really answers instead (see
// pkg/kubelet/runtime/simshell).
package podfiles
