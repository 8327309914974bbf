// Package clock lets code ask for the time through an interface, so tests
// (and "fast-forward time" lessons) can move time by hand: lease expiry,
// back-off delays, resync periods and rate limiters all read a Clock rather
// than the time package.
//
// Three clocks implement it: Real (the wall clock), Fake (moved only by
// hand, for tests) and Virtual (the wall clock plus an offset that only
// grows: the cluster clock of `ctl up --virtual-clock`, see virtual.go).
package clock

import (
	"sync"
	"time"
)

// Clock is the part of the time package kplane's machinery uses.
type Clock interface {
	Now() time.Time
	Since(t time.Time) time.Duration
	// After returns a channel that receives the time once d has passed.
	After(d time.Duration) <-chan time.Time
	// NewTimer returns a timer that fires once d has passed.
	NewTimer(d time.Duration) Timer
	// NewTicker returns a ticker that fires every d; d must be positive.
	NewTicker(d time.Duration) Ticker
}

// Timer is a stoppable one-shot timer, like *time.Timer.
type Timer interface {
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it was still pending.
	Stop() bool
	// Reset makes the timer fire d from now.
	Reset(d time.Duration) bool
}

// Ticker delivers a tick every period, like *time.Ticker: ticks a slow
// reader misses are dropped, not queued, so a loop driven by a ticker runs
// at most once per period however late it falls behind.
type Ticker interface {
	C() <-chan time.Time
	// Stop turns the ticker off; no tick is delivered after it returns.
	Stop()
	// Reset stops the ticker and restarts it with period d, the next tick
	// d from now.
	Reset(d time.Duration)
}

// Real is the wall clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Since returns time.Since(t).
func (Real) Since(t time.Time) time.Duration { return time.Since(t) }

// After returns time.After(d).
func (Real) After(d time.Duration) <-chan time.Time { return time.After(d) }

// NewTimer wraps time.NewTimer.
func (Real) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

// NewTicker wraps time.NewTicker.
func (Real) NewTicker(d time.Duration) Ticker { return realTicker{time.NewTicker(d)} }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time        { return r.t.C }
func (r realTimer) Stop() bool                 { return r.t.Stop() }
func (r realTimer) Reset(d time.Duration) bool { return r.t.Reset(d) }

type realTicker struct{ t *time.Ticker }

func (r realTicker) C() <-chan time.Time   { return r.t.C }
func (r realTicker) Stop()                 { r.t.Stop() }
func (r realTicker) Reset(d time.Duration) { r.t.Reset(d) }

// Fake is a clock that only moves when told to (Step or SetTime); timers,
// tickers and After channels fire as time passes their deadline. A step
// that passes several periods of a ticker delivers one tick, as a real
// ticker whose reader was late does. Safe for concurrent use.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	waiters []*fakeTimer
}

// NewFake returns a fake clock set to t.
func NewFake(t time.Time) *Fake { return &Fake{now: t} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Since returns the fake time elapsed since t.
func (f *Fake) Since(t time.Time) time.Duration { return f.Now().Sub(t) }

// After returns a channel that receives once the fake time passes d from now.
func (f *Fake) After(d time.Duration) <-chan time.Time { return f.NewTimer(d).C() }

// NewTimer returns a timer on the fake clock.
func (f *Fake) NewTimer(d time.Duration) Timer {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTimer{clock: f, c: make(chan time.Time, 1), deadline: f.now.Add(d), pending: true}
	if d <= 0 {
		t.fireLocked(f.now)
	} else {
		f.waiters = append(f.waiters, t)
	}
	return t
}

// NewTicker returns a ticker on the fake clock. Like time.NewTicker it
// panics if d is not positive.
func (f *Fake) NewTicker(d time.Duration) Ticker {
	if d <= 0 {
		panic("clock: non-positive interval for NewTicker")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTimer{clock: f, c: make(chan time.Time, 1), deadline: f.now.Add(d), period: d, pending: true}
	f.waiters = append(f.waiters, t)
	return fakeTicker{t}
}

// Step moves the fake time forward by d, firing every timer it passes.
func (f *Fake) Step(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.setLocked(f.now.Add(d))
}

// SetTime moves the fake time to t (never backwards), firing timers it passes.
func (f *Fake) SetTime(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.After(f.now) {
		f.setLocked(t)
	}
}

// Waiters counts the timers and tickers still pending, so a test can wait until the
// code under test is blocked on the clock before stepping it.
func (f *Fake) Waiters() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiters)
}

func (f *Fake) setLocked(t time.Time) {
	f.now = t
	kept := f.waiters[:0]
	for _, w := range f.waiters {
		if w.deadline.After(t) {
			kept = append(kept, w)
			continue
		}
		w.fireLocked(t)
		if w.period > 0 {
			// A ticker stays pending, its next deadline the first
			// period boundary after t.
			for !w.deadline.After(t) {
				w.deadline = w.deadline.Add(w.period)
			}
			w.pending = true
			kept = append(kept, w)
		}
	}
	f.waiters = kept
}

// fakeTimer is a timer, or with a period a ticker, on a Fake clock. It is
// in the clock's waiters iff pending.
type fakeTimer struct {
	clock    *Fake
	c        chan time.Time
	deadline time.Time
	// period is a ticker's interval; 0 for a one-shot timer.
	period  time.Duration
	pending bool
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

// fireLocked delivers the tick; the caller holds clock.mu.
func (t *fakeTimer) fireLocked(now time.Time) {
	t.pending = false
	select {
	case t.c <- now:
	default:
	}
}

func (t *fakeTimer) Stop() bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	was := t.pending
	t.pending = false
	t.clock.removeLocked(t)
	return was
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	was := t.pending
	t.clock.removeLocked(t)
	t.deadline = t.clock.now.Add(d)
	t.pending = true
	if d <= 0 {
		t.fireLocked(t.clock.now)
	} else {
		t.clock.waiters = append(t.clock.waiters, t)
	}
	return was
}

// fakeTicker is the Ticker view of a periodic fakeTimer.
type fakeTicker struct{ t *fakeTimer }

func (k fakeTicker) C() <-chan time.Time { return k.t.c }

// Stop also drops a tick not yet received, as a real ticker does since Go 1.23.
func (k fakeTicker) Stop() {
	f := k.t.clock
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removeLocked(k.t)
	k.t.pending = false
	k.t.drainLocked()
}

func (k fakeTicker) Reset(d time.Duration) {
	if d <= 0 {
		panic("clock: non-positive interval for Ticker.Reset")
	}
	f := k.t.clock
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removeLocked(k.t)
	k.t.drainLocked()
	k.t.deadline, k.t.period, k.t.pending = f.now.Add(d), d, true
	f.waiters = append(f.waiters, k.t)
}

// drainLocked drops a delivered tick nobody has received yet.
func (t *fakeTimer) drainLocked() {
	select {
	case <-t.c:
	default:
	}
}

func (f *Fake) removeLocked(t *fakeTimer) {
	for i, w := range f.waiters {
		if w == t {
			f.waiters = append(f.waiters[:i], f.waiters[i+1:]...)
			return
		}
	}
}
