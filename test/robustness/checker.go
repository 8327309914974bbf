package robustness

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// AnomalyKind names a broken promise.
type AnomalyKind string

// The anomalies the checker reports.
const (
	// LostWrite: an acknowledged write is not in etcd's history at the
	// resourceVersion it returned, with the value it wrote.
	LostWrite AnomalyKind = "lost-write"
	// RefusedWriteApplied: a write answered with a 4xx is in the history.
	RefusedWriteApplied AnomalyKind = "refused-write-applied"
	// DuplicateWrite: one operation's value was written more than once.
	DuplicateWrite AnomalyKind = "duplicate-write"
	// PhantomWrite: the history holds a value no operation wrote.
	PhantomWrite AnomalyKind = "phantom-write"
	// PreconditionIgnored: a write succeeded although the object was not
	// at the resourceVersion it required.
	PreconditionIgnored AnomalyKind = "precondition-ignored"
	// WatchGap: a watch skipped a change it should have delivered.
	WatchGap AnomalyKind = "watch-gap"
	// WatchDuplicate: a watch delivered the same change twice.
	WatchDuplicate AnomalyKind = "watch-duplicate"
	// WatchReorder: a watch delivered a change older than one it had
	// already delivered.
	WatchReorder AnomalyKind = "watch-reorder"
	// WatchWrongEvent: an event that does not match the history's change
	// at its resourceVersion (other key, type or value).
	WatchWrongEvent AnomalyKind = "watch-wrong-event"
	// WatchBookmarkBack: a bookmark older than an event already delivered.
	WatchBookmarkBack AnomalyKind = "watch-bookmark-back"
	// WatchShort: when the run ended, a watch had not delivered the last
	// changes under its prefix.
	WatchShort AnomalyKind = "watch-short"
	// ListWrong: a list differs from the state the history gives for its
	// resourceVersion.
	ListWrong AnomalyKind = "list-wrong"
	// ListStale: a consistent list is older than a write acknowledged
	// before the list began.
	ListStale AnomalyKind = "list-stale"
)

// Anomaly is one broken promise, with what shows it.
type Anomaly struct {
	Kind   AnomalyKind
	Detail string
}

// String renders the anomaly as the report prints it: kind, then detail.
func (a Anomaly) String() string { return string(a.Kind) + ": " + a.Detail }

// ConfigMapKey is the etcd key kplane stores a ConfigMap under.
func ConfigMapKey(namespace, name string) string {
	return "/registry/configmaps/" + namespace + "/" + name
}

// Check proves the run's promises from the history: it compares every
// operation and every watcher's stream with it and returns each anomaly
// found (none for a correct apiserver).
func Check(h History, ops []Operation, watchers []WatcherRecord) []Anomaly {
	x := newHistoryIndex(h)
	var anomalies []Anomaly
	anomalies = append(anomalies, checkWrites(x, ops)...)
	anomalies = append(anomalies, checkLists(x, ops)...)
	for _, w := range watchers {
		anomalies = append(anomalies, checkWatcher(x, w)...)
	}
	return anomalies
}

// checkWrites holds every write's outcome against the history.
func checkWrites(x *historyIndex, ops []Operation) []Anomaly {
	var out []Anomaly
	written := map[string]bool{}
	for _, op := range ops {
		if op.Kind == OpList {
			continue
		}
		key := ConfigMapKey(op.Namespace, op.Name)
		if op.Kind == OpDelete {
			out = append(out, checkDelete(x, op, key)...)
			continue
		}
		written[op.Value] = true
		puts := x.byValue[op.Value]
		if len(puts) > 1 {
			out = append(out, Anomaly{DuplicateWrite, fmt.Sprintf("%s %s by client %d (%s) is in the history %d times, at revisions %v",
				op.Kind, op.Value, op.Client, op.Outcome, len(puts), revisionsOf(puts))})
		}
		switch op.Outcome {
		case Refused:
			if len(puts) > 0 {
				out = append(out, Anomaly{RefusedWriteApplied, fmt.Sprintf("%s of %s with %s was refused (%d: %s) but etcd stored it at revision %d",
					op.Kind, key, op.Value, op.Code, op.Err, puts[0].Revision)})
			}
		case Acknowledged:
			if len(puts) == 0 {
				out = append(out, Anomaly{LostWrite, fmt.Sprintf("%s of %s with %s was acknowledged at resourceVersion %d but is not in the history",
					op.Kind, key, op.Value, op.ResourceVersion)})
				continue
			}
			put := puts[0]
			if put.Revision != op.ResourceVersion || put.Key != key {
				out = append(out, Anomaly{LostWrite, fmt.Sprintf("%s of %s with %s was acknowledged at resourceVersion %d but etcd has it at %s revision %d",
					op.Kind, key, op.Value, op.ResourceVersion, put.Key, put.Revision)})
				continue
			}
			if op.Kind == OpCreate && !put.Created {
				out = append(out, Anomaly{LostWrite, fmt.Sprintf("create of %s with %s was acknowledged, but at revision %d it replaced an existing object",
					key, op.Value, put.Revision)})
			}
			if op.Precondition != 0 {
				prev, ok := x.before(key, put.Revision)
				if !ok || prev.Type != Put || prev.Revision != op.Precondition {
					out = append(out, Anomaly{PreconditionIgnored, fmt.Sprintf("%s of %s required resourceVersion %d, but before revision %d the key was at %s",
						op.Kind, key, op.Precondition, put.Revision, describe(prev, ok))})
				}
			}
		}
	}
	for value, puts := range x.byValue {
		if strings.HasPrefix(value, valuePrefix) && !written[value] {
			out = append(out, Anomaly{PhantomWrite, fmt.Sprintf("value %s at %s revision %d was written by no operation", value, puts[0].Key, puts[0].Revision)})
		}
	}
	return out
}

