package cache

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"kplane/pkg/store"
)

// Pages of a list, and pages of the list as it stood at an earlier revision.
//
// A paginated LIST (limit=500, then continue=…) must show every page as of
// the first page's revision R: a write between two pages does not appear in
// the later pages, and an object deleted meanwhile still does. The snapshot
// only holds the present, but the history holds every change after
// history.since, each with the state it replaced (Event.PrevObject). So for
// any R the history covers, the state at R is the present with the changes
// after R undone: a key's first change after R tells its state at R (absent
// if that change created it, else the change's PrevObject). ListPageAt walks
// the present snapshot and that small overlay of undone keys side by side,
// in key order, without copying either.
//
// This is what upstream's watch cache does since Kubernetes 1.33 for its
// continue tokens (the ListFromCacheSnapshot feature), with one difference in
// how: upstream keeps a copy-on-write btree clone of its store per revision
// and drops the clones older than its event history; kplane rebuilds the
// state at R from the history itself. The bound is the same — a revision is
// servable exactly while the history still holds every event after it — and
// it costs no memory beyond the history, which already keeps each PrevObject
// for watchers. A page costs a scan of the history's events after R (at most
// Options.EventBufferSize) plus the page itself, instead of the round trip
// to etcd and a decode of every object that an older revision used to need.

// ErrRevisionNotHeld is ListPageAt's answer when the cache cannot show the
// prefix as it stood at the asked revision: its history has let go of some
// change after that revision (or was reset by a re-list or DropWatches), or
// the cache has not reached the revision yet. The caller reads the store at
// that revision instead, which answers store.ErrGone once it is compacted.
var ErrRevisionNotHeld = errors.New("watch cache does not hold that revision")

// PageOptions selects one page of a list.
type PageOptions struct {
	// After is the key the previous page ended with; the page starts with
	// the first key after it. "" starts at the beginning.
	After string
	// Limit is the most entries the page holds; 0 means no limit.
	Limit int
	// Match, when set, keeps only the entries whose object it accepts (the
	// apiserver's label and field selectors). It runs after the cache's lock
	// is released, on a copy of the entries it may visit.
	Match func(obj any) bool
	// IndexValue, when set on a cache with an Options.Index, narrows a
	// ListPage to the entries filed under this value before Match runs (a
	// LIST of one node's pods visits that node's pods, not every pod), as
	// upstream's watch cache answers such lists from its indexers. Match
	// must still check the value: ListPageAt, and a cache without an
	// index, visit every entry.
	IndexValue string
}

// Page is one page of a list.
type Page struct {
	// Entries are the page's entries, in key order.
	Entries []Entry
	// Revision is the revision the page shows the prefix at.
	Revision int64
	// More says another matching entry follows the last one: the page was
	// cut at Limit.
	More bool
	// Remaining counts every entry (matching or not) after the last one of
	// the page, when More is set: upstream's remainingItemCount. With
	// IndexValue it counts only the entries filed under that value.
	Remaining int64
}

// ListPage returns a page of the entries under prefix as they are now, at a
// revision >= minRevision, with List's freshness rules (minRevision 0 is a
// consistent read). The page's Revision is what a continue token names.
func (c *Cache) ListPage(ctx context.Context, prefix string, minRevision int64, opts PageOptions) (Page, error) {
	if err := c.checkPrefix(prefix); err != nil {
		return Page{}, err
	}
	if err := c.waitReady(ctx); err != nil {
		return Page{}, err
	}
	if minRevision == 0 {
		current, err := c.store.CurrentRevision(ctx)
		if err != nil {
			return Page{}, fmt.Errorf("consistent list of %s: read the store's revision: %w", prefix, err)
		}
		minRevision = current
	}
	if err := c.waitForRevision(ctx, minRevision); err != nil {
		return Page{}, fmt.Errorf("list %s: %w", prefix, err)
	}
	c.mu.RLock()
	rev := c.revision
	if opts.IndexValue != "" && c.snapshot.index != nil {
		filed := c.snapshot.byIndex(opts.IndexValue) // a copy
		c.mu.RUnlock()
		return pageOf(filed, prefix, rev, nil, opts), nil
	}
	return c.pageUnlocking(candidatesLocked(c.snapshot.entries, prefix, opts), prefix, rev, nil, opts), nil
}

// pageUnlocking collects the page from entries (candidatesLocked's) and
// releases the read lock the caller holds: after collecting the page when
// entries are shared with the snapshot (no Match), before when they are a
// copy.
func (c *Cache) pageUnlocking(entries []Entry, prefix string, rev int64, undo []undone, opts PageOptions) Page {
	if opts.Match == nil {
		defer c.mu.RUnlock()
	} else {
		c.mu.RUnlock()
	}
	return pageOf(entries, prefix, rev, undo, opts)
}

// candidatesLocked returns the run of entries under prefix after
// opts.After. Without a Match a page is collected under the lock (it stops
// at Limit, or copies the run once), so the run is returned as it is,
// shared with the snapshot; with a Match it is copied (a memmove, as a
// whole list always was), so that matching, which may visit every entry,
// runs after the lock is released and never holds up the cache's writer.
func candidatesLocked(entries []Entry, prefix string, opts PageOptions) []Entry {
	start, end := runOf(entries, prefix, opts.After)
	if opts.Match == nil {
		return entries[start:end]
	}
	return slices.Clone(entries[start:end])
}

