package robustness

import (
	"slices"
	"sort"
	"strings"
)

// historyIndex answers the checker's questions about a History quickly:
// what changed at a revision, what a key held at a revision, which changes
// fall under a prefix between two revisions, and which changes wrote a
// value. It is built once; nothing changes it afterwards.
type historyIndex struct {
	history    History
	byRevision map[int64]HistoryEvent
	// byKey holds each key's changes in revision order.
	byKey map[string][]HistoryEvent
	// byValue holds the puts that wrote each value (more than one is an
	// anomaly: every operation writes a value of its own).
	byValue map[string][]HistoryEvent
	// byPrefix caches, per watched prefix, the revisions of the changes
	// under it, sorted.
	byPrefix map[string][]int64
}

func newHistoryIndex(h History) *historyIndex {
	x := &historyIndex{
		history:    h,
		byRevision: make(map[int64]HistoryEvent, len(h.Events)),
		byKey:      map[string][]HistoryEvent{},
		byValue:    map[string][]HistoryEvent{},
		byPrefix:   map[string][]int64{},
	}
	for _, ev := range h.Events {
		x.byRevision[ev.Revision] = ev
		x.byKey[ev.Key] = append(x.byKey[ev.Key], ev)
		if ev.Type == Put && ev.Value != "" {
			x.byValue[ev.Value] = append(x.byValue[ev.Value], ev)
		}
	}
	return x
}

// revisionsUnder returns the revisions of the changes under prefix, sorted.
func (x *historyIndex) revisionsUnder(prefix string) []int64 {
	if revs, ok := x.byPrefix[prefix]; ok {
		return revs
	}
	var revs []int64
	for _, ev := range x.history.Events {
		if strings.HasPrefix(ev.Key, prefix) {
			revs = append(revs, ev.Revision)
		}
	}
	slices.Sort(revs)
	x.byPrefix[prefix] = revs
	return revs
}

// between returns the revisions of the changes under prefix in (after, upTo].
func (x *historyIndex) between(prefix string, after, upTo int64) []int64 {
	revs := x.revisionsUnder(prefix)
	lo := sort.Search(len(revs), func(i int) bool { return revs[i] > after })
	hi := sort.Search(len(revs), func(i int) bool { return revs[i] > upTo })
	if lo >= hi {
		return nil
	}
	return revs[lo:hi]
}

// lastUnder returns the revision of the newest change under prefix, or 0.
func (x *historyIndex) lastUnder(prefix string) int64 {
	revs := x.revisionsUnder(prefix)
	if len(revs) == 0 {
		return 0
	}
	return revs[len(revs)-1]
}

// stateAt returns what every key under prefix held at revision rev: the
// keys that existed then, with the revision and value of their last put.
func (x *historyIndex) stateAt(prefix string, rev int64) map[string]ObjectState {
	state := map[string]ObjectState{}
	for key, evs := range x.byKey {
		if !strings.HasPrefix(key, prefix) {
			continue
		}
		i := sort.Search(len(evs), func(i int) bool { return evs[i].Revision > rev })
		if i == 0 || evs[i-1].Type == Delete {
			continue
		}
		state[key] = ObjectState{ResourceVersion: evs[i-1].Revision, Value: evs[i-1].Value}
	}
	return state
}

// before returns the change to key just before revision rev.
func (x *historyIndex) before(key string, rev int64) (HistoryEvent, bool) {
	evs := x.byKey[key]
	i := sort.Search(len(evs), func(i int) bool { return evs[i].Revision >= rev })
	if i == 0 {
		return HistoryEvent{}, false
	}
	return evs[i-1], true
}

// after returns the change to key just after revision rev.
func (x *historyIndex) after(key string, rev int64) (HistoryEvent, bool) {
	evs := x.byKey[key]
	i := sort.Search(len(evs), func(i int) bool { return evs[i].Revision > rev })
	if i == len(evs) {
		return HistoryEvent{}, false
	}
	return evs[i], true
}
