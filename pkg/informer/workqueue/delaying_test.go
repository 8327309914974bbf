package workqueue

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"kplane/pkg/clock"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// TestAddAfter parks keys with AddAfter, then moves a fake clock forward in
// steps and checks which keys have reached the queue after each step. The
// synctest bubble lets synctest.Wait stand for "the waiting loop has done
// everything it can", so no step depends on wall time.
func TestAddAfter(t *testing.T) {
	type addAfter struct {
		item  string
		delay time.Duration
	}
	type step struct {
		advance time.Duration
		queue   []string // queue after the step
		waiting []string // still parked after the step
	}
	tests := []struct {
		name  string
		adds  []addAfter
		steps []step
	}{
		{
			name: "keys become ready in order of their deadlines",
			adds: []addAfter{{"c", 30 * time.Millisecond}, {"a", 10 * time.Millisecond}, {"b", 20 * time.Millisecond}},
			steps: []step{
				{0, []string{}, []string{"a", "b", "c"}},
				{9 * time.Millisecond, []string{}, []string{"a", "b", "c"}},
				{1 * time.Millisecond, []string{"a"}, []string{"b", "c"}},
				{10 * time.Millisecond, []string{"a", "b"}, []string{"c"}},
				{time.Hour, []string{"a", "b", "c"}, []string{}},
			},
		},
		{
			name: "equal deadlines keep the order of AddAfter calls",
			adds: []addAfter{{"z", time.Second}, {"y", time.Second}, {"x", time.Second}},
			steps: []step{
				{time.Second, []string{"z", "y", "x"}, []string{}},
			},
		},
		{
			name: "one step past several deadlines releases them all in order",
			adds: []addAfter{{"b", 2 * time.Second}, {"a", time.Second}},
			steps: []step{
				{5 * time.Second, []string{"a", "b"}, []string{}},
			},
		},
		{
			name: "a later AddAfter does not delay a key due sooner",
			adds: []addAfter{{"a", 10 * time.Millisecond}, {"a", time.Hour}},
			steps: []step{
				{10 * time.Millisecond, []string{"a"}, []string{}},
			},
		},
		{
			name: "a sooner AddAfter brings a waiting key forward",
			adds: []addAfter{{"a", time.Hour}, {"b", 20 * time.Millisecond}, {"a", 10 * time.Millisecond}},
			steps: []step{
				{0, []string{}, []string{"a", "b"}},
				{10 * time.Millisecond, []string{"a"}, []string{"b"}},
				{10 * time.Millisecond, []string{"a", "b"}, []string{}},
				{time.Hour, []string{"a", "b"}, []string{}}, // a was not parked twice
			},
		},
		{
			name: "a zero or negative delay adds at once",
			adds: []addAfter{{"a", 0}, {"b", -time.Second}, {"c", time.Millisecond}},
			steps: []step{
				{0, []string{"a", "b"}, []string{"c"}},
				{time.Millisecond, []string{"a", "b", "c"}, []string{}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := clock.NewFake(epoch)
				q := New(Options[string]{Clock: fake})
				defer q.ShutDown()
				for _, a := range tt.adds {
					q.AddAfter(a.item, a.delay)
				}
				for i, s := range tt.steps {
					synctest.Wait() // the loop has picked up every AddAfter
					fake.Step(s.advance)
					synctest.Wait() // and released what the step made ready
					checkInvariants(t, q)
					queue, _, _ := q.Debug()
					if !slices.Equal(queue, s.queue) {
						t.Errorf("step %d (+%v): queue %v, want %v", i, s.advance, queue, s.queue)
					}
					if got := q.Waiting(); !slices.Equal(got, s.waiting) {
						t.Errorf("step %d (+%v): waiting %v, want %v", i, s.advance, got, s.waiting)
					}
				}
			})
		})
	}
}

// TestAddAfterWakesTheWaitingLoop parks a key due sooner than the one the
// waiting loop is already sleeping for: the loop must wake and re-arm its
// timer rather than sleep through the new deadline.
func TestAddAfterWakesTheWaitingLoop(t *testing.T) {
	for _, sooner := range []string{"b", "a"} { // a new key; the same key brought forward
		t.Run("sooner="+sooner, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := clock.NewFake(epoch)
				q := New(Options[string]{Clock: fake})
				defer q.ShutDown()
				q.AddAfter("a", time.Hour)
				synctest.Wait() // the loop sleeps on a 1h timer
				q.AddAfter(sooner, 10*time.Millisecond)
				synctest.Wait()
				if n := fake.Waiters(); n != 1 {
					t.Fatalf("loop holds %d timers, want 1 (the stale one stopped)", n)
				}
				fake.Step(10 * time.Millisecond)
				synctest.Wait()
				if queue, _, _ := q.Debug(); !slices.Equal(queue, []string{sooner}) {
					t.Fatalf("queue %v after 10ms, want [%s]", queue, sooner)
				}
			})
		})
	}
}

func TestAddAfterOfQueuedKeyIsDeduplicated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := clock.NewFake(epoch)
		q := New(Options[string]{Clock: fake})
		defer q.ShutDown()
		q.Add("a")
		q.AddAfter("a", time.Second)
		synctest.Wait()
		fake.Step(time.Second)
		synctest.Wait()
		if queue, _, _ := q.Debug(); !slices.Equal(queue, []string{"a"}) {
			t.Fatalf("queue %v, want [a] once", queue)
		}
	})
}

func TestAddAfterStartsNoGoroutineForZeroDelay(t *testing.T) {
	q := New(Options[string]{Clock: clock.NewFake(epoch)})
	q.AddAfter("a", 0)
	q.mu.Lock()
	started := q.waiting.loopStarted
	q.mu.Unlock()
	if started {
		t.Fatal("AddAfter with no delay started the waiting loop")
	}
	if q.Len() != 1 {
		t.Fatalf("Len = %d, want 1", q.Len())
	}
}

// TestShutDownDropsWaitingKeys also proves the waiting loop exits: synctest
// fails the test if a goroutine in the bubble is still blocked at the end.
func TestShutDownDropsWaitingKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := clock.NewFake(epoch)
		q := New(Options[string]{Clock: fake})
		q.AddAfter("a", time.Second)
		synctest.Wait()
		if n := fake.Waiters(); n != 1 {
			t.Fatalf("waiting loop holds %d timers, want 1", n)
		}
		q.ShutDown()
		if n := fake.Waiters(); n != 0 {
			t.Fatalf("%d timers left after ShutDown", n)
		}
		q.AddAfter("b", time.Second) // refused
		fake.Step(time.Hour)
		if queue, _, _ := q.Debug(); len(queue) != 0 || len(q.Waiting()) != 0 {
			t.Fatalf("after ShutDown: queue %v, waiting %v", queue, q.Waiting())
		}
		if _, shutdown := q.Get(); !shutdown {
			t.Fatal("Get did not report shutdown")
		}
	})
}

// TestAddAfterOnRealClock checks the default clock is wired in. Inside a
// synctest bubble the real clock's time is virtual, so the hour passes at once.
func TestAddAfterOnRealClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		defer q.ShutDown()
		start := time.Now()
		q.AddAfter("a", time.Hour)
		item, _ := q.Get()
		if item != "a" {
			t.Fatalf("Get = %q", item)
		}
		if waited := time.Since(start); waited != time.Hour {
			t.Fatalf("a became ready after %v, want 1h", waited)
		}
	})
}
