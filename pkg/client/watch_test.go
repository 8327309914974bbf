package client

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// streamLines answers a watch with the given lines, flushing each.
func streamLines(w http.ResponseWriter, lines ...string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	for _, l := range lines {
		_, _ = fmt.Fprintln(w, l)
		w.(http.Flusher).Flush()
	}
}

// nextEvent receives one event or fails after a generous guard.
func nextEvent[E any](t *testing.T, ch <-chan E) (E, bool) {
	t.Helper()
	select {
	case ev, ok := <-ch:
		return ev, ok
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event within 10 s")
	}
	var zero E
	return zero, false
}

func cmEvent(typ, name, rv string) string {
	return fmt.Sprintf(`{"type":%q,"object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":%q,"namespace":"ns","resourceVersion":%q}}}`, typ, name, rv)
}

func TestWatchDecodesTypedEventsInOrder(t *testing.T) {
	queries := make(chan string, 1)
	fs := startFakeServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		queries <- r.URL.RawQuery
		streamLines(w,
			cmEvent("ADDED", "a", "6"),
			cmEvent("MODIFIED", "a", "7"),
			`{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"9"}}}`,
			cmEvent("DELETED", "a", "10"),
			`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 5 (10)","reason":"Expired","code":410}}`,
		)
	}, nil)
	c, _ := newTestClient(t, fs, nil)
	w, err := c.ConfigMaps("ns").Watch(context.Background(), ListOptions{ResourceVersion: "5", AllowWatchBookmarks: true, LabelSelector: "app=x"})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	if query, want := <-queries, "allowWatchBookmarks=true&labelSelector=app%3Dx&resourceVersion=5&watch=true"; query != want {
		t.Errorf("query = %q, want %q", query, want)
	}
	want := []struct {
		typ  EventType
		name string
		rv   string
	}{{Added, "a", "6"}, {Modified, "a", "7"}, {Bookmark, "", "9"}, {Deleted, "a", "10"}}
	for i, wt := range want {
		ev, ok := nextEvent(t, w.ResultChan())
		if !ok {
			t.Fatalf("channel closed before event %d", i)
		}
		cm, isCM := ev.Object.(*api.ConfigMap)
		if ev.Type != wt.typ || !isCM || cm.Name != wt.name || cm.ResourceVersion != wt.rv {
			t.Fatalf("event %d = %s %#v, want %s %s@%s", i, ev.Type, ev.Object, wt.typ, wt.name, wt.rv)
		}
	}
	ev, _ := nextEvent(t, w.ResultChan())
	if ev.Type != Error || ev.Object != nil || !apierrors.IsGone(ev.Err) || apierrors.ReasonOf(ev.Err) != apierrors.ReasonExpired {
		t.Fatalf("last event = %+v, want ERROR 410 Expired", ev)
	}
	if _, ok := nextEvent(t, w.ResultChan()); ok {
		t.Fatal("channel still open after the server ended the stream")
	}
}

