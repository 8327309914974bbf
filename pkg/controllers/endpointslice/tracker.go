package endpointslice

import (
	"sync"

	"kplane/pkg/api"
)

// deletionExpected marks, in a tracker, a slice this controller deleted
// and whose deletion the informer has not reported yet.
const deletionExpected = -1

// tracker remembers the generation of every slice this controller wrote,
// per Service, as the apiserver returned it. Slices are created with
// generateName, so a sync that runs on a cache which has not yet seen the
// slice the previous sync created would create a second one; the tracker
// lets sync notice that its cache is behind its own writes and wait
// (upstream's EndpointSliceTracker). It also tells the informer handlers
// which slice events are echoes of the controller's own writes, which need
// no sync.
//
// Invariant: a slice (by UID) is in at most one Service's map, that of its
// kubernetes.io/service-name label; its value is the generation last
// written, or deletionExpected.
type tracker struct {
	mu sync.Mutex
	// generations maps a Service key ("namespace/name") to its slices'
	// UIDs and generations.
	generations map[string]map[string]int64
}

func newTracker() *tracker {
	return &tracker{generations: map[string]map[string]int64{}}
}

// serviceKeyOf is the key of the Service a slice belongs to, from its
// kubernetes.io/service-name label; "" when it has none.
func serviceKeyOf(slice *api.EndpointSlice) string {
	name := slice.Labels[api.LabelServiceName]
	if name == "" {
		return ""
	}
	return slice.Namespace + "/" + name
}

// wrote records a slice as the apiserver returned it from a create or an
// update.
func (t *tracker) wrote(slice *api.EndpointSlice) {
	t.set(slice, slice.Generation)
}

// expectDeletion records that the controller deleted slice.
func (t *tracker) expectDeletion(slice *api.EndpointSlice) {
	t.set(slice, deletionExpected)
}

func (t *tracker) set(slice *api.EndpointSlice, generation int64) {
	key := serviceKeyOf(slice)
	if key == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.generations[key] == nil {
		t.generations[key] = map[string]int64{}
	}
	t.generations[key][slice.UID] = generation
}

// stale reports whether the cached slices of Service key are behind the
// controller's own writes: a slice it wrote is missing or older than
// written, or a slice it deleted is still there.
func (t *tracker) stale(key string, cached []*api.EndpointSlice) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	written := t.generations[key]
	seen := make(map[string]bool, len(cached))
	for _, slice := range cached {
		seen[slice.UID] = true
		if generation, ok := written[slice.UID]; ok && (generation == deletionExpected || generation > slice.Generation) {
			return true
		}
	}
	for uid, generation := range written {
		if generation != deletionExpected && !seen[uid] {
			return true
		}
	}
	return false
}

// shouldSync reports whether an added or updated slice is news to the
// controller: it did not write it, or someone changed it since.
func (t *tracker) shouldSync(slice *api.EndpointSlice) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	generation, ok := t.generations[serviceKeyOf(slice)][slice.UID]
	return !ok || slice.Generation > generation
}

// deleted records the informer's report that slice is gone and says
// whether the controller expected it, having deleted the slice itself.
// Upstream ignores the deletion of a slice it does not track (one it has
// not written since it started); kplane resyncs the Service then too, so
// that a slice deleted by hand comes back whenever it was last written.
func (t *tracker) deleted(slice *api.EndpointSlice) (expected bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	generation, tracked := t.generations[serviceKeyOf(slice)][slice.UID]
	if tracked {
		delete(t.generations[serviceKeyOf(slice)], slice.UID)
	}
	return tracked && generation == deletionExpected
}

// forgetService drops what the tracker knows about a deleted Service.
func (t *tracker) forgetService(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.generations, key)
}
