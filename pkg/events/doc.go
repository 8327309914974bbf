// Package events records Kubernetes Events — the "Scheduled", "Pulled",
// "ScalingReplicaSet" lines at the bottom of `kubectl describe` — for
// components, the way client-go's tools/record (core/v1) and tools/events
// (events.k8s.io/v1) do upstream.
//
// # The correlator (tools/record/events_cache.go)
//
// Every core/v1 event passes three steps before anything is written
// (correlator.go):
//
//   - the aggregator (aggregator.go) folds similar events — same source,
//     object, type and reason, different message — into one once ten
//     differently-worded ones arrive within ten minutes; the rest count on
//     one event whose message starts "(combined from similar events): ";
//   - the count cache turns an identical repeat into the next count of the
//     event already written (a PATCH of count, lastTimestamp and message),
//     which is how describe shows "(x5 over 2m)";
//   - the spam filter (spamfilter.go) gives each source+object pair a token
//     bucket of 25 events refilled one per five minutes, and drops the rest.
//
// With WithEventsV1 the recorder writes events.k8s.io/v1 Events instead, as
// upstream's scheduler does (tools/events/event_broadcaster.go): the first
// repeat of an event sets series {count: 2, lastObservedTime}, later ones
// count in memory and a heartbeat writes the series (series.go).
//
// # The write path (recorder.go, writer.go)
//
// Recording never blocks the caller and never delays the component's own
// writes. Event correlates under a mutex and puts the event in a queue
// keyed by the event's name: a repeat of an event still waiting to be
// written only updates what that write will send, so a storm of repeats
// costs one write, not one per repeat. The queue holds up to 10 000
// distinct events (upstream's broadcaster drops beyond 1 000, which loses
// most of a 5 000-pod burst's Scheduled events); beyond that new events are
// dropped and counted. Four writers drain it, so at most four event writes
// are in flight and a burst cannot take more of the apiserver than that.
// The queue is kplane's workqueue, whose guarantee that a key is never on
// two workers keeps the writes of one event in order: its create before its
// count patches. Writes go through a client bucket of the recorder's own
// (1 000/s, burst 2 000, half the component's own; the kubelet's through its --event-qps bucket), never
// the component's, so a status update or a binding waits for no event.
// Writes that cannot reach the apiserver are tried again after about 10 s,
// up to 12 times; ones it rejects are logged and dropped.
package events
