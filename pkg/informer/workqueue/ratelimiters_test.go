package workqueue

import (
	"fmt"
	"testing"
	"time"

	"kplane/pkg/clock"
)

func TestItemExponentialFailureRateLimiter(t *testing.T) {
	const ms = time.Millisecond
	// The default 5 ms → 1000 s back-off, failure by failure.
	want := []time.Duration{
		5 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms, 160 * ms, 320 * ms, 640 * ms,
		1280 * ms, 2560 * ms, 5120 * ms, 10240 * ms, 20480 * ms, 40960 * ms,
		81920 * ms, 163840 * ms, 327680 * ms, 655360 * ms, // 5 ms × 2^17 ≈ 11 min
		1000 * time.Second, // 5 ms × 2^18 ≈ 22 min would pass the cap
		1000 * time.Second,
	}
	r := NewItemExponentialFailureRateLimiter[string](DefaultItemBaseDelay, DefaultItemMaxDelay)
	for i, w := range want {
		if got := r.When("a"); got != w {
			t.Errorf("failure %d: When = %v, want %v", i+1, got, w)
		}
		if got := r.NumRequeues("a"); got != i+1 {
			t.Errorf("failure %d: NumRequeues = %d", i+1, got)
		}
	}
	// Keys back off independently.
	if got := r.When("b"); got != 5*ms {
		t.Errorf("first failure of b: %v, want 5ms", got)
	}
	// A key failing for a very long time stays at the cap (no overflow).
	for range 2000 {
		r.When("a")
	}
	if got := r.When("a"); got != DefaultItemMaxDelay {
		t.Errorf("after thousands of failures: %v, want %v", got, DefaultItemMaxDelay)
	}
	// Forget starts the key over.
	r.Forget("a")
	if got := r.NumRequeues("a"); got != 0 {
		t.Errorf("NumRequeues after Forget = %d", got)
	}
	if got := r.When("a"); got != 5*ms {
		t.Errorf("When after Forget = %v, want 5ms", got)
	}
	if got := r.NumRequeues("b"); got != 1 {
		t.Errorf("Forget(a) changed b: NumRequeues = %d", got)
	}
}

