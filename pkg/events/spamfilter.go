package events

import (
	"strings"
	"time"

	"kplane/pkg/api"
)

// spamFilter drops events from a source about one object once that pair
// has spent its budget (upstream's EventSourceObjectSpamFilter): each
// source+object pair has a token bucket of spamBurst tokens refilled at
// spamQPS (upstream: 25, and one every five minutes). A pod that crash-loops
// can therefore not bury the events of the rest of the cluster, while an
// ordinary pod's life — Scheduled, Pulling, Pulled, Created, Started,
// Killing — stays far below the budget.
type spamFilter struct {
	burst float64
	qps   float64
	// buckets maps a source+object key to its bucket.
	buckets *lru[*spamBucket]
}

// spamBucket is one source+object pair's budget at time last.
type spamBucket struct {
	tokens float64
	last   time.Time
}

// allow spends one of ev's pair's tokens and reports whether there was one.
func (f *spamFilter) allow(ev *api.Event, now time.Time) bool {
	key := spamKey(ev)
	b, ok := f.buckets.get(key)
	if !ok {
		b = &spamBucket{tokens: f.burst, last: now}
		f.buckets.put(key, b)
	}
	if elapsed := now.Sub(b.last); elapsed > 0 {
		b.tokens = min(f.burst, b.tokens+elapsed.Seconds()*f.qps)
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// spamKey is upstream's getSpamKey: the source and the involved object,
// whatever the reason or message.
func spamKey(ev *api.Event) string {
	ref := ev.InvolvedObject
	return strings.Join([]string{ev.Source.Component, ev.Source.Host, ref.Kind, ref.Namespace, ref.Name,
		string(ref.UID), ref.APIVersion}, "\x00")
}
