package events

import (
	"strings"
	"time"

	"kplane/pkg/api"
)

// combinedPrefix starts the message of an event that stands for many similar
// ones, as upstream's EventAggregatorByReasonMessageFunc writes it.
const combinedPrefix = "(combined from similar events): "

// aggregator folds similar events into one (upstream's EventAggregator).
// Two events are similar when they share the source, the involved object,
// the type, the reason and the reporting controller and instance, and
// differ only in message — "Successfully pulled image a", "… image b". Once
// MaxSimilarEvents different messages of one similarity class arrive within
// AggregationInterval, the next ones are no longer separate events: each
// becomes a repeat of one event whose message is combinedPrefix + the latest
// message, so describe shows "(combined from similar events): …" with a
// growing count instead of a screenful of near-duplicates.
type aggregator struct {
	maxSimilar int
	interval   time.Duration
	// records maps a similarity key to the messages seen in its current
	// interval.
	records *lru[*similarRecord]
}

// similarRecord is one similarity class's recent past: the distinct
// messages seen (at most maxSimilar) and when the last one arrived.
type similarRecord struct {
	messages map[string]struct{}
	last     time.Time
}

// aggregate returns the event to record for ev and the identity under which
// repeats of it are counted: ev itself and its full identity (message
// included) while the class is below the threshold, else the combined event
// and the class's key (message excluded, so every further similar event
// counts on the same combined one).
func (a *aggregator) aggregate(ev *api.Event, now time.Time) (*api.Event, string) {
	similarKey := similarityKey(ev)
	identity := similarKey + "\x00" + ev.InvolvedObject.FieldPath + "\x00" + ev.Message
	record, ok := a.records.get(similarKey)
	if !ok || now.Sub(record.last) > a.interval {
		record = &similarRecord{messages: map[string]struct{}{}}
		a.records.put(similarKey, record)
	}
	record.last = now
	record.messages[ev.Message] = struct{}{}
	if len(record.messages) < a.maxSimilar {
		return ev, identity
	}
	// Forget one message so the set stays bounded, as upstream pops any.
	for m := range record.messages {
		delete(record.messages, m)
		break
	}
	combined := *ev
	combined.Message = combinedPrefix + ev.Message
	return &combined, similarKey
}

// similarityKey is upstream's EventAggregatorByReasonFunc key: everything
// that identifies an event except its message.
func similarityKey(ev *api.Event) string {
	ref := ev.InvolvedObject
	return strings.Join([]string{ev.Source.Component, ev.Source.Host, ref.Kind, ref.Namespace, ref.Name,
		string(ref.UID), ref.APIVersion, ev.Type, ev.Reason, ev.ReportingController, ev.ReportingInstance}, "\x00")
}
