// Package runner is kube-proxy's sync loop: upstream's
// BoundedFrequencyRunner (pkg/proxy/runner/bounded_frequency_runner.go).
//
// Every change to a Service or an EndpointSlice asks for a sync, but
// recomputing and reloading a node's rules is costly, and a Deployment
// rolling out changes its EndpointSlice many times a second. So requests
// are batched: a sync runs at once if the last one was at least
// minInterval ago, otherwise once minInterval has passed — however many
// requests came in between. And when nothing asks, a sync still runs every
// maxInterval, repairing whatever else changed the rules.
package runner

import (
	"context"
	"time"

	"kplane/pkg/clock"
)

// BoundedFrequencyRunner calls a function at most once per minInterval and
// at least once per maxInterval. Build one with New, call Loop once, and
// Run whenever a sync is wanted.
type BoundedFrequencyRunner struct {
	fn                       func()
	minInterval, maxInterval time.Duration
	clock                    clock.Clock
	// requested holds at most one pending request: requests made while
	// one is pending are the same request (the batching).
	requested chan struct{}
	// lastRun is when fn last started; only Loop touches it.
	lastRun time.Time
}

// New returns a runner of fn; minInterval 0 runs every request at once.
// clk nil is the wall clock.
func New(fn func(), minInterval, maxInterval time.Duration, clk clock.Clock) *BoundedFrequencyRunner {
	if clk == nil {
		clk = clock.Real{}
	}
	return &BoundedFrequencyRunner{fn: fn, minInterval: minInterval, maxInterval: maxInterval, clock: clk,
		requested: make(chan struct{}, 1)}
}

// Run asks for a sync as soon as minInterval allows. It never blocks.
func (r *BoundedFrequencyRunner) Run() {
	select {
	case r.requested <- struct{}{}:
	default: // a request is already pending: this one joins it
	}
}

// Loop runs fn as requests and intervals say until ctx ends. fn runs on
// Loop's goroutine, so two syncs never overlap. The first request runs at
// once.
func (r *BoundedFrequencyRunner) Loop(ctx context.Context) {
	timer := r.clock.NewTimer(r.maxInterval)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C():
		case <-r.requested:
		}
		r.tryRun(timer)
	}
}

// tryRun runs fn if minInterval has passed since the last run, and sets
// timer for the next forced run; otherwise it sets timer for when the
// pending run may go.
func (r *BoundedFrequencyRunner) tryRun(timer clock.Timer) {
	if !r.lastRun.IsZero() {
		if wait := r.minInterval - r.clock.Since(r.lastRun); wait > 0 {
			timer.Reset(wait)
			return
		}
	}
	r.lastRun = r.clock.Now()
	r.fn()
	timer.Reset(r.maxInterval)
}
