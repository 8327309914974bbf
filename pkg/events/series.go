package events

import (
	"time"

	"kplane/pkg/api"
)

// Upstream's series timing (client-go tools/events/event_broadcaster.go).
const (
	// DefaultSeriesRefresh is the heartbeat on which an open series writes
	// its latest count and lastObservedTime.
	DefaultSeriesRefresh = 30 * time.Minute
	// DefaultSeriesFinish is how long after its last repeat a series is
	// closed: its final count written and the event forgotten (a singleton
	// event is forgotten that long after it happened).
	DefaultSeriesFinish = 6 * time.Minute
)

// seriesKey is what makes two events.k8s.io/v1 events isomorphic (upstream's
// getKey): the same report about the same objects, whatever the note says.
type seriesKey struct {
	eventType, action, reason              string
	reportingController, reportingInstance string
	regarding, related                     api.ObjectReference
}

func seriesKeyOf(ev *api.Event) seriesKey {
	key := seriesKey{eventType: ev.Type, action: ev.Action, reason: ev.Reason,
		reportingController: ev.ReportingController, reportingInstance: ev.ReportingInstance, regarding: ev.InvolvedObject}
	if ev.Related != nil {
		key.related = *ev.Related
	}
	return key
}

// seriesCache folds repeats of an events.k8s.io/v1 event into its series,
// as upstream's newer recorder does: the first occurrence is created, the
// first repeat writes series {count: 2, lastObservedTime} at once, and
// later repeats only count in memory; the heartbeat (refresh) writes the
// open series, and finish writes a series' last count once it has been
// quiet for DefaultSeriesFinish. Not safe for concurrent use: the
// recorder's mutex guards it.
type seriesCache struct {
	events map[seriesKey]*api.Event
}

// observe returns what to write for ev now (nil: nothing until the next
// heartbeat) and whether that write is a series patch.
func (s *seriesCache) observe(ev *api.Event, now time.Time) (out *api.Event, patch bool) {
	key := seriesKeyOf(ev)
	prev, ok := s.events[key]
	if !ok {
		s.events[key] = ev
		return copyEvent(ev), false
	}
	if prev.Series != nil {
		prev.Series.Count++
		prev.Series.LastObservedTime = api.MicroTime{Time: now}
		return nil, false
	}
	prev.Series = &api.EventSeries{Count: 2, LastObservedTime: api.MicroTime{Time: now}}
	return copyEvent(prev), true
}

// open returns copies of the events whose series is open (the heartbeat's writes).
func (s *seriesCache) open() []*api.Event {
	var out []*api.Event
	for _, ev := range s.events {
		if ev.Series != nil {
			out = append(out, copyEvent(ev))
		}
	}
	return out
}

// finish forgets the events quiet for longer than after and returns copies
// of the series among them, whose final count is still to be written.
func (s *seriesCache) finish(now time.Time, after time.Duration) []*api.Event {
	var final []*api.Event
	for key, ev := range s.events {
		last := ev.EventTime.Time
		if ev.Series != nil {
			last = ev.Series.LastObservedTime.Time
		}
		if now.Sub(last) <= after {
			continue
		}
		if ev.Series != nil {
			final = append(final, copyEvent(ev))
		}
		delete(s.events, key)
	}
	return final
}

// copyEvent returns a copy of ev that shares no series with it.
func copyEvent(ev *api.Event) *api.Event {
	out := *ev
	if ev.Series != nil {
		series := *ev.Series
		out.Series = &series
	}
	return &out
}