func TestBucketRateLimiter(t *testing.T) {
	const ms = time.Millisecond
	type step struct {
		advance time.Duration   // move the fake clock first
		want    []time.Duration // then call When once per entry
	}
	tests := []struct {
		name  string
		qps   float64
		burst int
		steps []step
	}{
		{
			name: "burst, then one token per 1/qps", qps: 10, burst: 3,
			steps: []step{
				{0, []time.Duration{0, 0, 0, 100 * ms, 200 * ms, 300 * ms}},
			},
		},
		{
			name: "an idle bucket refills to burst, never beyond", qps: 10, burst: 3,
			steps: []step{
				{0, []time.Duration{0, 0, 0}},
				{time.Hour, []time.Duration{0, 0, 0, 100 * ms}},
			},
		},
		{
			name: "reserved tokens are paid back before new ones are earned", qps: 10, burst: 3,
			steps: []step{
				{0, []time.Duration{0, 0, 0, 100 * ms, 200 * ms}}, // -2 tokens: two owed
				{100 * ms, []time.Duration{200 * ms}},             // earned 1, took 1: still -2
				{250 * ms, []time.Duration{50 * ms}},              // +2.5 = 0.5, half a token short
			},
		},
		{
			name: "the default bucket: 100 at once, then 10 per second", qps: DefaultQPS, burst: DefaultBurst,
			steps: []step{
				{0, append(make([]time.Duration, 100), 100*ms, 200*ms)},
				{time.Second, []time.Duration{0, 0, 0, 0, 0, 0, 0, 0, 100 * ms}},
			},
		},
		{
			name: "qps 0 means no limit", qps: 0, burst: 1,
			steps: []step{{0, []time.Duration{0, 0, 0, 0}}},
		},
		{
			name: "burst below 1 behaves as 1", qps: 4, burst: 0,
			steps: []step{{0, []time.Duration{0, 250 * ms, 500 * ms}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := clock.NewFake(epoch)
			r := NewBucketRateLimiter[string](tt.qps, tt.burst, fake)
			for i, s := range tt.steps {
				fake.Step(s.advance)
				for j, w := range s.want {
					key := fmt.Sprintf("key-%d", j) // the bucket ignores keys
					if got := r.When(key); got != w {
						t.Errorf("step %d call %d: When = %v, want %v", i, j, got, w)
					}
				}
			}
			r.Forget("key-0")
			if n := r.NumRequeues("key-0"); n != 0 {
				t.Errorf("NumRequeues = %d, want 0 (the bucket does not track keys)", n)
			}
		})
	}
}

// stubLimiter returns a fixed delay and count and records calls.
type stubLimiter struct {
	delay     time.Duration
	requeues  int
	whens     int
	forgotten []string
}

func (s *stubLimiter) When(string) time.Duration { s.whens++; return s.delay }
func (s *stubLimiter) NumRequeues(string) int    { return s.requeues }
func (s *stubLimiter) Forget(item string)        { s.forgotten = append(s.forgotten, item) }
func (s *stubLimiter) String() string            { return fmt.Sprint(s.delay) }
func (s *stubLimiter) checkAsked(t *testing.T, n int) {
	t.Helper()
	if s.whens != n {
		t.Errorf("limiter %v asked %d times, want %d", s, s.whens, n)
	}
}

func TestMaxOfRateLimiter(t *testing.T) {
	tests := []struct {
		name         string
		delays       []time.Duration
		requeues     []int
		wantWhen     time.Duration
		wantRequeues int
	}{
		{"longest delay wins", []time.Duration{time.Second, 3 * time.Second, 2 * time.Second}, []int{1, 5, 2}, 3 * time.Second, 5},
		{"all zero", []time.Duration{0, 0}, []int{0, 0}, 0, 0},
		{"no limiters", nil, nil, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stubs []*stubLimiter
			var limiters []RateLimiter[string]
			for i, d := range tt.delays {
				s := &stubLimiter{delay: d, requeues: tt.requeues[i]}
				stubs = append(stubs, s)
				limiters = append(limiters, s)
			}
			r := NewMaxOfRateLimiter(limiters...)
			if got := r.When("a"); got != tt.wantWhen {
				t.Errorf("When = %v, want %v", got, tt.wantWhen)
			}
			if got := r.NumRequeues("a"); got != tt.wantRequeues {
				t.Errorf("NumRequeues = %d, want %d", got, tt.wantRequeues)
			}
			r.Forget("a")
			for _, s := range stubs {
				// Every limiter must see each failure, or the per-key counts
				// behind the losing limiters would fall behind.
				s.checkAsked(t, 1)
				if len(s.forgotten) != 1 || s.forgotten[0] != "a" {
					t.Errorf("limiter %v forgot %v, want [a]", s, s.forgotten)
				}
			}
		})
	}
}

// TestDefaultControllerRateLimiter shows the two halves taking turns: the
// per-key back-off governs one failing key, the bucket governs a crowd.
func TestDefaultControllerRateLimiter(t *testing.T) {
	const ms = time.Millisecond
	fake := clock.NewFake(epoch)
	r := DefaultControllerRateLimiter[string](fake)

	// One key failing ten times: its own back-off (the bucket still has tokens).
	for i, want := range []time.Duration{5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560} {
		if got := r.When("ns/a"); got != want*ms {
			t.Errorf("failure %d of ns/a: %v, want %v", i+1, got, want*ms)
		}
	}
	// 90 more keys fail once each: 5 ms, and the bucket's 100 tokens are gone.
	for i := range 90 {
		if got := r.When(fmt.Sprintf("ns/k%d", i)); got != 5*ms {
			t.Fatalf("first failure of key %d: %v, want 5ms", i, got)
		}
	}
	// The next new key waits for the bucket, not its own 5 ms.
	if got := r.When("ns/z"); got != 100*ms {
		t.Errorf("first failure once the bucket is empty: %v, want 100ms", got)
	}
	// A key deep in back-off still waits its own, longer delay.
	if got := r.When("ns/a"); got != 5120*ms {
		t.Errorf("11th failure of ns/a: %v, want 5.12s", got)
	}
	if got := r.NumRequeues("ns/a"); got != 11 {
		t.Errorf("NumRequeues(ns/a) = %d, want 11", got)
	}
	r.Forget("ns/a")
	if got := r.NumRequeues("ns/a"); got != 0 {
		t.Errorf("NumRequeues after Forget = %d", got)
	}
}