// ListPageAt returns a page of the entries under prefix as they stood at
// revision rev, or ErrRevisionNotHeld. It does not wait: rev is a revision
// the cache has served before (a continue token's).
func (c *Cache) ListPageAt(prefix string, rev int64, opts PageOptions) (Page, error) {
	if err := c.checkPrefix(prefix); err != nil {
		return Page{}, err
	}
	select {
	case <-c.ready:
	default:
		return Page{}, fmt.Errorf("list %s at revision %d: %w", prefix, rev, ErrRevisionNotHeld)
	}
	c.mu.RLock()
	if c.isStopped {
		c.mu.RUnlock()
		return Page{}, ErrStopped
	}
	if rev > c.revision || !c.history.covers(rev) {
		since, current := c.history.since, c.revision
		c.mu.RUnlock()
		return Page{}, fmt.Errorf("list %s at revision %d (the cache holds %d to %d): %w",
			prefix, rev, since, current, ErrRevisionNotHeld)
	}
	undo := c.undoAfter(rev, prefix, opts.After) // a new slice
	return c.pageUnlocking(candidatesLocked(c.snapshot.entries, prefix, opts), prefix, rev, undo, opts), nil
}

// undone is a key's state at an earlier revision, rebuilt from the history.
type undone struct {
	entry Entry
	// present says the key existed then (false: a later change created it).
	present bool
}

// undoAfter returns, for every key under prefix and after the key after that
// changed after rev, its state at rev, sorted by key. The caller holds the
// lock and has checked that the history covers rev.
func (c *Cache) undoAfter(rev int64, prefix, after string) []undone {
	changes := c.history.eventsAfter(rev, prefix)
	if len(changes) == 0 {
		return nil
	}
	seen := make(map[string]struct{}, len(changes))
	var out []undone
	for _, ev := range changes { // oldest first: a key's first change wins
		if ev.Key <= after {
			continue
		}
		if _, done := seen[ev.Key]; done {
			continue
		}
		seen[ev.Key] = struct{}{}
		if ev.Type == store.Added {
			out = append(out, undone{entry: Entry{Key: ev.Key}})
			continue
		}
		out = append(out, undone{entry: Entry{Key: ev.Key, Revision: ev.PrevRevision, Object: ev.PrevObject}, present: true})
	}
	slices.SortFunc(out, func(a, b undone) int { return strings.Compare(a.entry.Key, b.entry.Key) })
	return out
}

// runOf returns where, in entries (sorted by key), the keys under prefix
// that sort after after begin and end: keys sharing a prefix are
// contiguous.
func runOf(entries []Entry, prefix, after string) (start, end int) {
	find := func(key string) int {
		i, _ := slices.BinarySearchFunc(entries, key, func(e Entry, key string) int { return strings.Compare(e.Key, key) })
		return i
	}
	start = find(prefix)
	if after > prefix {
		start = find(after)
		if start < len(entries) && entries[start].Key == after {
			start++
		}
	}
	end = start + sort.Search(len(entries)-start, func(i int) bool {
		return !strings.HasPrefix(entries[start+i].Key, prefix)
	})
	return start, end
}

// pageOf collects the page at rev from entries (sorted by key: a run of
// the snapshot's, a copy of it, or the entries an index files under a
// value), from opts.After on, with the keys of undo (also after
// opts.After) replaced by their earlier state.
func pageOf(entries []Entry, prefix string, rev int64, undo []undone, opts PageOptions) Page {
	page := Page{Revision: rev}
	start, end := runOf(entries, prefix, opts.After)

	size := end - start + len(undo) // at most this many; a whole list is copied once
	if opts.Limit > 0 {
		size = min(size, opts.Limit)
	} else if opts.Match != nil {
		size = 0 // unknown: let append find out
	}
	page.Entries = make([]Entry, 0, size)

	i, j := start, 0 // cursors into entries[start:end] and undo
	for i < end || j < len(undo) {
		var e Entry
		switch {
		case j == len(undo) || (i < end && entries[i].Key < undo[j].entry.Key):
			e = entries[i]
			i++
		default:
			u := undo[j]
			j++
			if i < end && entries[i].Key == u.entry.Key {
				i++ // the present state of an undone key is not shown
			}
			if !u.present {
				continue
			}
			e = u.entry
		}
		if opts.Match != nil && !opts.Match(e.Object) {
			continue
		}
		if opts.Limit > 0 && len(page.Entries) == opts.Limit {
			page.More = true
			page.Remaining = countAfter(entries[i:end], undo[j:]) + 1 // e itself
			return page
		}
		page.Entries = append(page.Entries, e)
	}
	return page
}

// countAfter counts the keys that existed at the page's revision among
// the rest of the snapshot's run and the rest of the overlay: the present
// ones, less the undone keys that did not exist then, plus the undone keys
// that no longer exist now.
func countAfter(rest []Entry, undo []undone) int64 {
	n := int64(len(rest))
	for _, u := range undo {
		_, existsNow := slices.BinarySearchFunc(rest, u.entry.Key, func(e Entry, key string) int {
			return strings.Compare(e.Key, key)
		})
		switch {
		case existsNow && !u.present:
			n--
		case !existsNow && u.present:
			n++
		}
	}
	return n
}
