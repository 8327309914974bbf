package store

import (
	"context"
	"testing"
	"time"
)

// waitLimit bounds every wait in these tests. It is a guard against a hang,
// not a speed requirement: a healthy run finishes each wait in milliseconds.
const waitLimit = 20 * time.Second

// startTestEtcd starts an embedded etcd in a fresh temporary directory and
// stops it when the test ends.
func startTestEtcd(t testing.TB) *Embedded {
	t.Helper()
	return startTestEtcdIn(t, t.TempDir())
}

// startTestEtcdIn starts an embedded etcd on dataDir and stops it when the
// test ends (Close twice is harmless, so tests may close it earlier).
func startTestEtcdIn(t testing.TB, dataDir string) *Embedded {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	e, err := StartEmbedded(ctx, dataDir)
	if err != nil {
		t.Fatalf("StartEmbedded(%s): %v", dataDir, err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("close embedded etcd: %v", err)
		}
	})
	return e
}

// testContext returns a context that ends with the test or after waitLimit.
func testContext(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return ctx
}

// mustCreate creates key=value and fails the test if that fails.
func mustCreate(t testing.TB, s Interface, key, value string) KV {
	t.Helper()
	kv, err := s.Create(testContext(t), key, []byte(value))
	if err != nil {
		t.Fatalf("Create(%q): %v", key, err)
	}
	return kv
}

// nextEvent returns the next event from w, failing the test if the channel
// closes or nothing arrives within waitLimit.
func nextEvent(t testing.TB, w Watcher) Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatalf("watch channel closed while waiting for an event")
		}
		return ev
	case <-time.After(waitLimit):
		t.Fatalf("no watch event within %v", waitLimit)
	}
	return Event{}
}

// expectClosed fails the test unless w's channel closes (after draining any
// events still buffered) within waitLimit.
func expectClosed(t testing.TB, w Watcher) {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case _, ok := <-w.ResultChan():
			if !ok {
				return
			}
		case <-deadline:
			t.Fatalf("watch channel still open after %v", waitLimit)
		}
	}
}
