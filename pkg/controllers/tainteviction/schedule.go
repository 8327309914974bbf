package tainteviction

import (
	"sync"
	"time"
)

// evictionSchedule holds the pods that will be deleted once their
// toleration runs out: for each pod key, the time the eviction was first
// scheduled (upstream's TimedWorkerQueue, whose workers are timers; here
// the timer is the workqueue's AddAfter, and this map is what says whether
// the wake-up is still wanted).
//
// Invariant: a key is in scheduled iff the pod sits on a node with a
// NoExecute taint it tolerates only for a while, and its deletion has not
// been requested yet. sync removes the key when the taint goes, the pod
// comes to tolerate it for ever, the pod leaves, or the deletion is sent.
type evictionSchedule struct {
	mu        sync.Mutex
	scheduled map[string]time.Time
}

func newEvictionSchedule() *evictionSchedule {
	return &evictionSchedule{scheduled: map[string]time.Time{}}
}

// start returns when key's eviction was scheduled, scheduling it at now if
// it was not; added reports the latter.
func (s *evictionSchedule) start(key string, now time.Time) (since time.Time, added bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.scheduled[key]; ok {
		return t, false
	}
	s.scheduled[key] = now
	return now, true
}

// remove unschedules key and reports whether it was scheduled.
func (s *evictionSchedule) remove(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.scheduled[key]
	delete(s.scheduled, key)
	return ok
}

// has reports whether key is scheduled.
func (s *evictionSchedule) has(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.scheduled[key]
	return ok
}
