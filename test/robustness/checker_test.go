package robustness

import (
	"strings"
	"testing"
	"time"
)

// The synthetic history the checker tests start from: in namespace ns,
// a is created (2) and updated (3), b is created (4), a is deleted (5).
func syntheticHistory() History {
	a, b := ConfigMapKey("ns", "a"), ConfigMapKey("ns", "b")
	return History{LastRevision: 5, Events: []HistoryEvent{
		{Key: a, Revision: 2, Type: Put, Created: true, Value: valuePrefix + "1"},
		{Key: a, Revision: 3, Type: Put, Value: valuePrefix + "2"},
		{Key: b, Revision: 4, Type: Put, Created: true, Value: valuePrefix + "3"},
		{Key: a, Revision: 5, Type: Delete, Value: valuePrefix + "2"},
	}}
}

// syntheticOps are the operations that made syntheticHistory.
func syntheticOps() []Operation {
	t0 := time.Unix(0, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	return []Operation{
		{Client: 1, Kind: OpCreate, Namespace: "ns", Name: "a", Value: valuePrefix + "1", Start: at(0), End: at(1), Outcome: Acknowledged, Code: 201, ResourceVersion: 2},
		{Client: 1, Kind: OpUpdate, Namespace: "ns", Name: "a", Value: valuePrefix + "2", Precondition: 2, Start: at(2), End: at(3), Outcome: Acknowledged, Code: 200, ResourceVersion: 3},
		{Client: 2, Kind: OpCreate, Namespace: "ns", Name: "b", Value: valuePrefix + "3", Start: at(4), End: at(5), Outcome: Unknown},
		{Client: 2, Kind: OpPatch, Namespace: "ns", Name: "b", Value: valuePrefix + "4", Precondition: 2, Start: at(4), End: at(5), Outcome: Refused, Code: 409},
		{Client: 1, Kind: OpDelete, Namespace: "ns", Name: "a", Precondition: 3, Start: at(6), End: at(7), Outcome: Acknowledged, Code: 200, ResourceVersion: 3},
		{Client: 3, Kind: OpList, Namespace: "ns", Start: at(8), End: at(9), Outcome: Acknowledged, Code: 200, ResourceVersion: 5,
			Items: map[string]ObjectState{ConfigMapKey("ns", "b"): {4, valuePrefix + "3"}}},
	}
}

// syntheticWatch is a correct stream of syntheticHistory: a list at 2,
// then every later change; the bookmark at 5 comes after the last event.
func syntheticWatch(bookmarks bool) WatcherRecord {
	a, b := ConfigMapKey("ns", "a"), ConfigMapKey("ns", "b")
	w := WatcherRecord{Name: "w", Prefix: ConfigMapKey("ns", ""), Bookmarks: bookmarks, Observations: []Observation{
		{Kind: ObservedList, Revision: 2, Items: map[string]ObjectState{a: {2, valuePrefix + "1"}}},
		{Kind: ObservedWatchStart, Revision: 2},
		{Kind: ObservedEvent, Revision: 3, EventType: "MODIFIED", Key: a, Value: valuePrefix + "2"},
		{Kind: ObservedEnd},
		{Kind: ObservedWatchStart, Revision: 3},
		{Kind: ObservedEvent, Revision: 4, EventType: "ADDED", Key: b, Value: valuePrefix + "3"},
		{Kind: ObservedEvent, Revision: 5, EventType: "DELETED", Key: a, Value: valuePrefix + "2"},
	}}
	if bookmarks {
		w.Observations = append(w.Observations, Observation{Kind: ObservedBookmark, Revision: 5})
	}
	return w
}

// A correct run — every write where its answer says, every stream whole —
// has no anomaly, with bookmarks or without.
func TestCheckFindsNothingInACorrectRun(t *testing.T) {
	got := Check(syntheticHistory(), syntheticOps(), []WatcherRecord{syntheticWatch(true), syntheticWatch(false)})
	if len(got) != 0 {
		t.Fatalf("anomalies in a correct run: %v", got)
	}
}

// Each case breaks one promise in the synthetic run and names the anomaly
// the checker must report for it (and only that kind).
func TestCheckCatchesEachBrokenPromise(t *testing.T) {
	a, b := ConfigMapKey("ns", "a"), ConfigMapKey("ns", "b")
	cases := []struct {
		name     string
		breakRun func(h *History, ops []Operation, w *WatcherRecord) []Operation
		want     AnomalyKind
		// also is an anomaly the break implies as well.
		also AnomalyKind
	}{
		{"a watch skips an event", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			w.Observations = append(w.Observations[:5], w.Observations[6:]...) // drop ADDED b at 4
			return ops
		}, WatchGap, ""},
		{"a watch delivers an event twice", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			w.Observations = append(w.Observations, w.Observations[6])
			return ops
		}, WatchDuplicate, ""},
		{"a watch reorders two events", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			w.Observations[5], w.Observations[6] = w.Observations[6], w.Observations[5]
			return ops
		}, WatchReorder, WatchGap}, // when 5 arrives, 4 has not
		{"a watch stops short of the last change", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			w.Observations = w.Observations[:6]
			return ops
		}, WatchShort, ""},
		{"a watch stops short after an error it never relists from", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			w.Observations = append(w.Observations[:6], Observation{Kind: ObservedError, Detail: "internal error"})
			return ops
		}, WatchShort, ""},
		{"a namespaced watch delivers an event from another namespace", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			c := ConfigMapKey("other", "c")
			h.Events = append(h.Events, HistoryEvent{Key: c, Revision: 6, Type: Put, Created: true, Value: valuePrefix + "5"})
			h.LastRevision = 6
			w.Observations = append(w.Observations, Observation{Kind: ObservedEvent, Revision: 6, EventType: "ADDED", Key: c, Value: valuePrefix + "5"})
			return append(ops, Operation{Client: 2, Kind: OpCreate, Namespace: "other", Name: "c", Value: valuePrefix + "5",
				Start: time.Unix(10, 0), End: time.Unix(11, 0), Outcome: Acknowledged, Code: 201, ResourceVersion: 6})
		}, WatchWrongEvent, ""},
		{"a watch event carries the wrong value", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			w.Observations[2].Value = valuePrefix + "1"
			return ops
		}, WatchWrongEvent, ""},
		{"a bookmark claims a revision whose change was not delivered", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			w.Observations = append(w.Observations[:6], Observation{Kind: ObservedBookmark, Revision: 5})
			return ops
		}, WatchGap, ""},
		{"an acknowledged write is lost", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			h.Events[1].Value = "something else"
			h.Events[3].Value = "something else"
			w.Observations[2].Value, w.Observations[6].Value = "something else", "something else"
			ops[5].Items = nil // the list check is not the subject here
			return append(ops[:5], ops[6:]...)
		}, LostWrite, ""},
		{"a refused write is applied", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			ops[0].Outcome = Refused
			return ops
		}, RefusedWriteApplied, ""},
		{"an unknown write is applied twice", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			h.Events = append(h.Events, HistoryEvent{Key: b, Revision: 6, Type: Put, Value: valuePrefix + "3"})
			h.LastRevision = 6
			w.Observations = append(w.Observations, Observation{Kind: ObservedEvent, Revision: 6, EventType: "MODIFIED", Key: b, Value: valuePrefix + "3"})
			return ops
		}, DuplicateWrite, ""},
		{"an update ignores its precondition", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			ops[1].Precondition = 1
			return ops
		}, PreconditionIgnored, ""},
		{"a list shows the wrong state", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			ops[5].Items = map[string]ObjectState{a: {3, valuePrefix + "2"}, b: {4, valuePrefix + "3"}}
			return ops
		}, ListWrong, ""},
		{"a consistent list is older than an acknowledged write", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			ops[5].ResourceVersion = 2
			ops[5].Items = map[string]ObjectState{a: {2, valuePrefix + "1"}}
			return ops
		}, ListStale, ""},
		{"a consistent list still shows an object whose delete was acknowledged before it", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			// The delete answered with a at 3, its last write; the
			// deletion is at 5, so a list at 4 is older than the delete.
			ops[5].ResourceVersion = 4
			ops[5].Items = map[string]ObjectState{a: {3, valuePrefix + "2"}, b: {4, valuePrefix + "3"}}
			return ops
		}, ListStale, ""},
		{"an exact list answers at another resourceVersion", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			ops[5].ListResourceVersion, ops[5].ListMatch = "4", "Exact"
			return ops
		}, ListWrong, ""},
		{"a not-older-than list answers older", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			ops[5].ListResourceVersion, ops[5].ListMatch = "6", "NotOlderThan"
			return ops
		}, ListStale, ""},
		{"the pages of a list disagree", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			ops[5].Pages, ops[5].PagesDisagree = 2, "page 2 answered at resourceVersion 4, the first at 5"
			return ops
		}, ListWrong, ""},
		{"a value appears that no operation wrote", func(h *History, ops []Operation, w *WatcherRecord) []Operation {
			return ops[:2] // forget who created b
		}, PhantomWrite, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, w := syntheticHistory(), syntheticWatch(false)
			ops := tc.breakRun(&h, syntheticOps(), &w)
			got := Check(h, ops, []WatcherRecord{w})
			found := false
			for _, a := range got {
				switch {
				case a.Kind == tc.want:
					found = true
				case a.Kind != tc.also || tc.also == "":
					t.Errorf("anomaly %v; want only %s", a, tc.want)
				}
			}
			if !found {
				t.Fatalf("no %s found; anomalies: %v", tc.want, got)
			}
		})
	}
}

