// Package debug is kplane's teaching layer inside each component: a
// bounded journal of what the component saw and did, and the HTTP API that
// serves it to `ctl trace`, `ctl why`, `ctl queues` and `ctl fault`.
//
// Every component (apiserver, controller-manager, scheduler, kubelets)
// keeps one Journal. Its pipeline stages write Records into it:
//
//   - trace records: an object's path through the informers (list/watch →
//     delta → store → handler → enqueue → worker get/done/requeue) and the
//     syncs that ran;
//   - decision records: what a controller or a scheduler plugin decided and
//     why, in numbers and in words, naming the upstream file it mirrors;
//   - write records: each API write the component made (or, in the
//     apiserver, stored) with the resourceVersion it produced.
//
// The journal is a ring of fixed size (a flag on every component), so
// memory stays bounded whatever the cluster does. A nil *Journal is valid
// and records nothing: with the debug API off, every hook costs one
// pointer check.
//
// Besides the ring, a journal knows the component's workqueues (their live
// state for `ctl queues`) and its leader-election state, and a component
// may add routes of its own (the kubelet's pause, the apiserver's faults).
//
// Files: record.go (what a record holds), journal.go (the ring and its
// subscribers), queues.go (the workqueue registry), server.go (the HTTP
// API), endpoint.go (how ctl finds each component's API), client.go (the
// API's client, for ctl), flags.go (the flags every component shares),
// listen.go (the loopback server of components without one of their own),
// tokenreview.go (accepting the cluster's tokens by asking the apiserver),
// writes.go (the client write hook that records a component's writes).
package debug
