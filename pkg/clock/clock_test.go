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
