// Package framework holds the vocabulary every scheduler plugin speaks: the
// plugin interfaces (framework.go), the scheduler's per-node bookkeeping
// (nodeinfo.go), the per-pod facts plugins need (podinfo.go), and the
// "0/3 nodes are available: …" message a failed attempt produces
// (fiterror.go).
//
// It mirrors the shape of upstream's scheduling framework
// (k8s.io/kubernetes/pkg/scheduler/framework) at a much smaller size: a
// pod's scheduling cycle runs every Filter plugin against every node (a node
// passes only if all say yes), then every Score plugin against the nodes
// that passed, and picks the node with the highest weighted total. Before
// the filters, PreFilter plugins look at the pod once: one can reject it
// for every node at once (VolumeBinding, while a claim of the pod is not
// bound) or leave what it found in the pod's CycleState for its Filter.
// Upstream has more extension points (PostFilter for preemption, Reserve,
// Permit…); kplane keeps PreFilter, Filter and Score, the ones that decide
// where a pod goes, and PreBind, where VolumeBinding has the volumes of
// WaitForFirstConsumer claims made on the chosen node before the pod is
// bound to it; and it precomputes per pod the resource and
// port sums upstream's PreFilter and PreScore would (see PodInfo).
//
// Plugins live in kplane/pkg/scheduler/plugins; the scheduler that runs
// them is kplane/pkg/scheduler. docs/scheduler.md follows one pod through
// all of it.
package framework