// checkDelete holds an acknowledged delete against the history: the change
// after the object it returned is that object's deletion.
func checkDelete(x *historyIndex, op Operation, key string) []Anomaly {
	if op.Outcome != Acknowledged || op.ResourceVersion == 0 {
		return nil
	}
	next, ok := x.after(key, op.ResourceVersion)
	if !ok || next.Type != Delete {
		return []Anomaly{{LostWrite, fmt.Sprintf("delete of %s was acknowledged (object at resourceVersion %d), but the next change to the key is %s",
			key, op.ResourceVersion, describe(next, ok))}}
	}
	if op.Precondition != 0 && op.Precondition != op.ResourceVersion {
		return []Anomaly{{PreconditionIgnored, fmt.Sprintf("delete of %s required resourceVersion %d, but deleted the object at %d",
			key, op.Precondition, op.ResourceVersion)}}
	}
	return nil
}

// checkLists compares each acknowledged list with the history's state at
// its resourceVersion, and each consistent list with the writes
// acknowledged before it began.
func checkLists(x *historyIndex, ops []Operation) []Anomaly {
	var out []Anomaly
	var writes, lists []Operation
	for _, op := range ops {
		if op.Outcome != Acknowledged {
			continue
		}
		if op.Kind == OpList {
			lists = append(lists, op)
			prefix := ConfigMapKey(op.Namespace, "")
			asked := fmt.Sprintf("resourceVersion=%q", op.ListResourceVersion)
			if op.ListMatch != "" {
				asked += ", resourceVersionMatch=" + op.ListMatch
			}
			if op.Pages > 1 {
				asked += fmt.Sprintf(", %d pages", op.Pages)
			}
			if a, ok := compareList(x, prefix, op.ResourceVersion, op.Items); !ok {
				out = append(out, Anomaly{ListWrong, fmt.Sprintf("client %d's list of %s (%s): %s", op.Client, prefix, asked, a)})
			}
			if op.PagesDisagree != "" {
				out = append(out, Anomaly{ListWrong, fmt.Sprintf("client %d's list of %s (%s): %s", op.Client, prefix, asked, op.PagesDisagree)})
			}
			requested, _ := strconv.ParseInt(op.ListResourceVersion, 10, 64)
			switch {
			case op.ListMatch == "Exact" && op.ResourceVersion != requested:
				out = append(out, Anomaly{ListWrong, fmt.Sprintf("client %d's list of %s (%s) answered at resourceVersion %d", op.Client, prefix, asked, op.ResourceVersion)})
			case op.ListMatch == "NotOlderThan" && op.ResourceVersion < requested:
				out = append(out, Anomaly{ListStale, fmt.Sprintf("client %d's list of %s (%s) answered at the older resourceVersion %d", op.Client, prefix, asked, op.ResourceVersion)})
			}
		} else if op.ResourceVersion != 0 {
			if op.Kind == OpDelete {
				// A delete answers with the object it removed, at its last
				// write; the list must be at least as new as the deletion.
				next, ok := x.after(ConfigMapKey(op.Namespace, op.Name), op.ResourceVersion)
				if !ok || next.Type != Delete {
					continue // checkDelete reports it
				}
				op.ResourceVersion = next.Revision
			}
			writes = append(writes, op)
		}
	}
	// A sweep: lists by start, writes by end; newest tracks the newest
	// write acknowledged before the current list began.
	sort.Slice(writes, func(i, j int) bool { return writes[i].End.Before(writes[j].End) })
	sort.Slice(lists, func(i, j int) bool { return lists[i].Start.Before(lists[j].Start) })
	var newest Operation
	w := 0
	for _, l := range lists {
		for w < len(writes) && writes[w].End.Before(l.Start) {
			if writes[w].ResourceVersion > newest.ResourceVersion {
				newest = writes[w]
			}
			w++
		}
		if l.ListResourceVersion == "" && l.ListMatch == "" && l.ResourceVersion < newest.ResourceVersion {
			out = append(out, Anomaly{ListStale, fmt.Sprintf("client %d's consistent list of %s answered at resourceVersion %d, older than %s of %s/%s acknowledged at %d before the list began",
				l.Client, l.Namespace, l.ResourceVersion, newest.Kind, newest.Namespace, newest.Name, newest.ResourceVersion)})
		}
	}
	return out
}

