package clock

import (
	"sync"
	"testing"
	"time"
)

// The tests use timers of an hour or more: the wall clock never gets there
// while a test runs, so only a jump of the offset can fire them, and a
// timer that must not fire yet cannot fire by accident.

// received waits for a value on c; a jump has already delivered it when the
// test looks, so the wait only guards against a hang.
func received(t *testing.T, c <-chan time.Time, what string) time.Time {
	t.Helper()
	select {
	case got := <-c:
		return got
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not fire", what)
		return time.Time{}
	}
}

func notReceived(t *testing.T, c <-chan time.Time, what string) {
	t.Helper()
	select {
	case got := <-c:
		t.Fatalf("%s fired at %v", what, got)
	default:
	}
}

func TestVirtualNowIsWallTimePlusOffset(t *testing.T) {
	v := NewVirtual(time.Hour)
	before := time.Now()
	now := v.Now()
	after := time.Now()
	if now.Before(before.Add(time.Hour)) || now.After(after.Add(time.Hour)) {
		t.Fatalf("Now() = %v, want between %v and %v", now, before.Add(time.Hour), after.Add(time.Hour))
	}
	if v.Offset() != time.Hour {
		t.Fatalf("Offset() = %v, want 1h", v.Offset())
	}
}

func TestVirtualOffsetOnlyGrows(t *testing.T) {
	v := NewVirtual(0)
	if !v.SetOffset(5 * time.Minute) {
		t.Fatal("SetOffset(5m) from 0 reported no move")
	}
	if v.SetOffset(time.Minute) || v.SetOffset(5*time.Minute) {
		t.Fatal("SetOffset to an offset not larger than 5m reported a move")
	}
	v.Advance(-time.Hour)
	if v.Offset() != 5*time.Minute {
		t.Fatalf("after going back, Offset() = %v, want 5m", v.Offset())
	}
	v.Advance(time.Minute)
	if v.Offset() != 6*time.Minute {
		t.Fatalf("after Advance(1m), Offset() = %v, want 6m", v.Offset())
	}
	start := v.Now()
	v.Advance(time.Hour)
	if since := v.Since(start); since < time.Hour {
		t.Fatalf("Since a time before a 1h jump = %v, want at least 1h", since)
	}
}

func TestVirtualJumpFiresEveryTimerItPasses(t *testing.T) {
	v := NewVirtual(0)
	oneHour := v.NewTimer(time.Hour)
	twoHours := v.After(2 * time.Hour)
	threeHours := v.NewTimer(3 * time.Hour)
	stopped := v.NewTimer(time.Hour)
	if !stopped.Stop() {
		t.Fatal("Stop of a pending timer reported it was not pending")
	}
	if v.Waiters() != 3 {
		t.Fatalf("Waiters() = %d, want 3", v.Waiters())
	}

	v.Advance(90 * time.Minute)
	at := received(t, oneHour.C(), "the 1h timer")
	if at.Before(v.Now().Add(-time.Minute)) {
		t.Errorf("the 1h timer fired at %v, want the time after the jump (%v)", at, v.Now())
	}
	notReceived(t, twoHours, "the 2h After")
	notReceived(t, stopped.C(), "the stopped timer")

	v.Advance(2 * time.Hour)
	received(t, twoHours, "the 2h After")
	received(t, threeHours.C(), "the 3h timer")
	if v.Waiters() != 0 {
		t.Fatalf("Waiters() = %d after every timer fired, want 0", v.Waiters())
	}
	if oneHour.Stop() {
		t.Error("Stop of a fired timer reported it was pending")
	}
}

func TestVirtualTimerReset(t *testing.T) {
	v := NewVirtual(0)
	timer := v.NewTimer(time.Hour)
	if !timer.Reset(3 * time.Hour) {
		t.Fatal("Reset of a pending timer reported it was not pending")
	}
	v.Advance(2 * time.Hour)
	notReceived(t, timer.C(), "the timer reset to 3h, after 2h")
	v.Advance(time.Hour)
	received(t, timer.C(), "the timer reset to 3h")

	if timer.Reset(0) {
		t.Fatal("Reset of a fired timer reported it was pending")
	}
	received(t, timer.C(), "a timer reset to 0")
}

func TestVirtualTimerFiresByWallTime(t *testing.T) {
	v := NewVirtual(time.Hour)
	// No jump: the wall clock alone brings virtual time to the deadline.
	received(t, v.After(time.Millisecond), "a 1ms timer")
	received(t, v.After(0), "a 0 timer")
}

