package cache

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"kplane/pkg/store"
)

// testObject is what decodeTestObject makes of a stored value: enough to see
// which value and which resourceVersion an entry or event carries.
type testObject struct {
	Key             string
	Value           string
	ResourceVersion int64
}

// decodeTestObject is the tests' Decoder; the value "corrupt" fails.
func decodeTestObject(kv store.KV) (any, error) {
	if string(kv.Value) == "corrupt" {
		return nil, errors.New("corrupt value")
	}
	return testObject{Key: kv.Key, Value: string(kv.Value), ResourceVersion: kv.ModRevision}, nil
}

// quiet fills in a discarding logger so tests do not print.
func quiet(opts Options) Options {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return opts
}

// startCache runs a cache over s and waits for its first list. The returned
// stop cancels Run and waits for it to return.
func startCache(t *testing.T, s store.Interface, prefix string, opts Options) (*Cache, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := New(s, prefix, decodeTestObject, quiet(opts))
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	select {
	case <-c.Ready():
	case err := <-done:
		cancel()
		t.Fatalf("Run returned before the cache was ready: %v", err)
	}
	return c, func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run returned %v, want nil", err)
		}
	}
}

// waitLimit bounds every wait in the tests. Inside a synctest bubble it is
// virtual time, so it costs nothing; outside it only guards against hangs.
const waitLimit = 10 * time.Second

// next returns the next event from w, failing if none comes or the channel
// is closed.
func next(t *testing.T, w Watcher) Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatalf("watch channel closed, want an event")
		}
		return ev
	case <-time.After(waitLimit):
		t.Fatalf("no event within %s", waitLimit)
	}
	return Event{}
}

// expectClosed reads w until its channel closes and returns what it got.
func expectClosed(t *testing.T, w Watcher) []Event {
	t.Helper()
	var got []Event
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return got
			}
			got = append(got, ev)
		case <-time.After(waitLimit):
			t.Fatalf("watch channel still open after %s; got %v", waitLimit, summarize(got))
		}
	}
}

// summary is the comparable part of an event.
type summary struct {
	Type     store.EventType
	Key      string
	Revision int64
	Value    string // the Object's value, "" if none
}

func summarize(evs []Event) []summary {
	out := make([]summary, len(evs))
	for i, ev := range evs {
		out[i] = summary{Type: ev.Type, Key: ev.Key, Revision: ev.Revision}
		if obj, ok := ev.Object.(testObject); ok {
			out[i].Value = obj.Value
		}
	}
	return out
}

func mustCreate(t *testing.T, s store.Interface, key, value string) int64 {
	t.Helper()
	kv, err := s.Create(context.Background(), key, []byte(value))
	if err != nil {
		t.Fatalf("create %s: %v", key, err)
	}
	return kv.ModRevision
}

func mustUpdate(t *testing.T, s store.Interface, key, value string) int64 {
	t.Helper()
	kv, err := s.Update(context.Background(), key, []byte(value), 0)
	if err != nil {
		t.Fatalf("update %s: %v", key, err)
	}
	return kv.ModRevision
}

func mustDelete(t *testing.T, s store.Interface, key string) int64 {
	t.Helper()
	kv, err := s.Delete(context.Background(), key, 0)
	if err != nil {
		t.Fatalf("delete %s: %v", key, err)
	}
	return kv.ModRevision
}

func mustWatch(t *testing.T, c *Cache, prefix string, after int64, bookmarks bool) Watcher {
	t.Helper()
	w, err := c.Watch(context.Background(), prefix, after, bookmarks)
	if err != nil {
		t.Fatalf("Watch(%s, %d): %v", prefix, after, err)
	}
	return w
}

func keysOf(entries []Entry) []string {
	keys := make([]string, len(entries))
	for i, e := range entries {
		keys[i] = e.Key
	}
	return keys
}
