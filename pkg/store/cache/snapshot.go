package cache

import (
	"slices"
	"sort"
	"strings"
)

// snapshot is the cache's current state: the latest Entry of every key under
// the cache's prefix, kept sorted by key (invariant: entries is sorted and
// has no duplicate key).
//
// A sorted slice answers all three questions the cache asks: one key (binary
// search), every key under a prefix (a contiguous run, found by two binary
// searches, returned as one copy), and insert or delete (a binary search and
// a shift of the tail). The shift is the cost: at 10 000 entries it moves at
// most ~400 KB, tens of microseconds, and only when a key is created or
// deleted, not on updates. Upstream keeps a btree for this job, which pays
// off only at far larger sizes.
type snapshot struct {
	entries []Entry
	// index, when the cache has one, files entries by Options.Index (index.go).
	index *objectIndex
}

// newSnapshot builds a snapshot from entries (a store list is already in key
// order; sorting again is cheap insurance).
func newSnapshot(entries []Entry) snapshot {
	if !slices.IsSortedFunc(entries, compareEntries) {
		slices.SortFunc(entries, compareEntries)
	}
	return snapshot{entries: entries}
}

func compareEntries(a, b Entry) int { return strings.Compare(a.Key, b.Key) }

// find returns where key is, or where it would be inserted.
func (s *snapshot) find(key string) (int, bool) {
	return slices.BinarySearchFunc(s.entries, key, func(e Entry, key string) int {
		return strings.Compare(e.Key, key)
	})
}

func (s *snapshot) get(key string) (Entry, bool) {
	i, found := s.find(key)
	if !found {
		return Entry{}, false
	}
	return s.entries[i], true
}

// put stores e and returns the entry it replaced, if any.
func (s *snapshot) put(e Entry) (prev Entry, existed bool) {
	i, found := s.find(e.Key)
	if found {
		prev = s.entries[i]
		s.entries[i] = e
		if s.index != nil {
			s.index.remove(prev)
			s.index.add(e)
		}
		return prev, true
	}
	s.entries = slices.Insert(s.entries, i, e)
	if s.index != nil {
		s.index.add(e)
	}
	return Entry{}, false
}

// remove deletes key and returns the entry it had, if any.
func (s *snapshot) remove(key string) (prev Entry, existed bool) {
	i, found := s.find(key)
	if !found {
		return Entry{}, false
	}
	prev = s.entries[i]
	s.entries = slices.Delete(s.entries, i, i+1)
	if s.index != nil {
		s.index.remove(prev)
	}
	return prev, true
}

// list returns a copy of the entries whose key starts with prefix, in key
// order. Keys sharing a prefix are contiguous in a sorted slice.
func (s *snapshot) list(prefix string) []Entry {
	start, _ := s.find(prefix)
	rest := s.entries[start:]
	n := sort.Search(len(rest), func(i int) bool { return !strings.HasPrefix(rest[i].Key, prefix) })
	out := make([]Entry, n)
	copy(out, rest[:n])
	return out
}
