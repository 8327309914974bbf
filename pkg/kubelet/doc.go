// Package kubelet is kplane's node agent: it makes a simulated machine a
// Kubernetes node. It registers the Node, proves it is alive with a Lease,
// and runs the pods the scheduler binds to it, reporting their status the
// way a real kubelet does — phases, conditions, container states, restart
// counts, CrashLoopBackOff, probes, graceful termination, pod IPs — while a
// pluggable runtime (package runtime) decides what "running a container"
// means: nothing at all (simulated) or a local process.
//
// One process can also be many nodes (Options.NodeCount), sharing one
// client and one pod informer, like upstream's hollow nodes in kubemark;
// that is how kplane simulates a hundred nodes on a laptop.
//
// Reading order:
//
//	options.go    the flags: capacity, runtime, taints, timings
//	kubelet.go    Run: the process, its nodes, routing pods to nodes
//	node.go       registering the Node and keeping its status current
//	lease.go      the heartbeat Lease in kube-node-lease
//	podworker.go  one goroutine per pod: the state machine (start here)
//	container.go  what the kubelet remembers about each container's runs
//	backoff.go    CrashLoopBackOff: 10 s doubling to 5 min
//	probes.go     liveness, readiness and startup probes
//	podstatus.go  container statuses, phase and conditions (pure rules)
//	status.go     the status manager: batched, skipped-if-unchanged writes
//	ipam.go       pod IPs from the node's podCIDR
//	static.go     static pods from manifest files, and their mirror pods
//	usage.go      CPU and memory use published for the HPA
//	events.go     the Event reasons and messages, worded as upstream's
//
// How a pod flows through it, with upstream's names in parentheses:
//
//	pod informer (spec.nodeName=<node>)
//	   │ add/update/delete
//	   ▼
//	podWorker.sync (pod_workers.go + computePodActions)
//	   │ start/stop runs            │ status after every step
//	   ▼                            ▼
//	runtime.Runtime (CRI)      statusManager (status_manager.go)
//	   │ exits                      │ PUT pods/<name>/status, batched
//	   └──▶ wakes the worker        └──▶ DELETE with grace 0 once terminated
//
// docs/kubelet.md describes the behaviour, the simulated runtime's
// sim.kplane.io/* annotations, and the resource usage the kubelet serves
// (stats.go; the Summary API and /metrics/resource in package server).
package kubelet
