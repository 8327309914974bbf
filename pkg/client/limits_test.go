package client

import (
	"testing"
	"time"

	"kplane/pkg/clock"
)

func TestWithRateLimit(t *testing.T) {
	clk := clock.NewFake(time.Now())
	c, err := New(&Config{Host: "https://x", QPS: 100, Burst: 200, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	events := c.WithRateLimit(1, 2)
	if events.transport != c.transport || events.token != c.token || events.base != c.base {
		t.Error("the limited client does not share the original's transport and credentials")
	}
	if events.limiter == nil || events.limiter == c.limiter {
		t.Fatalf("limited client's limiter = %p, original's %p: want a bucket of its own", events.limiter, c.limiter)
	}
	// Its bucket holds its own burst (2), and spending it leaves the
	// original's untouched.
	for i := range 2 {
		if !events.limiter.TryAccept() {
			t.Fatalf("token %d of the burst of 2 was refused", i+1)
		}
	}
	if events.limiter.TryAccept() {
		t.Error("a third token was granted beyond the burst of 2")
	}
	if !c.limiter.TryAccept() {
		t.Error("the original client's bucket was drained by the limited one")
	}
	if unlimited := c.WithRateLimit(0, 0); unlimited.limiter != nil {
		t.Errorf("qps 0 gave limiter %v, want none", unlimited.limiter)
	}
}
