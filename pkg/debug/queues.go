package debug

import (
	"slices"
	"time"
)

// QueueSource is a workqueue whose live state the debug API shows
// (workqueue.Queue implements it).
type QueueSource interface {
	Name() string
	DebugState() QueueState
}

// QueueState is a workqueue at one moment, as `ctl queues` prints it.
type QueueState struct {
	// Name is the queue's (its controller's) name.
	Name string `json:"name"`
	// Depth is how many keys wait to be handed to a worker.
	Depth int `json:"depth"`
	// Now is the component's clock when the state was read: a key's age
	// is Now minus its Since (the component's clock may be a virtual one,
	// so the reader's own clock would not do).
	Now time.Time `json:"now,omitempty"`
	// Queued are the keys waiting for a worker, oldest first.
	Queued []QueueKey `json:"queued,omitempty"`
	// Dirty are keys added again while a worker processes them; they go
	// back into the queue once that worker is done.
	Dirty []QueueKey `json:"dirty,omitempty"`
	// Processing are the keys workers hold now.
	Processing []QueueKey `json:"processing,omitempty"`
	// Waiting are keys parked by AddAfter or a rate-limited retry, with
	// the delay left.
	Waiting []QueueKey `json:"waiting,omitempty"`
}

// QueueKey is one key in a queue state.
type QueueKey struct {
	Key string `json:"key"`
	// Retries is how many times the key failed in a row (the rate
	// limiter's count; Forget resets it).
	Retries int `json:"retries,omitempty"`
	// Since is when the key entered its current state: for a queued key
	// when it was queued, for a processing key when its worker got it.
	// Unset for dirty and waiting keys.
	Since time.Time `json:"since,omitempty"`
	// Delay is, for a waiting key, how long until it is queued again.
	Delay time.Duration `json:"delay,omitempty"`
}

// RegisterQueue makes q's live state part of the debug API. Registering a
// second queue of the same name replaces the first.
func (j *Journal) RegisterQueue(q QueueSource) {
	if j == nil || q == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.queues[q.Name()] = q
}

// Queues returns the state of every registered queue, by name.
func (j *Journal) Queues() []QueueState {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	sources := make([]QueueSource, 0, len(j.queues))
	for _, q := range j.queues {
		sources = append(sources, q)
	}
	j.mu.Unlock()
	states := make([]QueueState, 0, len(sources))
	for _, q := range sources {
		states = append(states, q.DebugState())
	}
	slices.SortFunc(states, func(a, b QueueState) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return states
}

// LeaderSource reports one leader election the component takes part in
// (leaderelection.LeaderElector implements it).
type LeaderSource interface {
	DebugState() LeaderState
}

// LeaderState is one leader election as the component sees it.
type LeaderState struct {
	// Lease is the Lease's "namespace/name".
	Lease string `json:"lease"`
	// Identity is this process's candidate identity.
	Identity string `json:"identity"`
	// Leader is the identity holding the lease as last observed.
	Leader string `json:"leader"`
	// IsLeader says whether this process leads now.
	IsLeader bool `json:"isLeader"`
	// ObservedRenew is when the holder last renewed, as observed.
	ObservedRenew time.Time `json:"observedRenew,omitempty"`
	// LeaseDuration is how long a lease lasts without renewal.
	LeaseDuration time.Duration `json:"leaseDuration,omitempty"`
}

// RegisterLeader adds a leader election to the debug API.
func (j *Journal) RegisterLeader(l LeaderSource) {
	if j == nil || l == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.leaders = append(j.leaders, l)
}

// Leaders returns the state of every registered leader election.
func (j *Journal) Leaders() []LeaderState {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	sources := slices.Clone(j.leaders)
	j.mu.Unlock()
	out := make([]LeaderState, 0, len(sources))
	for _, l := range sources {
		out = append(out, l.DebugState())
	}
	return out
}