func TestVirtualTickerDeliversOneTickPerJump(t *testing.T) {
	v := NewVirtual(0)
	ticker := v.NewTicker(time.Hour)
	v.Advance(30 * time.Minute)
	notReceived(t, ticker.C(), "the 1h ticker, after 30m")

	// Ten periods in one jump: one tick, as a real ticker with a late
	// reader delivers.
	v.Advance(10 * time.Hour)
	received(t, ticker.C(), "the ticker after 10h")
	notReceived(t, ticker.C(), "a second tick of the same jump")

	// The next tick is due at the next period boundary: 10h30m + 30m.
	v.Advance(20 * time.Minute)
	notReceived(t, ticker.C(), "the ticker before its next boundary")
	v.Advance(10 * time.Minute)
	received(t, ticker.C(), "the ticker at its next boundary")

	ticker.Reset(2 * time.Hour)
	v.Advance(time.Hour)
	notReceived(t, ticker.C(), "the ticker reset to 2h, after 1h")
	v.Advance(time.Hour)
	received(t, ticker.C(), "the ticker reset to 2h")

	v.Advance(2 * time.Hour) // a tick waits in the channel …
	ticker.Stop()            // … and Stop drops it, as time.Ticker does
	v.Advance(4 * time.Hour)
	notReceived(t, ticker.C(), "a stopped ticker")
	if v.Waiters() != 0 {
		t.Fatalf("Waiters() = %d after Stop, want 0", v.Waiters())
	}
}

func TestVirtualTickerPanicsOnNonPositivePeriod(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewTicker(0) did not panic")
		}
	}()
	NewVirtual(0).NewTicker(0)
}

// TestVirtualIsSafeForConcurrentUse runs timers, tickers and jumps at once;
// with -race it fails on any unguarded access.
func TestVirtualIsSafeForConcurrentUse(t *testing.T) {
	v := NewVirtual(0)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				timer := v.NewTimer(time.Minute)
				ticker := v.NewTicker(time.Minute)
				v.Advance(time.Minute)
				<-timer.C()
				<-ticker.C()
				ticker.Stop()
				_ = v.Now()
			}
		})
	}
	wg.Wait()
	if v.Offset() != 200*time.Minute {
		t.Fatalf("Offset() = %v after 200 advances of 1m, want 200m", v.Offset())
	}
	if v.Waiters() != 0 {
		t.Fatalf("Waiters() = %d, want 0", v.Waiters())
	}
}

// Virtual must be usable wherever a Clock is.
var _ Clock = (*Virtual)(nil)

func TestVirtualForKeepsAVirtualClock(t *testing.T) {
	v := NewVirtual(time.Minute)
	if VirtualFor(v) != v {
		t.Fatal("VirtualFor(a *Virtual) returned another clock")
	}
	if got := VirtualFor(Real{}); got == nil || got.Offset() != 0 {
		t.Fatalf("VirtualFor(Real{}) = %v, want a new Virtual at offset 0", got)
	}
	if got := VirtualFor(nil); got == nil {
		t.Fatal("VirtualFor(nil) = nil, want a new Virtual")
	}
}

func TestForComponentPicksTheClockAComponentRunsOn(t *testing.T) {
	fake := NewFake(time.Unix(0, 0))
	mainsVirtual := NewVirtual(0)
	for _, tc := range []struct {
		name        string
		c           Clock
		virtual     bool
		wantVirtual bool
		want        Clock // nil: any *Virtual
	}{
		{name: "nil clock: the wall clock", want: Real{}},
		{name: "the options' clock", c: fake, want: fake},
		{name: "--virtual-clock: a new virtual clock", c: fake, virtual: true, wantVirtual: true},
		{name: "--virtual-clock: main's virtual clock", c: mainsVirtual, virtual: true, wantVirtual: true, want: mainsVirtual},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, v := ForComponent(tc.c, tc.virtual)
			if (v != nil) != tc.wantVirtual {
				t.Fatalf("virtual = %v, want one: %v", v, tc.wantVirtual)
			}
			if v != nil && got != Clock(v) {
				t.Errorf("clock %v is not the virtual clock %v", got, v)
			}
			if tc.want != nil && got != tc.want {
				t.Errorf("clock = %#v, want %#v", got, tc.want)
			}
		})
	}
}