// compareList says how items differ from the state under prefix at rev.
func compareList(x *historyIndex, prefix string, rev int64, items map[string]ObjectState) (string, bool) {
	want := x.stateAt(prefix, rev)
	if maps.Equal(want, items) {
		return "", true
	}
	var diffs []string
	for _, key := range slices.Sorted(maps.Keys(want)) {
		got, ok := items[key]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s missing (history: %+v)", key, want[key]))
		case got != want[key]:
			diffs = append(diffs, fmt.Sprintf("%s is %+v, history says %+v", key, got, want[key]))
		}
	}
	for _, key := range slices.Sorted(maps.Keys(items)) {
		if _, ok := want[key]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s %+v should not exist", key, items[key]))
		}
	}
	return fmt.Sprintf("at revision %d: %s", rev, strings.Join(diffs, "; ")), false
}

// checkWatcher walks one watcher's observations. A chain starts with a
// list (or a watch from a given resourceVersion) and runs through every
// resumed watch until an error event; within it, every change under the
// prefix must arrive once, in revision order, with nothing skipped.
func checkWatcher(x *historyIndex, w WatcherRecord) []Anomaly {
	var out []Anomaly
	report := func(kind AnomalyKind, format string, args ...any) {
		out = append(out, Anomaly{kind, w.Name + ": " + fmt.Sprintf(format, args...)})
	}
	active := false
	var cursor int64
	delivered := map[int64]bool{}
	for _, o := range w.Observations {
		switch o.Kind {
		case ObservedList:
			if a, ok := compareList(x, w.Prefix, o.Revision, o.Items); !ok {
				report(ListWrong, "list: %s", a)
			}
			active, cursor, delivered = true, o.Revision, map[int64]bool{}
		case ObservedWatchStart:
			if !active {
				active, cursor, delivered = true, o.Revision, map[int64]bool{}
			}
		case ObservedEvent:
			if !active {
				continue
			}
			if o.Revision <= cursor {
				if delivered[o.Revision] {
					report(WatchDuplicate, "%s %s at resourceVersion %d delivered again", o.EventType, o.Key, o.Revision)
				} else {
					report(WatchReorder, "%s %s at resourceVersion %d arrived after resourceVersion %d", o.EventType, o.Key, o.Revision, cursor)
				}
				continue
			}
			if missed := x.between(w.Prefix, cursor, o.Revision-1); len(missed) > 0 {
				report(WatchGap, "skipped %s between resourceVersion %d and the %s at %d", describeRevisions(x, missed), cursor, o.EventType, o.Revision)
			}
			if want, ok := x.byRevision[o.Revision]; !ok || want.Key != o.Key || watchEventType(want) != o.EventType || want.Value != o.Value ||
				!strings.HasPrefix(o.Key, w.Prefix) {
				report(WatchWrongEvent, "%s %s %s at resourceVersion %d; the history has %s", o.EventType, o.Key, o.Value, o.Revision, describe(want, ok))
			}
			cursor = o.Revision
			delivered[o.Revision] = true
		case ObservedBookmark:
			if !active {
				continue
			}
			if o.Revision < cursor {
				report(WatchBookmarkBack, "bookmark at %d after an event at %d", o.Revision, cursor)
				continue
			}
			if missed := x.between(w.Prefix, cursor, o.Revision); len(missed) > 0 {
				report(WatchGap, "skipped %s between resourceVersion %d and a bookmark at %d", describeRevisions(x, missed), cursor, o.Revision)
			}
			cursor = o.Revision
		case ObservedGone, ObservedError:
			active = false
		case ObservedEnd:
		}
	}
	// Whether the last chain is still open or ended with an error the
	// watcher never recovered from, it must have delivered every change
	// under its prefix by the end of the run.
	if missed := x.between(w.Prefix, cursor, x.history.LastRevision); len(missed) > 0 {
		ended := ""
		if !active {
			ended = " (its last watch ended with an error and it never listed again)"
		}
		report(WatchShort, "stopped at resourceVersion %d%s without %s", cursor, ended, describeRevisions(x, missed))
	}
	return out
}

// watchEventType is the watch event type a change must arrive as.
func watchEventType(ev HistoryEvent) string {
	switch {
	case ev.Type == Delete:
		return "DELETED"
	case ev.Created:
		return "ADDED"
	default:
		return "MODIFIED"
	}
}

func describe(ev HistoryEvent, ok bool) string {
	if !ok {
		return "nothing"
	}
	return fmt.Sprintf("%s %s %s at revision %d", watchEventType(ev), ev.Key, ev.Value, ev.Revision)
}

// describeRevisions names up to three missed changes and counts the rest.
func describeRevisions(x *historyIndex, revs []int64) string {
	var parts []string
	for _, r := range revs[:min(3, len(revs))] {
		ev := x.byRevision[r]
		parts = append(parts, describe(ev, true))
	}
	if len(revs) > 3 {
		parts = append(parts, fmt.Sprintf("and %d more", len(revs)-3))
	}
	return strings.Join(parts, ", ")
}

func revisionsOf(evs []HistoryEvent) []int64 {
	revs := make([]int64, len(evs))
	for i, ev := range evs {
		revs[i] = ev.Revision
	}
	return revs
}
