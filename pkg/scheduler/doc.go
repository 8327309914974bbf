// Package scheduler is kplane's kube-scheduler: it gives every pending pod
// that asks for it (spec.schedulerName) a node, and nothing else. The
// kubelet of that node then runs the pod.
//
// A pod's path through the package, file by file:
//
//	handlers.go      the pod informer reports a pod without spec.nodeName
//	                 → SchedulingQueue.Add
//	queue.go         activeQ (by priority, then age) → Pop; failed pods wait
//	                 in backoffQ (1 s → 10 s) or unschedulablePods (until a
//	                 node is added or changed, an assigned pod deleted, or
//	                 a claim or volume added or changed)
//	schedule_one.go  scheduleOne: run the PreFilter plugins once (a pod
//	                 whose claims are not bound stops here), the Filter
//	                 plugins on the nodes of the cache, the Score plugins on
//	                 the nodes that pass, pick the highest total
//	cache.go         AssumePod: count the pod on its node at once, so the
//	                 next pod sees the node fuller
//	bind.go          POST pods/<name>/binding in a bounded pool beside the
//	                 loop; Scheduled event; on failure ForgetPod and requeue
//	failure.go       no node fits: FailedScheduling event "0/3 nodes are
//	                 available: …" and PodScheduled=False, Unschedulable
//	decisionlog.go   at --v=4, every node's filter verdict and per-plugin
//	                 scores, and the choice
//
// The plugins are in the plugins subpackage, their interfaces and the
// per-node bookkeeping (NodeInfo) in framework. scheduler.go wires it all
// (New) and runs it (Run), optionally behind leader election on the
// kube-system/kube-scheduler Lease; options.go holds the knobs.
//
// What kplane leaves out of upstream's scheduler: preemption (so no
// "preemption: …" sentence in FailedScheduling messages), inter-pod
// affinity and topology spread, the volume plugins other than
// VolumeBinding (whose WaitForFirstConsumer support writes the selected
// node on a claim and waits in PreBind, but leaves binding pre-made
// volumes to the binder), extenders, multiple profiles per process,
// and queueing hints (a cluster event moves every unschedulable pod, not
// just the ones it could help).
//
// docs/scheduler.md tells the same story with examples.
package scheduler
