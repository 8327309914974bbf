// Package netns runs kplane across Linux network namespaces, as its nodes
// would run on other hosts: the apiserver, controller-manager and
// scheduler in one namespace, bound to its veth address, and two kubelets
// in two others, joined through a bridge in a fourth ("the switch"). No
// namespace shares a loopback with another, so every request — a kubelet's
// registration, heartbeats and pod status, the apiserver's dial back to a
// kubelet for `kubectl logs` and `exec` — crosses the veth network. The
// binaries are the ones `make build` makes, started through
// `ip netns exec`.
//
// It needs root and iproute2 (`ip`), which CI has. Without them the test
// fails and says so, unless KPLANE_SKIP_NETNS=1 opts out explicitly.
// docs/nodes-on-other-hosts.md builds the same layout by hand.
package netns
