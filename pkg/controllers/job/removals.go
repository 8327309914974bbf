package job

import "sync"

// finalizerRemovals remembers, per Job key, the pods whose tracking
// finalizer this controller has asked the apiserver to remove and whose
// removal the pod informer has not shown yet (upstream's
// uidTrackingExpectations).
//
// Why it is needed: a sync removes a finished pod's finalizer and, in its
// status write, adds the pod to status.succeeded. The Job's watch and the
// pods' watch are separate streams, so the next sync may read the new Job
// (pod counted, no longer in uncountedTerminatedPods) next to the old pod
// (finalizer still on). Without this record it would take the pod for a
// new finish and count it twice. A pod listed here is treated as if its
// finalizer were already gone.
//
// Invariant: a UID is in pending[key] from just before the patch is sent
// until the informer delivers the pod without the finalizer (or deleted),
// or the patch fails with an error other than NotFound.
type finalizerRemovals struct {
	mu      sync.Mutex
	pending map[string]map[string]struct{} // Job key → pod UIDs
}

func newFinalizerRemovals() *finalizerRemovals {
	return &finalizerRemovals{pending: map[string]map[string]struct{}{}}
}

// expect records that jobKey's sync is about to remove the finalizer of
// the pods with these UIDs. Call it before sending the patches, so that an
// informer event arriving in between finds the entry to clear.
func (r *finalizerRemovals) expect(jobKey string, uids []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	set := r.pending[jobKey]
	if set == nil {
		set = map[string]struct{}{}
		r.pending[jobKey] = set
	}
	for _, uid := range uids {
		set[uid] = struct{}{}
	}
}

// observed clears uid: the informer has shown the pod without the
// finalizer, or gone, or the patch failed and will never be seen.
func (r *finalizerRemovals) observed(jobKey, uid string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	set := r.pending[jobKey]
	delete(set, uid)
	if len(set) == 0 {
		delete(r.pending, jobKey)
	}
}

// pendingFor returns a copy of jobKey's pending UIDs.
func (r *finalizerRemovals) pendingFor(jobKey string) map[string]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]bool, len(r.pending[jobKey]))
	for uid := range r.pending[jobKey] {
		out[uid] = true
	}
	return out
}

// forget drops jobKey's record, when the Job is deleted.
func (r *finalizerRemovals) forget(jobKey string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.pending, jobKey)
}
