package clock

import (
	"testing"
	"time"
)

func TestFakeClock(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := NewFake(start)
	after := f.After(10 * time.Second)
	timer := f.NewTimer(5 * time.Second)
	stopped := f.NewTimer(5 * time.Second)
	if !stopped.Stop() || f.Waiters() != 2 {
		t.Fatalf("stop: waiters %d", f.Waiters())
	}
	f.Step(4 * time.Second)
	select {
	case <-timer.C():
		t.Fatal("timer fired early")
	default:
	}
	f.Step(time.Second)
	if got := <-timer.C(); !got.Equal(start.Add(5 * time.Second)) {
		t.Errorf("timer fired at %v", got)
	}
	select {
	case <-after:
		t.Fatal("After fired early")
	case <-stopped.C():
		t.Fatal("stopped timer fired")
	default:
	}
	timer.Reset(time.Second)
	f.Step(5 * time.Second)
	<-after
	<-timer.C()
	if f.Since(start) != 10*time.Second || f.Waiters() != 0 {
		t.Errorf("since %v waiters %d", f.Since(start), f.Waiters())
	}
}

func TestFakeTicker(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := NewFake(start)
	ticker := f.NewTicker(10 * time.Second)
	noTick := func(when string) {
		t.Helper()
		select {
		case got := <-ticker.C():
			t.Fatalf("%s: unexpected tick at %v", when, got)
		default:
		}
	}

	f.Step(9 * time.Second)
	noTick("9s")
	f.Step(time.Second)
	if got := <-ticker.C(); !got.Equal(start.Add(10 * time.Second)) {
		t.Errorf("first tick at %v, want 10s", got)
	}
	if f.Waiters() != 1 {
		t.Errorf("a ticker stays pending after it fires: waiters %d", f.Waiters())
	}

	// A step over several periods delivers one tick, and the next comes at
	// the next period boundary (40 s), not 10 s after the step.
	f.Step(25 * time.Second) // 35 s
	<-ticker.C()
	noTick("35s, after the one tick")
	f.Step(4 * time.Second) // 39 s
	noTick("39s")
	f.Step(time.Second) // 40 s
	<-ticker.C()

	// Reset restarts the period from now and drops an unreceived tick.
	f.Step(10 * time.Second) // 50 s: a tick waits in the channel
	ticker.Reset(3 * time.Second)
	noTick("reset")
	f.Step(3 * time.Second)
	if got := <-ticker.C(); !got.Equal(start.Add(53 * time.Second)) {
		t.Errorf("tick after reset at %v, want 53s", got)
	}

	// Stop drops an unreceived tick and stops the ticker for good.
	f.Step(3 * time.Second)
	ticker.Stop()
	if f.Waiters() != 0 {
		t.Errorf("stopped ticker still waiting: waiters %d", f.Waiters())
	}
	f.Step(time.Minute)
	noTick("after Stop")
}

func TestFakeTickerRejectsNonPositivePeriod(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewTicker(0) did not panic, unlike time.NewTicker")
		}
	}()
	NewFake(time.Now()).NewTicker(0)
}

// TestRealClock checks that Real is the time package: its timers and
// tickers fire in wall time.
func TestRealClock(t *testing.T) {
	var c Clock = Real{}
	before := time.Now()
	if now := c.Now(); now.Before(before) || c.Since(before) < 0 {
		t.Errorf("Now %v is before %v", now, before)
	}
	within := func(ch <-chan time.Time, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not fire", what)
		}
	}
	within(c.After(time.Millisecond), "After")
	timer := c.NewTimer(time.Hour)
	if !timer.Stop() {
		t.Error("Stop of a pending timer reported it had fired")
	}
	timer.Reset(time.Millisecond)
	within(timer.C(), "reset timer")

	ticker := c.NewTicker(time.Millisecond)
	within(ticker.C(), "ticker's first tick")
	within(ticker.C(), "ticker's second tick")
	ticker.Reset(time.Hour)
	ticker.Reset(time.Millisecond)
	within(ticker.C(), "reset ticker")
	ticker.Stop()
	select {
	case <-ticker.C():
		t.Error("stopped ticker delivered a tick")
	case <-time.After(20 * time.Millisecond):
	}
}
