package store

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestWatchReplaysFromRevision writes, remembers a revision, writes more, and
// checks that a watch from the remembered revision sees exactly the later
// changes, in order, with the right types, and then live changes too.
func TestWatchReplaysFromRevision(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	a := mustCreate(t, s, "/registry/pods/default/a", "a1")
	after := a.ModRevision

	b := mustCreate(t, s, "/registry/pods/default/b", "b1")
	a2, err := s.Update(ctx, a.Key, []byte("a2"), a.ModRevision)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	mustCreate(t, s, "/registry/pods/other/x", "not watched")
	bDeleted, err := s.Delete(ctx, b.Key, 0)
	if err != nil {
		t.Fatalf("Delete: %v", err)
	}

	w, err := s.Watch(ctx, "/registry/pods/default/", after)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	c := mustCreate(t, s, "/registry/pods/default/c", "c1") // live, after the replay

	want := []struct {
		typ      EventType
		key      string
		value    string
		revision int64
	}{
		{Added, b.Key, "b1", b.ModRevision},
		{Modified, a.Key, "a2", a2.ModRevision},
		{Deleted, b.Key, "b1", bDeleted.ModRevision},
		{Added, c.Key, "c1", c.ModRevision},
	}
	for i, w0 := range want {
		ev := nextEvent(t, w)
		if ev.Type != w0.typ || ev.KV.Key != w0.key || string(ev.KV.Value) != w0.value || ev.Revision != w0.revision || ev.KV.ModRevision != w0.revision {
			t.Fatalf("event %d = %s %s=%q rev %d (kv rev %d), want %s %s=%q rev %d",
				i, ev.Type, ev.KV.Key, ev.KV.Value, ev.Revision, ev.KV.ModRevision, w0.typ, w0.key, w0.value, w0.revision)
		}
	}
}

func TestWatchEventDetails(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	start, _ := s.CurrentRevision(ctx)
	w, err := s.Watch(ctx, "/registry/pods/", start)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()

	created := mustCreate(t, s, "/registry/pods/default/p", "v1")
	updated, err := s.Update(ctx, created.Key, []byte("v2"), created.ModRevision)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	deleted, err := s.Delete(ctx, created.Key, updated.ModRevision)
	if err != nil {
		t.Fatalf("Delete: %v", err)
	}

	added := nextEvent(t, w)
	if added.Type != Added || added.PrevKV != nil || added.KV.CreateRevision != created.CreateRevision {
		t.Errorf("ADDED event = %+v, want no PrevKV and create revision %d", added, created.CreateRevision)
	}
	modified := nextEvent(t, w)
	if modified.Type != Modified || modified.PrevKV == nil || string(modified.PrevKV.Value) != "v1" || modified.PrevKV.ModRevision != created.ModRevision {
		t.Errorf("MODIFIED event = %+v, want PrevKV v1 at revision %d", modified, created.ModRevision)
	}
	del := nextEvent(t, w)
	// A DELETED event carries the last value, at the revision of the delete.
	if del.Type != Deleted || string(del.KV.Value) != "v2" || del.KV.ModRevision != deleted.ModRevision ||
		del.Revision != deleted.ModRevision || del.KV.CreateRevision != created.CreateRevision {
		t.Errorf("DELETED event = %+v, want value v2 at the delete revision %d", del, deleted.ModRevision)
	}
	if del.PrevKV == nil || del.PrevKV.ModRevision != updated.ModRevision {
		t.Errorf("DELETED event PrevKV = %+v, want the value at revision %d", del.PrevKV, updated.ModRevision)
	}
}

func TestWatchFromNow(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	mustCreate(t, s, "/registry/pods/default/old", "old")
	w, err := s.Watch(ctx, "/registry/pods/", 0)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	// A watch from revision 0 begins "now", which is some instant after
	// Watch returned; keep writing until an event arrives and check it is
	// not the old key.
	for i := 0; ; i++ {
		mustCreate(t, s, fmt.Sprintf("/registry/pods/default/new%d", i), "new")
		select {
		case ev := <-w.ResultChan():
			if ev.KV.Key == "/registry/pods/default/old" {
				t.Fatalf("a watch from now replayed the old key: %+v", ev)
			}
			return
		case <-time.After(50 * time.Millisecond):
		}
		if int64(i) > waitLimit.Milliseconds()/50 {
			t.Fatalf("no event from a watch from now")
		}
	}
}