func TestWatchReportsUndecodableStreams(t *testing.T) {
	tests := []struct {
		name string
		line string
	}{
		{"not JSON", `this is not json`},
		{"unknown event type", `{"type":"RENAMED","object":{"metadata":{"name":"a"}}}`},
		{"object of the wrong shape", `{"type":"ADDED","object":{"metadata":"oops"}}`},
		{"no object", `{"type":"ADDED"}`},
		{"ERROR without a Status", `{"type":"ERROR","object":{}}`},
		{"ERROR with an unreadable Status", `{"type":"ERROR","object":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := startFakeServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
				streamLines(w, cmEvent("ADDED", "a", "6"), tt.line, cmEvent("ADDED", "b", "7"))
			}, nil)
			c, _ := newTestClient(t, fs, nil)
			w, err := c.ConfigMaps("ns").Watch(context.Background(), ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			if ev, _ := nextEvent(t, w.ResultChan()); ev.Type != Added {
				t.Fatalf("first event = %+v", ev)
			}
			ev, _ := nextEvent(t, w.ResultChan())
			if ev.Type != Error || apierrors.ReasonOf(ev.Err) != apierrors.ReasonInternalError {
				t.Fatalf("event after a bad line = %+v, want ERROR InternalError", ev)
			}
			if _, ok := nextEvent(t, w.ResultChan()); ok {
				t.Fatal("watch went on after an undecodable line")
			}
		})
	}
}

func TestWatchIsNotCutByRequestTimeout(t *testing.T) {
	release := make(chan struct{})
	fs := startFakeServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		streamLines(w, cmEvent("ADDED", "a", "6"))
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		streamLines(w, cmEvent("MODIFIED", "a", "7"))
	}, nil)
	// A 1 ns timeout fails every ordinary request before it is sent.
	c, _ := newTestClient(t, fs, func(cfg *Config) { cfg.Timeout = time.Nanosecond })
	if _, err := c.ConfigMaps("ns").Get(context.Background(), "a", GetOptions{}); err == nil {
		t.Fatal("Get succeeded with a 1 ns timeout")
	}
	w, err := c.ConfigMaps("ns").Watch(context.Background(), ListOptions{})
	if err != nil {
		t.Fatalf("Watch with a 1 ns request timeout: %v", err)
	}
	defer w.Stop()
	if ev, _ := nextEvent(t, w.ResultChan()); ev.Type != Added {
		t.Fatalf("first event = %+v", ev)
	}
	close(release)
	if ev, _ := nextEvent(t, w.ResultChan()); ev.Type != Modified {
		t.Fatalf("second event = %+v, want MODIFIED", ev)
	}
}

// endlessStream keeps sending events until the client goes away.
func endlessStream(w http.ResponseWriter, r *http.Request, _ int) {
	streamLines(w)
	for i := 0; r.Context().Err() == nil; i++ {
		if _, err := fmt.Fprintln(w, cmEvent("MODIFIED", "a", fmt.Sprint(i+1))); err != nil {
			return
		}
		w.(http.Flusher).Flush()
	}
}

func TestWatchStopAndCancelLeaveNoGoroutine(t *testing.T) {
	fs := startFakeServer(t, endlessStream, nil)
	c, _ := newTestClient(t, fs, nil)

	// Stopped without anyone reading: Stop must not hang on a blocked send.
	unread, err := c.ConfigMaps("ns").Watch(context.Background(), ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	unread.Stop()
	unread.Stop() // a second Stop is harmless

	// Stopped while someone ranges over the channel.
	read, err := c.ConfigMaps("ns").Watch(context.Background(), ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	drained := make(chan int)
	go func() {
		n := 0
		for range read.ResultChan() {
			n++
		}
		drained <- n
	}()
	read.Stop()
	<-drained

	// Ended by its context.
	ctx, cancel := context.WithCancel(context.Background())
	cancelled, err := c.Dynamic(ConfigMapsResource).Namespace("ns").Watch(ctx, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ev, _ := nextEvent(t, cancelled.ResultChan()); ev.Type != Modified {
		t.Fatalf("dynamic event = %+v", ev)
	}
	cancel()
	for {
		if _, ok := nextEvent(t, cancelled.ResultChan()); !ok {
			break
		}
	}
	expectNoWatchGoroutines(t)
}

func TestWatchOpenIsRetriedAndFailsWithStatus(t *testing.T) {
	fs := startFakeServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		switch {
		case r.URL.Query().Get("resourceVersion") == "1":
			writeJSON(w, http.StatusGone, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410}`)
		case hit == 1:
			writeJSON(w, http.StatusTooManyRequests, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429}`)
		default:
			streamLines(w, cmEvent("ADDED", "a", "6"))
		}
	}, nil)
	c, _ := newTestClient(t, fs, nil)
	w, err := c.ConfigMaps("ns").Watch(context.Background(), ListOptions{})
	if err != nil {
		t.Fatalf("Watch after a 429: %v", err)
	}
	if ev, _ := nextEvent(t, w.ResultChan()); ev.Type != Added {
		t.Fatalf("event = %+v", ev)
	}
	w.Stop()

	w, err = c.ConfigMaps("ns").Watch(context.Background(), ListOptions{ResourceVersion: "1"})
	if !apierrors.IsGone(err) {
		t.Fatalf("Watch answered 410 = %v, want IsGone", err)
	}
	if w != nil {
		t.Fatalf("a failed Watch returned a non-nil Watcher %#v", w)
	}
}
