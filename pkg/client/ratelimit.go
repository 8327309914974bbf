package client

import (
	"context"
	"fmt"
	"sync"
	"time"

	"kplane/pkg/clock"
)

// RateLimiter is a token bucket: it holds up to burst tokens, gains qps
// tokens per second, and every request spends one. A client that has been
// quiet may send burst requests back to back; after that it goes at qps.
// This is the client-side throttle client-go puts in front of every
// request (its QPS/Burst), so one busy controller cannot flood the
// apiserver.
//
// Waiting callers reserve their token up front (the bucket may go
// negative), so they are served in the order they arrived and each one
// knows at once how long it has to wait. Safe for concurrent use.
type RateLimiter struct {
	qps   float64
	burst float64
	clock clock.Clock

	mu sync.Mutex
	// tokens is the bucket's level at time last; below zero it counts
	// tokens already promised to waiting callers.
	tokens float64
	last   time.Time
	// waited counts the requests that had to wait for a token.
	waited int64
}

// Waited returns how many requests so far had to wait for a token: zero
// means the bucket never slowed its client down.
func (r *RateLimiter) Waited() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.waited
}

// NewRateLimiter returns a full bucket that refills at qps tokens per second
// up to burst (values below 1 mean 1). clk may be nil for the wall clock.
// qps must be positive.
func NewRateLimiter(qps float32, burst int, clk clock.Clock) *RateLimiter {
	if clk == nil {
		clk = clock.Real{}
	}
	if burst < 1 {
		burst = 1
	}
	return &RateLimiter{qps: float64(qps), burst: float64(burst), clock: clk,
		tokens: float64(burst), last: clk.Now()}
}

// refillLocked adds the tokens earned since the last call; the caller holds mu.
func (r *RateLimiter) refillLocked(now time.Time) {
	if elapsed := now.Sub(r.last); elapsed > 0 {
		r.tokens = min(r.burst, r.tokens+elapsed.Seconds()*r.qps)
		r.last = now
	}
}

// TryAccept takes a token if one is available now and reports whether it did.
func (r *RateLimiter) TryAccept() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refillLocked(r.clock.Now())
	if r.tokens >= 1 {
		r.tokens--
		return true
	}
	return false
}

// Wait blocks until the caller may send one request, or ctx ends. On ctx's
// end the reserved token is handed back, so a cancelled caller does not slow
// the others down.
func (r *RateLimiter) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r.mu.Lock()
	r.refillLocked(r.clock.Now())
	r.tokens--
	wait := time.Duration(0)
	if r.tokens < 0 {
		wait = time.Duration(-r.tokens / r.qps * float64(time.Second))
		r.waited++
	}
	r.mu.Unlock()
	if wait == 0 {
		return nil
	}

	timer := r.clock.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C():
		return nil
	case <-ctx.Done():
		r.mu.Lock()
		r.tokens = min(r.burst, r.tokens+1)
		r.mu.Unlock()
		return fmt.Errorf("client-side rate limiter: %w", ctx.Err())
	}
}
