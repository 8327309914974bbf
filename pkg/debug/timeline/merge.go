package timeline

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/debug"
	"kplane/pkg/debug/trace"
)

// DefaultLimit is how many entries a timeline keeps unless told: the
// newest 500, a few minutes of a busy cluster, enough to scrub through a
// rollout without the page holding thousands of rows.
const DefaultLimit = 500

// Filter selects the entries of a timeline.
type Filter struct {
	// Kinds keeps only these kinds of entry (KindEvent, KindWrite);
	// empty keeps both.
	Kinds []string
	// Since drops the entries older than it (zero: keep them).
	Since time.Time
	// Followed keeps only the entries about the object it follows and
	// what that object owns, down the ownership chain, as `ctl trace`
	// follows them (nil: every object).
	Followed *trace.FollowedSet
	// Limit keeps the newest Limit entries (0: DefaultLimit).
	Limit int
}

// wants reports whether the filter keeps entries of kind.
func (f *Filter) wants(kind string) bool {
	return len(f.Kinds) == 0 || slices.Contains(f.Kinds, kind)
}

// Timeline is the merged list.
type Timeline struct {
	// Entries are oldest first.
	Entries []Entry `json:"entries"`
	// Omitted counts the older entries the limit left out.
	Omitted int `json:"omitted,omitempty"`
}

// Merge turns write records (of any components, in any order) and Events
// into one timeline, oldest first, filtered by f:
//
//   - a component's write and the apiserver's record of storing it (same
//     resource, key and resourceVersion) are one entry, dated when the
//     component sent it; a write only the apiserver recorded (kubectl's,
//     or one whose sender keeps no journal) is an entry of its own;
//   - writes of Events are left out (the Events are entries themselves),
//     and so are writes of Leases — the nodes' heartbeats and the leaders'
//     renewals, every few seconds, would bury everything else (the Leases
//     panel and `ctl get leases` show them) — unless f follows an object;
//   - with f.Followed, the records grow the followed set in time order, as
//     `ctl trace` does, and an Event is kept when its involvedObject's uid
//     is followed.
func Merge(records []debug.Record, events []api.Event, f Filter) Timeline {
	records = slices.Clone(records)
	trace.Sort(records)
	var entries []Entry
	if f.wants(KindWrite) || f.Followed != nil {
		entries = writeEntries(records, f)
	}
	if !f.wants(KindWrite) {
		entries = nil
	}
	if f.wants(KindEvent) {
		written := eventWriteTimes(records)
		for i := range events {
			e := &events[i]
			if f.Followed != nil && !f.Followed.FollowsUID(e.InvolvedObject.UID) {
				continue
			}
			entry := eventEntry(e)
			if t, ok := written[writeRef{key: e.Namespace + "/" + e.Name, resourceVersion: e.ResourceVersion}]; ok {
				entry.Time = t
			}
			entries = append(entries, entry)
		}
	}
	if !f.Since.IsZero() {
		entries = slices.DeleteFunc(entries, func(e Entry) bool { return e.Time.Before(f.Since) })
	}
	slices.SortStableFunc(entries, compareEntries)
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	t := Timeline{Entries: entries}
	if len(entries) > limit {
		t.Omitted = len(entries) - limit
		t.Entries = entries[t.Omitted:]
	}
	if t.Entries == nil {
		t.Entries = []Entry{}
	}
	return t
}

// compareEntries orders entries by time; two writes of one instant by the
// revision they produced (etcd's own order); then by ID, so that the
// order never depends on the order the components answered in.
func compareEntries(a, b Entry) int {
	if c := a.Time.Compare(b.Time); c != 0 {
		return c
	}
	if a.Kind == KindWrite && b.Kind == KindWrite {
		ra, _ := strconv.ParseInt(a.ResourceVersion, 10, 64)
		rb, _ := strconv.ParseInt(b.ResourceVersion, 10, 64)
		if ra != rb {
			return int(ra - rb)
		}
	}
	return strings.Compare(a.ID, b.ID)
}

// writeRef is how a component's write and the apiserver's record of it
// meet: the object and the revision the write produced.
type writeRef struct {
	resource, key, resourceVersion string
}