// A 410 ends a chain: the events after it and before the relist are not
// the watcher's promise, and the relist starts a new one.
func TestCheckAcceptsGoneThenRelist(t *testing.T) {
	a, b := ConfigMapKey("ns", "a"), ConfigMapKey("ns", "b")
	w := WatcherRecord{Name: "old", Prefix: ConfigMapKey("ns", ""), Observations: []Observation{
		{Kind: ObservedWatchStart, Revision: 1},
		{Kind: ObservedGone, Detail: "too old resource version"},
		{Kind: ObservedList, Revision: 4, Items: map[string]ObjectState{a: {3, valuePrefix + "2"}, b: {4, valuePrefix + "3"}}},
		{Kind: ObservedWatchStart, Revision: 4},
		{Kind: ObservedEvent, Revision: 5, EventType: "DELETED", Key: a, Value: valuePrefix + "2"},
	}}
	if got := Check(syntheticHistory(), syntheticOps(), []WatcherRecord{w}); len(got) != 0 {
		t.Fatalf("anomalies: %v", got)
	}
	w.Observations = append(w.Observations[:1], w.Observations[3:]...) // no 410, no relist: the chain from 1 misses 2..4
	got := Check(syntheticHistory(), syntheticOps(), []WatcherRecord{w})
	if len(got) != 1 || got[0].Kind != WatchGap || !strings.Contains(got[0].Detail, "revision 2") {
		t.Fatalf("anomalies %v; want one gap naming revision 2", got)
	}
}
