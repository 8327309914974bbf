package cache

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/store"
)

// stateOf is what the store holds under prefix now, in key order: the
// expected answer of a list at the store's current revision.
func stateOf(t *testing.T, s *fakeStore, prefix string) []Entry {
	t.Helper()
	list, err := s.List(context.Background(), prefix, store.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]Entry, len(list.Items))
	for i, kv := range list.Items {
		obj, _ := decodeTestObject(kv)
		out[i] = Entry{Key: kv.Key, Revision: kv.ModRevision, Object: obj}
	}
	return out
}

// waitFor makes sure the cache has caught up to rev.
func waitFor(t *testing.T, c *Cache, rev int64) {
	t.Helper()
	if err := c.WaitForRevision(context.Background(), rev); err != nil {
		t.Fatalf("wait for revision %d: %v", rev, err)
	}
}

// randomWrite creates, updates or deletes one of a few dozen keys (some
// outside the listed namespace) and returns the write's revision.
func randomWrite(t *testing.T, s *fakeStore, rng *rand.Rand, step int) int64 {
	t.Helper()
	ns := []string{"ns1", "ns1", "ns1", "ns2"}[rng.IntN(4)]
	key := fmt.Sprintf("/registry/pods/%s/p%02d", ns, rng.IntN(30))
	value := fmt.Sprintf("v%d", step)
	if _, err := s.Get(context.Background(), key); err != nil {
		return mustCreate(t, s, key, value)
	}
	if rng.IntN(3) == 0 {
		return mustDelete(t, s, key)
	}
	return mustUpdate(t, s, key, value)
}

// pageThrough reads every page of the list at rev with the given limit,
// making writes between the pages, and checks each page's Remaining against
// want, the whole list at rev.
func pageThrough(t *testing.T, c *Cache, s *fakeStore, rng *rand.Rand, prefix string, rev int64, limit int, match func(any) bool, want []Entry) []Entry {
	t.Helper()
	var all []Entry
	opts := PageOptions{Limit: limit, Match: match}
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatalf("list at %d never ended", rev)
		}
		page, err := c.ListPageAt(prefix, rev, opts)
		if err != nil {
			t.Fatalf("ListPageAt(%s, %d, after %q): %v", prefix, rev, opts.After, err)
		}
		if page.Revision != rev {
			t.Fatalf("page revision %d, want %d", page.Revision, rev)
		}
		if len(page.Entries) > limit {
			t.Fatalf("page of %d entries, limit %d", len(page.Entries), limit)
		}
		all = append(all, page.Entries...)
		if !page.More {
			return all
		}
		if len(page.Entries) == 0 {
			t.Fatalf("an empty page says more follow")
		}
		if match == nil && page.Remaining != int64(len(want)-len(all)) {
			t.Fatalf("list at %d, limit %d: page after %q says %d remain, want %d", rev, limit, opts.After, page.Remaining, len(want)-len(all))
		}
		opts.After = page.Entries[len(page.Entries)-1].Key
		for range rng.IntN(4) {
			waitFor(t, c, randomWrite(t, s, rng, 1000+pages))
		}
	}
}

// TestListPageAtShowsTheListAsOfItsRevision: for every revision of a run of
// random creates, updates and deletes (40), paging through the list at that
// revision — with more writes between the pages — returns exactly what the
// store held at that revision: a later write does not show, a later-deleted
// key still does, and each page's Remaining counts what the later pages hold.
func TestListPageAtShowsTheListAsOfItsRevision(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 2))
	s := newFakeStore()
	for i := range 20 {
		mustCreate(t, s, fmt.Sprintf("/registry/pods/ns1/p%02d", i), "v0")
	}
	c, stop := startCache(t, s, "/registry/pods/", Options{})
	defer stop()

	const prefix = "/registry/pods/ns1/"
	states := map[int64][]Entry{c.Revision(): stateOf(t, s, prefix)}
	revisions := []int64{c.Revision()}
	for step := range 40 {
		rev := randomWrite(t, s, rng, step)
		waitFor(t, c, rev)
		states[rev] = stateOf(t, s, prefix)
		revisions = append(revisions, rev)
	}

	for _, rev := range revisions {
		for _, limit := range []int{1, 3, 100} {
			want := states[rev]
			got := pageThrough(t, c, s, rng, prefix, rev, limit, nil, want)
			if !slices.Equal(summarizeEntries(got), summarizeEntries(want)) {
				t.Fatalf("list at %d, limit %d:\n got %v\nwant %v", rev, limit, summarizeEntries(got), summarizeEntries(want))
			}
		}
	}
}