// writeEntries pairs the write records (in trace.Sort order) into
// entries, growing f.Followed as it goes. The pairs are found first: two
// records of one instant sort by component, which may put the
// apiserver's before the sender's.
func writeEntries(records []debug.Record, f Filter) []Entry {
	stored := map[writeRef]*debug.Record{}
	for i := range records {
		r := &records[i]
		if r.Type == debug.TypeWrite && r.Component == "apiserver" && r.ResourceVersion != "" {
			stored[writeRef{r.Resource, r.Key, r.ResourceVersion}] = r
		}
	}
	// storedOf maps a component's write to the apiserver's record of it.
	storedOf := map[*debug.Record]*debug.Record{}
	paired := map[*debug.Record]bool{}
	for i := range records {
		r := &records[i]
		if r.Type != debug.TypeWrite || r.Component == "apiserver" {
			continue
		}
		s, ok := stored[writeRef{r.Resource, r.Key, r.ResourceVersion}]
		if r.ResourceVersion == "" {
			s, ok = storingWithoutVersion(records, r, paired)
		}
		if ok && !paired[s] {
			storedOf[r], paired[s] = s, true
		}
	}
	var entries []Entry
	for i := range records {
		r := &records[i]
		if r.Type != debug.TypeWrite {
			continue
		}
		// Every record teaches the followed set, even one shown as part
		// of its pair.
		if f.Followed != nil && !f.Followed.Observe(r) {
			continue
		}
		if paired[r] || (f.Followed == nil && noise(r.Resource)) || isEvent(r.Resource) {
			continue
		}
		entry := writeEntry(r)
		if s, ok := storedOf[r]; ok {
			entry.Stored, entry.User = true, s.Actor
			if entry.UID == "" {
				entry.UID = s.UID
			}
			if entry.ResourceVersion == "" {
				entry.ResourceVersion, entry.EtcdKey = s.ResourceVersion, etcdKey(s.Resource, s.Key)
			}
		}
		entries = append(entries, entry)
	}
	return entries
}

// storingWithoutVersion finds the apiserver's record of a write whose
// answer carried no resourceVersion: a binding or an eviction answers a
// Status, not the object. It is the first unpaired storing of the same
// object by the same verb at or after the write was sent (records are in
// time order).
func storingWithoutVersion(records []debug.Record, w *debug.Record, paired map[*debug.Record]bool) (*debug.Record, bool) {
	for i := range records {
		s := &records[i]
		if s.Type == debug.TypeWrite && s.Component == "apiserver" && !paired[s] && !s.Time.Before(w.Time) &&
			s.Resource == w.Resource && s.Key == w.Key && s.Stage == w.Stage {
			return s, true
		}
	}
	return nil, false
}

// writeEntry is the entry of one write record.
func writeEntry(r *debug.Record) Entry {
	namespace, name, namespaced := strings.Cut(r.Key, "/")
	if !namespaced {
		namespace, name = "", r.Key
	}
	e := Entry{
		ID: r.Component + "#" + strconv.FormatUint(r.Seq, 10), Time: r.Time, Kind: KindWrite,
		Namespace: namespace, Name: name, UID: r.UID,
		Component: r.Component, Actor: r.Actor, Verb: r.Stage, Resource: r.Resource,
		ResourceVersion: r.ResourceVersion, EtcdKey: etcdKey(r.Resource, r.Key),
	}
	if r.Component == "apiserver" {
		e.Stored, e.User = true, r.Actor
	}
	return e
}

// eventEntry is the entry of one Event.
func eventEntry(e *api.Event) Entry {
	reporter := e.Source.Component
	if reporter == "" {
		reporter = e.ReportingController
	}
	count := e.Count
	first := e.FirstTimestamp.Time
	if e.Series != nil {
		count = e.Series.Count
	}
	if !e.EventTime.IsZero() {
		first = e.EventTime.Time
	}
	return Entry{
		ID: "event/" + e.UID + "/" + e.ResourceVersion, Time: e.LastObserved(), Kind: KindEvent,
		Namespace: e.InvolvedObject.Namespace, Name: e.InvolvedObject.Name, UID: e.InvolvedObject.UID,
		Component: reporter, ResourceVersion: e.InvolvedObject.ResourceVersion,
		ObjectKind: e.InvolvedObject.Kind, Type: e.Type, Reason: e.Reason, Message: strings.TrimSpace(e.Message),
		Count: max(count, 1), FirstTime: first,
	}
}

// eventWriteTimes maps each Event's write (by key and the
// resourceVersion it produced) to when it was sent. An Event's own times
// have whole seconds (lastTimestamp), which would put it before the write
// that caused it in the same second; the journal of the component that
// recorded it knows the instant.
func eventWriteTimes(records []debug.Record) map[writeRef]time.Time {
	times := map[writeRef]time.Time{}
	for _, r := range records {
		if r.Type == debug.TypeWrite && isEvent(r.Resource) && r.ResourceVersion != "" {
			ref := writeRef{key: r.Key, resourceVersion: r.ResourceVersion}
			if t, ok := times[ref]; !ok || r.Time.Before(t) {
				times[ref] = r.Time
			}
		}
	}
	return times
}

// isEvent reports whether resource is the Events' (core or
// events.k8s.io: one storage).
func isEvent(resource string) bool {
	return resource == "events" || resource == "events.events.k8s.io"
}

// noise reports whether writes of resource are left out of an unfiltered
// timeline: Leases, renewed every few seconds by every node and leader.
func noise(resource string) bool {
	return resource == "leases.coordination.k8s.io"
}
