package clock

import (
	"sync"
	"time"
)

// Virtual is the wall clock moved forward by an offset that only grows: the
// clock of a cluster started with `ctl up --virtual-clock`, where
// `ctl time advance 5m` makes five minutes pass at once, so that lease
// expiry, the node-monitor grace period and toleration seconds happen in
// seconds rather than minutes.
//
// Between jumps a Virtual clock runs at the wall clock's pace. Its timers,
// tickers and After channels fire when virtual time reaches their deadline,
// whichever comes first: the wall clock getting there, or a jump of the
// offset (SetOffset, Advance) passing it. A jump fires every timer it
// passes at once; a ticker it carries past several periods delivers one
// tick, as a real ticker whose reader was late does, and as Fake does.
// Time never goes back: an offset smaller than the current one is ignored.
// Safe for concurrent use.
type Virtual struct {
	mu     sync.Mutex
	offset time.Duration
	// waiters holds the timers and tickers still pending; a timer is in it
	// iff its pending field is set.
	waiters map[*virtualTimer]struct{}
}

// NewVirtual returns a virtual clock offset from the wall clock by offset.
func NewVirtual(offset time.Duration) *Virtual {
	return &Virtual{offset: offset, waiters: map[*virtualTimer]struct{}{}}
}

// VirtualFor returns the clock of a component started with --virtual-clock:
// c when it is a *Virtual already (built by main, so that the component's
// debug journal shares it), a new Virtual otherwise.
func VirtualFor(c Clock) *Virtual {
	if v, ok := c.(*Virtual); ok {
		return v
	}
	return NewVirtual(0)
}

// ForComponent is the clock a component runs on, given its Options' Clock
// (c, nil for the wall clock) and --virtual-clock: with virtual, the
// VirtualFor(c) clock, returned a second time so that the component can
// keep it on the cluster clock (clusterclock.Follow); without, c or
// Real{}, and a nil *Virtual.
func ForComponent(c Clock, virtual bool) (Clock, *Virtual) {
	switch {
	case virtual:
		v := VirtualFor(c)
		return v, v
	case c == nil:
		return Real{}, nil
	}
	return c, nil
}

// Now returns the wall time plus the offset.
func (v *Virtual) Now() time.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.nowLocked()
}

// nowLocked keeps time.Now's monotonic reading (Add moves it too), so that
// durations between two virtual times are immune to wall-clock changes.
func (v *Virtual) nowLocked() time.Time { return time.Now().Add(v.offset) }

// Since returns the virtual time elapsed since t.
func (v *Virtual) Since(t time.Time) time.Duration { return v.Now().Sub(t) }

// Offset returns how far the clock is ahead of the wall clock.
func (v *Virtual) Offset() time.Duration {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.offset
}

// SetOffset moves the clock to the wall time plus offset, firing every
// timer the jump passes, and reports whether the clock moved. An offset
// not larger than the current one changes nothing: time never goes back.
func (v *Virtual) SetOffset(offset time.Duration) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.setOffsetLocked(offset)
}

func (v *Virtual) setOffsetLocked(offset time.Duration) bool {
	if offset <= v.offset {
		return false
	}
	v.offset = offset
	now := v.nowLocked()
	for t := range v.waiters {
		// Every pending timer is now nearer its deadline than its wall
		// timer thinks: fire it, or wake it earlier.
		t.wall.Stop()
		t.checkLocked(now)
	}
	return true
}

// Advance moves the clock forward by d (d ≤ 0 changes nothing), firing
// every timer it passes.
func (v *Virtual) Advance(d time.Duration) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.setOffsetLocked(v.offset + d)
}

// After returns a channel that receives the virtual time once d has passed.
func (v *Virtual) After(d time.Duration) <-chan time.Time { return v.NewTimer(d).C() }

// NewTimer returns a timer that fires once d of virtual time has passed.
func (v *Virtual) NewTimer(d time.Duration) Timer {
	t := &virtualTimer{clock: v, c: make(chan time.Time, 1)}
	v.mu.Lock()
	defer v.mu.Unlock()
	t.startLocked(d)
	return t
}

