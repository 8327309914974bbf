// Package robustness checks the apiserver's promises under faults, in the
// spirit of etcd's tests/robustness (etcd-io/etcd tests/robustness: traffic,
// failpoints, validate): run random traffic and watchers against real
// processes while faults are injected, record everything every client saw,
// and afterwards prove from etcd's own history that nothing they saw breaks
// a promise.
//
// # The promises checked
//
// A watch sees every change to every key it covers, in resourceVersion
// order, each exactly once — or it is told 410 Gone and must list again. A
// write the apiserver acknowledged is stored at the resourceVersion it
// returned, with the value it was sent; a refused write is never stored; a
// write whose outcome is unknown (connection lost, 5xx) is stored at most
// once. A LIST at resourceVersion R shows exactly the state etcd had at R,
// and a consistent LIST is never older than a write acknowledged before it
// began.
//
// # How a run works
//
//	      traffic (traffic.go)            watchers (watchers.go)
//	create/update/patch/delete/list     list, watch, resume, 410 → relist
//	             │  HTTPS                        │  HTTPS
//	             ▼                               ▼
//	        bin/apiserver  ◄── faults (faults.go): kill -9, SIGTERM restart,
//	             │               compaction, dropped watches, etcd member kill -9
//	             ▼
//	 bin/etcd × 3 (one raft cluster) ◄── recorder (recorder.go): one etcd
//	                                      watch from revision 1, the truth
//
// Every write carries a value no other write carries, so each change in
// etcd's history names the operation that made it. When the run ends the
// checker (checker.go) replays the history and compares it with each
// operation's outcome and with each watcher's stream, and the report
// (report.go) counts the operations by kind and outcome, the faults by
// kind, and lists every anomaly with its detail.
//
// The checker knows nothing of processes: checker_test.go feeds it
// synthetic histories with a gap, a duplicate, a reordering, a lost write
// and a wrong list, and robustness_test.go runs the whole thing against the
// real binaries, and once against an apiserver built with the
// kplane_broken_watchcache tag (a watch cache that skips events) to prove
// the checker notices. docs/robustness.md tells the story for a reader.
package robustness
