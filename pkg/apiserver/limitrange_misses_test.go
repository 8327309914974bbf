package apiserver

import (
	"fmt"
	"testing"
	"time"
)

// A miss is remembered for limitRangeMissTTL, forgotten by forget, and not
// recorded by a read that began before a forget.
func TestLimitRangeMisses(t *testing.T) {
	var m limitRangeMisses
	now := time.Unix(1000, 0)
	if m.has("a", now) {
		t.Fatal("an empty set has a")
	}
	m.record("a", m.begin(), now)
	if !m.has("a", now.Add(limitRangeMissTTL-time.Second)) {
		t.Error("a miss is not remembered within the TTL")
	}
	if m.has("a", now.Add(limitRangeMissTTL)) {
		t.Error("a miss is remembered past the TTL")
	}
	m.forget()
	if m.has("a", now) {
		t.Error("forget left a")
	}
	epoch := m.begin()
	m.forget() // a LimitRange written while the read was in flight
	m.record("b", epoch, now)
	if m.has("b", now) {
		t.Error("a read that began before a LimitRange write was recorded")
	}
}

// The set never holds more than limitRangeMissLimit namespaces.
func TestLimitRangeMissesStayBounded(t *testing.T) {
	var m limitRangeMisses
	now := time.Unix(1000, 0)
	for i := range limitRangeMissLimit + 10 {
		m.record(fmt.Sprint("ns", i), m.begin(), now)
	}
	if n := len(m.until); n > limitRangeMissLimit {
		t.Errorf("%d namespaces remembered, want at most %d", n, limitRangeMissLimit)
	}
	if !m.has(fmt.Sprint("ns", limitRangeMissLimit+9), now) {
		t.Error("the newest miss is not remembered")
	}
}
