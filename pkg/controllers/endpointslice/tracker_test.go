package endpointslice

import (
	"testing"

	"kplane/pkg/api"
)

// The tracker spots a cache that lags the controller's writes: a created
// slice not seen yet, an update seen at an older generation, a deleted
// slice still listed.
func TestTrackerStale(t *testing.T) {
	tr := newTracker()
	const key = "default/web"
	a := storedSlice("web-a")
	tr.wrote(a)
	if !tr.stale(key, nil) {
		t.Error("a written slice missing from the cache is not stale")
	}
	if tr.stale(key, []*api.EndpointSlice{a}) {
		t.Error("the cache at the written generation is stale")
	}

	a2 := api.DeepCopy(a)
	a2.Generation = 2
	tr.wrote(a2)
	if !tr.stale(key, []*api.EndpointSlice{a}) {
		t.Error("the cache at generation 1 after writing 2 is not stale")
	}
	if tr.stale(key, []*api.EndpointSlice{a2}) {
		t.Error("the cache at generation 2 is stale")
	}

	tr.expectDeletion(a2)
	if !tr.stale(key, []*api.EndpointSlice{a2}) {
		t.Error("a deleted slice still cached is not stale")
	}
	if tr.stale(key, nil) {
		t.Error("a deleted slice gone from the cache is stale")
	}
	if tr.stale("default/other", []*api.EndpointSlice{storedSlice("x")}) {
		t.Error("an untracked service is stale")
	}
}

// Informer events: the echo of the controller's own write needs no sync,
// someone else's change or deletion does.
func TestTrackerEvents(t *testing.T) {
	tr := newTracker()
	a := storedSlice("web-a")
	if !tr.shouldSync(a) {
		t.Error("an unknown slice needs no sync")
	}
	tr.wrote(a)
	if tr.shouldSync(a) {
		t.Error("the controller's own write needs a sync")
	}
	edited := api.DeepCopy(a)
	edited.Generation = 2
	if !tr.shouldSync(edited) {
		t.Error("a slice changed by someone else needs no sync")
	}

	if tr.deleted(a) {
		t.Error("a deletion the controller did not make was expected")
	}
	b := storedSlice("web-b")
	tr.wrote(b)
	tr.expectDeletion(b)
	if !tr.deleted(b) {
		t.Error("the controller's own deletion was not expected")
	}
	if tr.stale("default/web", nil) {
		t.Error("after both deletions were seen the tracker still expects slices")
	}

	tr.wrote(a)
	tr.forgetService("default/web")
	if tr.stale("default/web", nil) || !tr.shouldSync(a) {
		t.Error("a forgotten service still tracks its slices")
	}
}
