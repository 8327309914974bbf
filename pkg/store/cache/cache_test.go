package cache

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

func TestListAndGetServeTheStoredState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFakeStore()
		mustCreate(t, s, "/registry/pods/ns1/b", "b")
		aRev := mustCreate(t, s, "/registry/pods/ns1/a", "a")
		mustCreate(t, s, "/registry/pods/ns10/c", "c")
		last := mustCreate(t, s, "/registry/services/ns1/a", "svc") // outside the prefix
		c, stop := startCache(t, s, "/registry/pods/", Options{})
		defer stop()

		if got := c.Revision(); got != last {
			t.Errorf("Revision() = %d, want the list's revision %d", got, last)
		}
		entries, rev, err := c.List(context.Background(), "/registry/pods/ns1/", 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"/registry/pods/ns1/a", "/registry/pods/ns1/b"}; !slices.Equal(keysOf(entries), want) {
			t.Errorf("List(ns1) keys = %v, want %v", keysOf(entries), want)
		}
		if rev != last {
			t.Errorf("List revision = %d, want %d", rev, last)
		}
		e, ok := c.Get("/registry/pods/ns1/a")
		if !ok || e.Object.(testObject).Value != "a" || e.Revision != aRev {
			t.Errorf("Get = %+v, %v; want value a at revision %d", e, ok, aRev)
		}
		if _, ok := c.Get("/registry/services/ns1/a"); ok {
			t.Errorf("Get found a key outside the cache's prefix")
		}
	})
}

func TestConsistentListSeesEveryCompletedWrite(t *testing.T) {
	tests := []struct {
		name      string
		write     func(t *testing.T, s *fakeStore)
		wantKeys  []string
		wantValue string // of /registry/pods/ns1/a, if present
	}{
		{
			name:      "create",
			write:     func(t *testing.T, s *fakeStore) { mustCreate(t, s, "/registry/pods/ns1/b", "b") },
			wantKeys:  []string{"/registry/pods/ns1/a", "/registry/pods/ns1/b"},
			wantValue: "a",
		},
		{
			name:      "update",
			write:     func(t *testing.T, s *fakeStore) { mustUpdate(t, s, "/registry/pods/ns1/a", "a2") },
			wantKeys:  []string{"/registry/pods/ns1/a"},
			wantValue: "a2",
		},
		{
			name:     "delete",
			write:    func(t *testing.T, s *fakeStore) { mustDelete(t, s, "/registry/pods/ns1/a") },
			wantKeys: []string{},
		},
		{
			// Nothing under the prefix changes, but the store's revision
			// moves: the cache needs a progress notification to catch up.
			name:      "write elsewhere",
			write:     func(t *testing.T, s *fakeStore) { mustCreate(t, s, "/registry/leases/l", "l") },
			wantKeys:  []string{"/registry/pods/ns1/a"},
			wantValue: "a",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newFakeStore()
				mustCreate(t, s, "/registry/pods/ns1/a", "a")
				c, stop := startCache(t, s, "/registry/pods/", Options{})
				defer stop()

				tt.write(t, s)
				want, _ := s.CurrentRevision(context.Background())
				entries, rev, err := c.List(context.Background(), "/registry/pods/", 0)
				if err != nil {
					t.Fatal(err)
				}
				if rev < want {
					t.Errorf("List revision = %d, want >= %d", rev, want)
				}
				if !slices.Equal(keysOf(entries), tt.wantKeys) {
					t.Errorf("keys = %v, want %v", keysOf(entries), tt.wantKeys)
				}
				if len(entries) > 0 && entries[0].Object.(testObject).Value != tt.wantValue {
					t.Errorf("value = %q, want %q", entries[0].Object.(testObject).Value, tt.wantValue)
				}
			})
		})
	}
}

func TestListWaitsForMinRevision(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFakeStore()
		c, stop := startCache(t, s, "/registry/pods/", Options{FreshnessTimeout: 3 * time.Second})
		defer stop()

		// A revision that arrives while List waits is served.
		want := c.Revision() + 1
		go func() {
			time.Sleep(time.Second)
			mustCreate(t, s, "/registry/pods/ns1/a", "a")
		}()
		entries, rev, err := c.List(context.Background(), "/registry/pods/", want)
		if err != nil || rev != want || len(entries) != 1 {
			t.Fatalf("List(min %d) = %v, %d, %v; want the entry at revision %d", want, keysOf(entries), rev, err, want)
		}

		// One that never arrives gives up after FreshnessTimeout.
		_, _, err = c.List(context.Background(), "/registry/pods/", 100)
		if !errors.Is(err, ErrTooLargeRevision) {
			t.Fatalf("List(min 100) error = %v, want ErrTooLargeRevision", err)
		}

		// And the caller's context is respected.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, _, err = c.List(ctx, "/registry/pods/", 100)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("List with a 1s context: error = %v, want DeadlineExceeded", err)
		}
	})
}

func TestListAndWatchRejectForeignPrefixes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, stop := startCache(t, newFakeStore(), "/registry/pods/", Options{})
		defer stop()
		for _, prefix := range []string{"/registry/services/", "/registry/pods/ns1", "/registry/"} {
			if _, _, err := c.List(context.Background(), prefix, 0); err == nil {
				t.Errorf("List(%q) succeeded, want an error", prefix)
			}
			if _, err := c.Watch(context.Background(), prefix, 0, false); err == nil {
				t.Errorf("Watch(%q) succeeded, want an error", prefix)
			}
		}
	})
}

func TestValuesThatDoNotDecodeAreLeftOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFakeStore()
		mustCreate(t, s, "/registry/pods/ns1/bad", "corrupt")
		mustCreate(t, s, "/registry/pods/ns1/good", "good")
		c, stop := startCache(t, s, "/registry/pods/", Options{})
		defer stop()
		w := mustWatch(t, c, "/registry/pods/", 0, false)
		defer w.Stop()

		if _, ok := c.Get("/registry/pods/ns1/bad"); ok {
			t.Errorf("a value that does not decode was cached")
		}
		// A corrupt update keeps the previous state; deletes still go through.
		mustUpdate(t, s, "/registry/pods/ns1/good", "corrupt")
		deleted := mustDelete(t, s, "/registry/pods/ns1/good")
		mustDelete(t, s, "/registry/pods/ns1/bad") // never shown: no event
		mustCreate(t, s, "/registry/pods/ns1/after", "x")

		ev := next(t, w)
		if ev.Type != "DELETED" || ev.Revision != deleted || ev.PrevObject.(testObject).Value != "good" {
			t.Errorf("first event = %+v, want DELETED of good at %d", summarize([]Event{ev}), deleted)
		}
		if ev := next(t, w); ev.Key != "/registry/pods/ns1/after" {
			t.Errorf("second event = %+v, want ADDED after", summarize([]Event{ev}))
		}
	})
}

func TestStoppedCacheServesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, stop := startCache(t, newFakeStore(), "/registry/pods/", Options{})
		stop()
		if _, _, err := c.List(context.Background(), "/registry/pods/", 0); !errors.Is(err, ErrStopped) {
			t.Errorf("List after stop: %v, want ErrStopped", err)
		}
		if _, err := c.Watch(context.Background(), "/registry/pods/", 0, false); !errors.Is(err, ErrStopped) {
			t.Errorf("Watch after stop: %v, want ErrStopped", err)
		}
	})
}
