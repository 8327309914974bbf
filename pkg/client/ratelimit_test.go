package client

import (
	"context"
	"errors"
	"testing"
	"time"

	"kplane/pkg/clock"
)

func TestRateLimiterTryAccept(t *testing.T) {
	tests := []struct {
		name  string
		qps   float32
		burst int
		// steps: before each TryAccept, advance the clock by step[i].
		steps []time.Duration
		want  []bool
	}{
		{name: "burst then empty", qps: 1, burst: 3,
			steps: []time.Duration{0, 0, 0, 0},
			want:  []bool{true, true, true, false}},
		{name: "refills at qps", qps: 2, burst: 1,
			steps: []time.Duration{0, 0, 500 * time.Millisecond, 499 * time.Millisecond, time.Millisecond},
			want:  []bool{true, false, true, false, true}},
		{name: "never above burst after a long quiet spell", qps: 10, burst: 2,
			steps: []time.Duration{time.Hour, 0, 0},
			want:  []bool{true, true, false}},
		{name: "burst below one means one", qps: 1, burst: 0,
			steps: []time.Duration{0, 0},
			want:  []bool{true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(time.Unix(1000, 0))
			r := NewRateLimiter(tt.qps, tt.burst, clk)
			for i, step := range tt.steps {
				clk.Step(step)
				if got := r.TryAccept(); got != tt.want[i] {
					t.Fatalf("TryAccept #%d = %v, want %v", i, got, tt.want[i])
				}
			}
		})
	}
}

// waitAsync runs r.Wait in a goroutine and returns its result channel.
func waitAsync(ctx context.Context, r *RateLimiter) <-chan error {
	done := make(chan error, 1)
	go func() { done <- r.Wait(ctx) }()
	return done
}

// untilWaiters blocks until the fake clock has n pending timers.
func untilWaiters(t *testing.T, clk *clock.Fake, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for clk.Waiters() < n {
		if time.Now().After(deadline) {
			t.Fatalf("expected %d waiters on the clock, have %d", n, clk.Waiters())
		}
		time.Sleep(time.Millisecond)
	}
}

func TestRateLimiterWaitBlocksUntilTokenEarned(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	r := NewRateLimiter(1, 1, clk)
	if err := r.Wait(context.Background()); err != nil {
		t.Fatalf("first Wait: %v", err)
	}
	done := waitAsync(context.Background(), r)
	untilWaiters(t, clk, 1)
	select {
	case err := <-done:
		t.Fatalf("second Wait returned (%v) before a token was earned", err)
	default:
	}
	clk.Step(999 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("second Wait returned (%v) 1 ms early", err)
	default:
	}
	clk.Step(time.Millisecond)
	if err := <-done; err != nil {
		t.Fatalf("second Wait: %v", err)
	}
}

func TestRateLimiterServesWaitersInOrder(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	r := NewRateLimiter(1, 1, clk)
	_ = r.Wait(context.Background())
	first := waitAsync(context.Background(), r)
	untilWaiters(t, clk, 1)
	second := waitAsync(context.Background(), r)
	untilWaiters(t, clk, 2)
	// The first waiter reserved the token due at +1 s, the second the one at +2 s.
	clk.Step(time.Second)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	select {
	case <-second:
		t.Fatal("second waiter was served with the first waiter's token")
	default:
	}
	clk.Step(time.Second)
	if err := <-second; err != nil {
		t.Fatal(err)
	}
}

func TestRateLimiterWaitCancelReturnsToken(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	r := NewRateLimiter(1, 1, clk)
	_ = r.Wait(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	done := waitAsync(ctx, r)
	untilWaiters(t, clk, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait after cancel = %v, want context.Canceled", err)
	}
	// The cancelled caller's reservation is handed back: one second on,
	// exactly one token is there again.
	clk.Step(time.Second)
	if !r.TryAccept() {
		t.Fatal("token reserved by the cancelled waiter was not returned")
	}
	if r.TryAccept() {
		t.Fatal("more than one token after one second at 1 qps")
	}
}

func TestRateLimiterWaitOnCancelledContext(t *testing.T) {
	r := NewRateLimiter(1, 1, clock.NewFake(time.Unix(0, 0)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait = %v, want context.Canceled", err)
	}
	if !r.TryAccept() {
		t.Fatal("a Wait on a dead context spent a token")
	}
}
