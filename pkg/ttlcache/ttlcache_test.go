package ttlcache

import (
	"testing"
	"time"

	"kplane/pkg/clock"
)

// TestExpiry: an entry is returned until its TTL has passed, then not.
func TestExpiry(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := New[string, int](clk)
	if _, ok := c.Get("a"); ok {
		t.Fatal("an empty cache answered")
	}
	c.Set("a", 1, 10*time.Second)
	clk.Step(9 * time.Second)
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Errorf("Get before expiry = %v, %v", v, ok)
	}
	clk.Step(time.Second)
	if _, ok := c.Get("a"); ok {
		t.Error("an expired entry was returned")
	}
}

// TestSetSweepsExpired: inserting drops every expired entry, so the cache
// holds only what is still live however many keys went through it.
func TestSetSweepsExpired(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := New[int, string](clk)
	for i := range 100 {
		c.Set(i, "short", time.Second)
	}
	c.Set(-1, "long", time.Minute)
	clk.Step(time.Second)
	c.Set(100, "new", time.Second)
	if c.Len() != 2 {
		t.Errorf("Len = %d after a sweep, want 2 (the long-lived entry and the new one)", c.Len())
	}
	if v, ok := c.Get(-1); !ok || v != "long" {
		t.Errorf("the live entry was swept: %q, %v", v, ok)
	}
}