// NewTicker returns a ticker that fires every d of virtual time. Like
// time.NewTicker it panics if d is not positive.
func (v *Virtual) NewTicker(d time.Duration) Ticker {
	if d <= 0 {
		panic("clock: non-positive interval for NewTicker")
	}
	t := &virtualTimer{clock: v, c: make(chan time.Time, 1), period: d}
	v.mu.Lock()
	defer v.mu.Unlock()
	t.startLocked(d)
	return virtualTicker{t}
}

// virtualTimer is a timer, or with a period a ticker, on a Virtual clock.
// All its fields are guarded by clock.mu.
type virtualTimer struct {
	clock *Virtual
	c     chan time.Time
	// deadline is the virtual time of the next firing.
	deadline time.Time
	// period is a ticker's interval; 0 for a one-shot timer.
	period  time.Duration
	pending bool
	// wall wakes the timer when the wall clock alone would bring virtual
	// time to the deadline. It is re-armed whenever the deadline or the
	// offset moves; generation tells a wake-up of an older arming (already
	// running when it was stopped) to do nothing.
	wall       *time.Timer
	generation uint64
}

// startLocked makes the timer pending with its deadline d from now.
func (t *virtualTimer) startLocked(d time.Duration) {
	now := t.clock.nowLocked()
	t.deadline = now.Add(d)
	t.pending = true
	t.clock.waiters[t] = struct{}{}
	t.checkLocked(now)
}

// checkLocked fires the timer if its deadline has come at now and arms the
// wall timer for the rest of the wait otherwise. A ticker that fires stays
// pending, its next deadline the first period boundary after now.
func (t *virtualTimer) checkLocked(now time.Time) {
	if t.deadline.After(now) {
		t.armLocked(t.deadline.Sub(now))
		return
	}
	select {
	case t.c <- now:
	default: // the reader has not taken the last tick: this one is dropped
	}
	if t.period == 0 {
		t.stopLocked()
		return
	}
	for !t.deadline.After(now) {
		t.deadline = t.deadline.Add(t.period)
	}
	t.armLocked(t.deadline.Sub(now))
}

// armLocked (re)starts the wall timer to wake the timer after wait.
func (t *virtualTimer) armLocked(wait time.Duration) {
	if t.wall != nil {
		t.wall.Stop()
	}
	t.generation++
	generation := t.generation
	t.wall = time.AfterFunc(wait, func() { t.wake(generation) })
}

// wake runs when the wall timer of one arming expires.
func (t *virtualTimer) wake(generation uint64) {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	if !t.pending || generation != t.generation {
		return
	}
	t.checkLocked(t.clock.nowLocked())
}

// stopLocked takes the timer out of the clock's waiters; it reports whether
// it was pending.
func (t *virtualTimer) stopLocked() bool {
	was := t.pending
	t.pending = false
	t.generation++
	if t.wall != nil {
		t.wall.Stop()
	}
	delete(t.clock.waiters, t)
	return was
}

func (t *virtualTimer) C() <-chan time.Time { return t.c }

func (t *virtualTimer) Stop() bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	return t.stopLocked()
}

func (t *virtualTimer) Reset(d time.Duration) bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	was := t.stopLocked()
	t.startLocked(d)
	return was
}

// drainLocked drops a delivered tick nobody has received yet.
func (t *virtualTimer) drainLocked() {
	select {
	case <-t.c:
	default:
	}
}

// virtualTicker is the Ticker view of a periodic virtualTimer.
type virtualTicker struct{ t *virtualTimer }

func (k virtualTicker) C() <-chan time.Time { return k.t.c }

// Stop also drops a tick not yet received, as a real ticker does since Go 1.23.
func (k virtualTicker) Stop() {
	k.t.clock.mu.Lock()
	defer k.t.clock.mu.Unlock()
	k.t.stopLocked()
	k.t.drainLocked()
}

func (k virtualTicker) Reset(d time.Duration) {
	if d <= 0 {
		panic("clock: non-positive interval for Ticker.Reset")
	}
	k.t.clock.mu.Lock()
	defer k.t.clock.mu.Unlock()
	k.t.stopLocked()
	k.t.drainLocked()
	k.t.period = d
	k.t.startLocked(d)
}

// Waiters counts the timers and tickers still pending.
func (v *Virtual) Waiters() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.waiters)
}
