// Package chaos is `make chaos`: a rolling update and a StatefulSet scale
// that must come out right while components are killed with SIGKILL.
//
// The test (chaos_test.go, behind the build tag "chaos" so `make test`
// never compiles it) starts a `ctl up` cluster from bin/ as a child
// process and rolls out a new template of a 50-replica Deployment
// (maxSurge/maxUnavailable 25%/25% in odd runs, 1/0 in even ones) while a
// StatefulSet scales from 2 to 5 and back to 2; meanwhile
// the killer (killer.go) sends SIGKILL, by PID from cluster.json, to a
// random apiserver, etcd member, controller-manager leader, scheduler or
// kubelet every few seconds, then checks that `ctl up`'s supervisor started
// it again (a new PID). The load balancer of an HA cluster is never killed:
// it is the one address every client has.
//
// A watcher (watcher.go) keeps every pod of the namespace from a list and a
// watch, reconnecting when an apiserver dies and relisting on 410 Gone, the
// way a reflector does; after every event it hands the whole pod set to the
// invariants (invariants.go), which are the promises upstream's deployment
// and statefulset controllers make (pkg/controller/deployment/rolling.go,
// pkg/controller/statefulset/stateful_set_control.go in Kubernetes):
//
//   - never more than replicas+maxSurge non-terminating pods of the Deployment;
//   - never fewer than replicas-maxUnavailable available ones (Ready for
//     minReadySeconds), once the Deployment first became available;
//   - never two pods of the StatefulSet with one ordinal.
//
// At the end the rollout must be complete with exactly the declared pods,
// no pod or ReplicaSet without its owner, and the StatefulSet's ordinals
// exactly 0..n-1 (final.go). docs/chaos.md explains the output.
package chaos