// TestListPageAtRemainingCountsTheLaterPages: Remaining is the number of
// entries the list at the page's revision holds after the page, even when
// keys after the page were created and deleted since.
func TestListPageAtRemainingCountsTheLaterPages(t *testing.T) {
	s := newFakeStore()
	for i := range 6 {
		mustCreate(t, s, fmt.Sprintf("/registry/pods/ns1/p%d", i), "v0")
	}
	c, stop := startCache(t, s, "/registry/pods/", Options{})
	defer stop()
	first, err := c.ListPage(context.Background(), "/registry/pods/ns1/", 0, PageOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !first.More || first.Remaining != 4 {
		t.Fatalf("first page: more %v remaining %d, want true 4", first.More, first.Remaining)
	}
	mustDelete(t, s, "/registry/pods/ns1/p4")
	mustCreate(t, s, "/registry/pods/ns1/p7", "new")
	waitFor(t, c, mustCreate(t, s, "/registry/pods/ns1/p8", "new"))

	second, err := c.ListPageAt("/registry/pods/ns1/", first.Revision, PageOptions{Limit: 2, After: "/registry/pods/ns1/p1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := keysOf(second.Entries); !slices.Equal(got, []string{"/registry/pods/ns1/p2", "/registry/pods/ns1/p3"}) {
		t.Errorf("second page %v", got)
	}
	if !second.More || second.Remaining != 2 {
		t.Errorf("second page: more %v remaining %d, want true 2 (p4, deleted since, and p5)", second.More, second.Remaining)
	}
	last, err := c.ListPageAt("/registry/pods/ns1/", first.Revision, PageOptions{Limit: 2, After: "/registry/pods/ns1/p3"})
	if err != nil {
		t.Fatal(err)
	}
	if got := keysOf(last.Entries); !slices.Equal(got, []string{"/registry/pods/ns1/p4", "/registry/pods/ns1/p5"}) || last.More {
		t.Errorf("last page %v more %v, want [p4 p5] and no more", got, last.More)
	}
}

// TestListPageMatchSelectsAndPages: with Match, a page holds up to Limit
// matching entries, skipping the others, and More says a match follows.
func TestListPageMatchSelectsAndPages(t *testing.T) {
	s := newFakeStore()
	for i := range 7 {
		tier := "web"
		if i%2 == 1 {
			tier = "db"
		}
		mustCreate(t, s, fmt.Sprintf("/registry/pods/ns1/p%d", i), tier)
	}
	c, stop := startCache(t, s, "/registry/pods/", Options{})
	defer stop()
	db := func(obj any) bool { return obj.(testObject).Value == "db" }

	page, err := c.ListPage(context.Background(), "/registry/pods/ns1/", 0, PageOptions{Limit: 2, Match: db})
	if err != nil {
		t.Fatal(err)
	}
	if got := keysOf(page.Entries); !slices.Equal(got, []string{"/registry/pods/ns1/p1", "/registry/pods/ns1/p3"}) || !page.More {
		t.Fatalf("first page %v more %v", got, page.More)
	}
	// p6 is web: the p5 page is the last one.
	page, err = c.ListPageAt("/registry/pods/ns1/", page.Revision, PageOptions{Limit: 2, Match: db, After: "/registry/pods/ns1/p3"})
	if err != nil {
		t.Fatal(err)
	}
	if got := keysOf(page.Entries); !slices.Equal(got, []string{"/registry/pods/ns1/p5"}) || page.More {
		t.Errorf("second page %v more %v, want [p5] and no more", got, page.More)
	}
	all, err := c.ListPage(context.Background(), "/registry/pods/", 0, PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Entries) != 7 || all.More {
		t.Errorf("unlimited list: %d entries, more %v", len(all.Entries), all.More)
	}
}

// TestListPageAtRefusesRevisionsItDoesNotHold: a revision whose later
// changes the history has let go of, one the cache has not reached, and any
// revision before DropWatches forgot the history give ErrRevisionNotHeld.
func TestListPageAtRefusesRevisionsItDoesNotHold(t *testing.T) {
	s := newFakeStore()
	c, stop := startCache(t, s, "/registry/pods/", Options{EventBufferSize: 4})
	defer stop()
	old := mustCreate(t, s, "/registry/pods/ns1/a", "a")
	var last int64
	for i := range 4 { // five events in a history of four
		last = mustUpdate(t, s, "/registry/pods/ns1/a", fmt.Sprint(i))
	}
	waitFor(t, c, last)

	held, err := c.ListPageAt("/registry/pods/", last-3, PageOptions{})
	if err != nil || len(held.Entries) != 1 || held.Entries[0].Object.(testObject).Value != "0" {
		t.Errorf("list at %d (held): %+v, %v", last-3, held, err)
	}
	for _, rev := range []int64{old - 1, last + 1} { // old-1: before the create, whose event the history let go
		if _, err := c.ListPageAt("/registry/pods/", rev, PageOptions{}); !errors.Is(err, ErrRevisionNotHeld) {
			t.Errorf("list at %d: %v, want ErrRevisionNotHeld", rev, err)
		}
	}
	if _, err := c.DropWatches(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListPageAt("/registry/pods/", last-1, PageOptions{}); !errors.Is(err, ErrRevisionNotHeld) {
		t.Errorf("list at %d after DropWatches: %v, want ErrRevisionNotHeld", last-1, err)
	}
	if page, err := c.ListPageAt("/registry/pods/", last, PageOptions{}); err != nil || len(page.Entries) != 1 {
		t.Errorf("list at the current revision after DropWatches: %+v, %v", page, err)
	}
}

// summarizeEntries renders entries as key=value@revision, to compare them.
func summarizeEntries(entries []Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = fmt.Sprintf("%s=%s@%d", strings.TrimPrefix(e.Key, "/registry/pods/"), e.Object.(testObject).Value, e.Revision)
	}
	return out
}

// TestListPageIndexValueVisitsOnlyThatValue: with IndexValue, ListPage
// runs Match only on the entries the index files under that value (a
// node's pods, not every pod) and answers what a walk of every entry with
// the same Match answers, page by page, within the prefix only.
func TestListPageIndexValueVisitsOnlyThatValue(t *testing.T) {
	s := newFakeStore()
	for i := range 40 {
		mustCreate(t, s, fmt.Sprintf("/registry/pods/ns%d/p%02d", 1+i%2, i), fmt.Sprintf("node-%d", i%4))
	}
	byNode := func(obj any) string { return obj.(testObject).Value }
	c, stop := startCache(t, s, "/registry/pods/", Options{Index: byNode})
	defer stop()
	// A write after the start: the index follows the snapshot.
	waitFor(t, c, mustUpdate(t, s, "/registry/pods/ns1/p00", "node-1"))

	visited := 0
	onNode1 := func(obj any) bool { visited++; return byNode(obj) == "node-1" }
	for _, prefix := range []string{"/registry/pods/", "/registry/pods/ns1/"} {
		walked, err := c.ListPage(context.Background(), prefix, 0, PageOptions{Match: onNode1})
		if err != nil {
			t.Fatal(err)
		}
		var paged []Entry
		opts := PageOptions{Match: onNode1, IndexValue: "node-1", Limit: 3}
		for {
			visited = 0
			page, err := c.ListPage(context.Background(), prefix, 0, opts)
			if err != nil {
				t.Fatal(err)
			}
			if visited > 11 { // node-1 has 11 pods in all (p00 moved there)
				t.Errorf("a page of node-1's pods ran Match %d times", visited)
			}
			paged = append(paged, page.Entries...)
			if !page.More {
				break
			}
			opts.After = page.Entries[len(page.Entries)-1].Key
		}
		if len(walked.Entries) == 0 || !slices.Equal(summarizeEntries(paged), summarizeEntries(walked.Entries)) {
			t.Errorf("%s: through the index %v, walking every entry %v", prefix, summarizeEntries(paged), summarizeEntries(walked.Entries))
		}
	}
}
