package runner

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// The tests run in a synctest bubble: time stands still until every
// goroutine waits, so intervals are exact and nothing sleeps for real.

func TestRequestsWithinMinIntervalAreBatched(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var runs []time.Duration
		r := New(func() { runs = append(runs, time.Since(start)) }, time.Second, 30*time.Second, nil)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go r.Loop(ctx)

		r.Run() // runs at once
		synctest.Wait()
		for range 5 { // five changes in the next half second: one sync
			time.Sleep(100 * time.Millisecond)
			r.Run()
		}
		synctest.Wait()
		time.Sleep(2 * time.Second)
		synctest.Wait()
		want := []time.Duration{0, time.Second}
		if len(runs) != len(want) || runs[0] != want[0] || runs[1] != want[1] {
			t.Fatalf("runs at %v, want %v (the five requests batched into one, a second after the first run)", runs, want)
		}
	})
}

func TestSyncsAtLeastEveryMaxInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var runs []time.Duration
		r := New(func() { runs = append(runs, time.Since(start)) }, time.Second, 30*time.Second, nil)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go r.Loop(ctx)
		r.Run()
		time.Sleep(65 * time.Second)
		synctest.Wait()
		want := []time.Duration{0, 30 * time.Second, 60 * time.Second}
		if len(runs) != len(want) {
			t.Fatalf("runs at %v, want %v", runs, want)
		}
		for i := range want {
			if runs[i] != want[i] {
				t.Fatalf("runs at %v, want %v", runs, want)
			}
		}
	})
}

func TestRequestAfterMinIntervalRunsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var runs []time.Duration
		r := New(func() { runs = append(runs, time.Since(start)) }, time.Second, 30*time.Second, nil)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go r.Loop(ctx)
		r.Run()
		time.Sleep(5 * time.Second)
		r.Run()
		synctest.Wait()
		if len(runs) != 2 || runs[1] != 5*time.Second {
			t.Fatalf("runs at %v, want [0s 5s]", runs)
		}
	})
}