func TestWatchCompacted(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	first := mustCreate(t, s, "/registry/pods/default/a", "a")
	mustCreate(t, s, "/registry/pods/default/b", "b")
	last := mustCreate(t, s, "/registry/pods/default/c", "c")
	if err := s.Compact(ctx, last.ModRevision); err != nil {
		t.Fatalf("Compact: %v", err)
	}

	w, err := s.Watch(ctx, "/registry/pods/", first.ModRevision)
	if err != nil {
		// The interface allows ErrGone at once, too.
		if !errors.Is(err, ErrGone) {
			t.Fatalf("Watch from a compacted revision: err = %v, want ErrGone", err)
		}
		return
	}
	defer w.Stop()
	ev := nextEvent(t, w)
	if ev.Type != Error || !errors.Is(ev.Err, ErrGone) {
		t.Fatalf("first event = %+v, want an Error event with ErrGone", ev)
	}
	expectClosed(t, w)

	// From the compaction revision on, history is still there.
	w2, err := s.Watch(ctx, "/registry/pods/", last.ModRevision-1)
	if err != nil {
		t.Fatalf("Watch from the compaction revision: %v", err)
	}
	defer w2.Stop()
	if ev := nextEvent(t, w2); ev.Type != Added || ev.KV.Key != last.Key {
		t.Errorf("watch from just before the compaction revision: first event %+v, want ADDED %s", ev, last.Key)
	}
}

func TestWatchBookmarkAfterRequestProgress(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	watched := mustCreate(t, s, "/registry/pods/default/a", "a")
	w, err := s.Watch(ctx, "/registry/pods/", watched.ModRevision-1)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	if ev := nextEvent(t, w); ev.Type != Added {
		t.Fatalf("first event = %+v, want ADDED", ev)
	}
	// Changes elsewhere move the store's revision without an event here.
	other := mustCreate(t, s, "/registry/configmaps/default/c", "c")

	// etcd ignores a progress request while the watch is catching up, so
	// ask until a Bookmark comes.
	deadline := time.Now().Add(waitLimit)
	for {
		if err := w.RequestProgress(ctx); err != nil {
			t.Fatalf("RequestProgress: %v", err)
		}
		select {
		case ev := <-w.ResultChan():
			if ev.Type != Bookmark {
				t.Fatalf("event = %+v, want a Bookmark", ev)
			}
			if ev.Revision < other.ModRevision {
				t.Fatalf("Bookmark at revision %d, want at least %d (the latest write)", ev.Revision, other.ModRevision)
			}
			return
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no Bookmark within %v", waitLimit)
		}
	}
}

func TestWatchRequestProgressAfterStop(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	w, err := s.Watch(testContext(t), "/registry/pods/", 0)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	w.Stop()
	if err := w.RequestProgress(testContext(t)); err == nil {
		t.Errorf("RequestProgress on a stopped watch succeeded, want an error")
	}
	w.Stop() // a second Stop is harmless
}

func TestWatchContextCancelClosesChannel(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx, cancel := context.WithCancel(testContext(t))
	w, err := s.Watch(ctx, "/registry/pods/", 0)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	cancel()
	expectClosed(t, w)
	w.Stop()
}

// TestWatchStopReleasesEverything checks that Stop and context cancellation
// end every goroutine a watch started, including a watch blocked on a
// consumer that stopped reading. It does not run in parallel with other
// tests, so the goroutine count is its own.
func TestWatchStopReleasesEverything(t *testing.T) {
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	// One request first, so the client's connection goroutines exist
	// before the baseline is taken. The embedded store's reads and writes
	// call etcd in its own process, so the gRPC connection that watches
	// use is dialed by a call of its own (the member list).
	mustCreate(t, s, "/registry/pods/default/warmup", "x")
	if _, err := s.Client().MemberList(ctx); err != nil {
		t.Fatalf("MemberList: %v", err)
	}
	baseline := runtime.NumGoroutine()

	var watchers []Watcher
	stuck, err := s.Watch(ctx, "/registry/pods/", 0)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	watchers = append(watchers, stuck)
	canceledCtx, cancel := context.WithCancel(ctx)
	canceled, err := s.Watch(canceledCtx, "/registry/pods/", 1)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	for i := range 5 {
		w, err := s.Watch(ctx, fmt.Sprintf("/registry/ns%d/", i), 0)
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		watchers = append(watchers, w)
	}
	// Fill the stuck watch's buffer and more; nobody reads it.
	for i := range watchBufferSize + 20 {
		mustCreate(t, s, fmt.Sprintf("/registry/pods/default/p%d", i), "x")
	}
	if n := runtime.NumGoroutine(); n <= baseline {
		t.Fatalf("%d goroutines with watches running, baseline %d: the check below would prove nothing", n, baseline)
	}

	cancel()
	expectClosed(t, canceled)
	for _, w := range watchers {
		w.Stop()
	}

	deadline := time.Now().Add(waitLimit)
	for runtime.NumGoroutine() > baseline {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after stopping every watch, want at most %d; watch goroutines left:\n%s",
				runtime.NumGoroutine(), baseline, watchGoroutines())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// watchGoroutines returns the stacks of goroutines that belong to a watch.
func watchGoroutines() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "etcdWatch") || strings.Contains(g, "watchGrpcStream") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}
