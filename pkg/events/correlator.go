package events

import (
	"fmt"
	"time"

	"kplane/pkg/api"
)

// Upstream's correlator defaults (client-go tools/record/events_cache.go).
const (
	// DefaultMaxSimilarEvents is how many differently-worded events of one
	// similarity class (same source, object, type, reason) are kept apart
	// before the rest are combined into one.
	DefaultMaxSimilarEvents = 10
	// DefaultAggregationInterval is how long a similarity class remembers its
	// messages: 10 minutes without one and it starts over.
	DefaultAggregationInterval = 10 * time.Minute
	// DefaultSpamBurst is the events a source may write about one object at once.
	DefaultSpamBurst = 25
	// DefaultSpamQPS refills that budget by one event every five minutes.
	DefaultSpamQPS = 1.0 / 300
	// DefaultCacheSize bounds each of the correlator's caches.
	DefaultCacheSize = 4096
)

// CorrelatorOptions tune the correlator. A zero field means upstream's
// default (the Default… constants).
type CorrelatorOptions struct {
	// MaxSimilarEvents is the number of distinct messages of one similarity
	// class within AggregationInterval before further ones are combined.
	MaxSimilarEvents int
	// AggregationInterval is how long a similarity class's messages are remembered.
	AggregationInterval time.Duration
	// SpamBurst and SpamQPS size the per source+object token bucket.
	SpamBurst int
	SpamQPS   float64
	// CacheSize bounds the aggregation, count and spam caches (LRU).
	CacheSize int
}

func (o CorrelatorOptions) withDefaults() CorrelatorOptions {
	if o.MaxSimilarEvents <= 0 {
		o.MaxSimilarEvents = DefaultMaxSimilarEvents
	}
	if o.AggregationInterval <= 0 {
		o.AggregationInterval = DefaultAggregationInterval
	}
	if o.SpamBurst <= 0 {
		o.SpamBurst = DefaultSpamBurst
	}
	if o.SpamQPS <= 0 {
		o.SpamQPS = DefaultSpamQPS
	}
	if o.CacheSize <= 0 {
		o.CacheSize = DefaultCacheSize
	}
	return o
}

// correlator decides what a recorded core/v1 event becomes, in upstream's
// order (EventCorrelator.EventCorrelate): the aggregator may fold it into a
// combined event, the count cache (upstream's eventLogger) turns a repeat
// into the next count of the event already written, and the spam filter
// may then skip it. Not safe for concurrent use: the recorder's mutex
// guards it.
type correlator struct {
	aggregator aggregator
	spam       spamFilter
	// written maps an event's identity (from the aggregator) to the event
	// as last recorded: its name, count and first timestamp.
	written *lru[*api.Event]
	// lastNano makes event names unique per recorder even when its clock
	// stands still (a fake or virtual clock).
	lastNano int64
}

func newCorrelator(o CorrelatorOptions) *correlator {
	o = o.withDefaults()
	return &correlator{
		aggregator: aggregator{maxSimilar: o.MaxSimilarEvents, interval: o.AggregationInterval, records: newLRU[*similarRecord](o.CacheSize)},
		spam:       spamFilter{burst: float64(o.SpamBurst), qps: o.SpamQPS, buckets: newLRU[*spamBucket](o.CacheSize)},
		written:    newLRU[*api.Event](o.CacheSize),
	}
}

// correlate returns the event as it should now be stored and whether it is
// a repeat (the stored one's count and lastTimestamp change: a patch), or
// ok false when the spam filter drops it. ev is not modified.
func (c *correlator) correlate(ev *api.Event, now time.Time) (out *api.Event, repeat, ok bool) {
	aggregated, identity := c.aggregator.aggregate(ev, now)
	at := api.NewTime(now.UTC().Truncate(time.Second))
	next := *aggregated
	if prev, seen := c.written.get(identity); seen {
		next.Name, next.FirstTimestamp, next.Count = prev.Name, prev.FirstTimestamp, prev.Count+1
		repeat = true
	} else {
		next.Name, next.FirstTimestamp, next.Count = c.name(ev.InvolvedObject.Name, now), at, 1
	}
	next.LastTimestamp = at
	c.written.put(identity, &next)
	if !c.spam.allow(&next, now) {
		return nil, false, false
	}
	return &next, repeat, true
}

// name is upstream's event name, "<object>.<hex nanoseconds>", made unique
// per recorder.
func (c *correlator) name(object string, now time.Time) string {
	nano := max(now.UnixNano(), c.lastNano+1)
	c.lastNano = nano
	return fmt.Sprintf("%s.%x", object, nano)
}
