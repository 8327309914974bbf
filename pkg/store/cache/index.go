package cache

import "sort"

// The optional index (Options.Index) files every object of the snapshot
// under one value — a pod under its spec.nodeName — so that ByIndex finds
// the few objects with a value without visiting the thousands without
// it. It is kept under the same lock as the snapshot, by put and remove,
// so it never disagrees with Get and List. Upstream's watch cache has
// the same kind of index for pods by spec.nodeName (its "IndexerFuncs").

// objectIndex maps an index value to the keys filed under it.
type objectIndex struct {
	valueOf func(obj any) string
	keys    map[string]map[string]struct{}
}

// buildIndex (re)files every entry of s with valueOf; nil removes the index.
func (s *snapshot) buildIndex(valueOf func(obj any) string) {
	if valueOf == nil {
		s.index = nil
		return
	}
	s.index = &objectIndex{valueOf: valueOf, keys: map[string]map[string]struct{}{}}
	for _, e := range s.entries {
		s.index.add(e)
	}
}

func (x *objectIndex) add(e Entry) {
	v := x.valueOf(e.Object)
	if v == "" {
		return
	}
	set := x.keys[v]
	if set == nil {
		set = map[string]struct{}{}
		x.keys[v] = set
	}
	set[e.Key] = struct{}{}
}

func (x *objectIndex) remove(e Entry) {
	v := x.valueOf(e.Object)
	set := x.keys[v]
	delete(set, e.Key)
	if len(set) == 0 {
		delete(x.keys, v)
	}
}

// byIndex returns the entries filed under value, in key order.
func (s *snapshot) byIndex(value string) []Entry {
	if s.index == nil {
		return nil
	}
	set := s.index.keys[value]
	out := make([]Entry, 0, len(set))
	for key := range set {
		if e, ok := s.get(key); ok {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// ByIndex returns the entries whose Options.Index value is value, in key
// order, as the cache holds them now (it does not wait for freshness, as
// Get does not). A cache without an Index returns nil.
func (c *Cache) ByIndex(value string) []Entry {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.snapshot.byIndex(value)
}
