package store

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestEmbeddedRestartKeepsDataAndRevisions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()

	first := startTestEtcdIn(t, dir)
	kept := mustCreate(t, first.Store(), "/registry/namespaces/default", `{"kind":"Namespace"}`)
	lastRevision, err := first.Store().CurrentRevision(testContext(t))
	if err != nil {
		t.Fatalf("CurrentRevision: %v", err)
	}
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	second := startTestEtcdIn(t, dir)
	s := second.Store()
	got, err := s.Get(testContext(t), kept.Key)
	if err != nil {
		t.Fatalf("Get after restart: %v", err)
	}
	if string(got.Value) != string(kept.Value) || got.ModRevision != kept.ModRevision {
		t.Errorf("after restart the key is %+v, want %+v", got, kept)
	}
	next := mustCreate(t, s, "/registry/namespaces/kube-system", `{"kind":"Namespace"}`)
	if next.ModRevision <= lastRevision {
		t.Errorf("first write after restart got revision %d, want more than %d", next.ModRevision, lastRevision)
	}
	if _, err := os.Stat(filepath.Join(dir, "etcd", "member")); err != nil {
		t.Errorf("etcd data is not in <dataDir>/etcd: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "etcd.log")); err != nil {
		t.Errorf("etcd log is not in <dataDir>/etcd.log: %v", err)
	}
}

func TestEmbeddedSideBySideOnLoopback(t *testing.T) {
	t.Parallel()
	a := startTestEtcd(t)
	b := startTestEtcd(t)
	for _, e := range []*Embedded{a, b} {
		u, err := url.Parse(e.ClientURL())
		if err != nil {
			t.Fatalf("ClientURL %q: %v", e.ClientURL(), err)
		}
		host, port, err := net.SplitHostPort(u.Host)
		if err != nil || host != "127.0.0.1" || port == "0" {
			t.Errorf("ClientURL = %q, want 127.0.0.1 and a real port", e.ClientURL())
		}
	}
	if a.ClientURL() == b.ClientURL() {
		t.Fatalf("two embedded etcds share %s", a.ClientURL())
	}
	mustCreate(t, a.Store(), "/registry/pods/default/only-in-a", "a")
	if _, err := b.Store().Get(testContext(t), "/registry/pods/default/only-in-a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a key written to one embedded etcd is visible in the other: err = %v", err)
	}
}

func TestConnect(t *testing.T) {
	t.Parallel()
	e := startTestEtcd(t)
	s, err := Connect(testContext(t), []string{e.ClientURL()})
	if err != nil {
		t.Fatalf("Connect(%s): %v", e.ClientURL(), err)
	}
	mustCreate(t, s, "/registry/pods/default/via-connect", "x")
	if _, err := e.Store().Get(testContext(t), "/registry/pods/default/via-connect"); err != nil {
		t.Errorf("a write through Connect is not in the embedded etcd: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	// The embedded etcd's own client is unaffected by closing another store.
	if _, err := e.Store().CurrentRevision(testContext(t)); err != nil {
		t.Errorf("embedded store after closing a Connect store: %v", err)
	}
}

func TestConnectFails(t *testing.T) {
	t.Parallel()
	// A port that was free a moment ago: nothing answers there.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if s, err := Connect(ctx, []string{"http://" + addr}); err == nil {
		s.Close()
		t.Errorf("Connect to %s, where nothing listens, succeeded", addr)
	}
	if _, err := Connect(ctx, nil); err == nil {
		t.Errorf("Connect with no endpoints succeeded")
	}
}

func TestStartEmbeddedCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e, err := StartEmbedded(ctx, t.TempDir())
	if !errors.Is(err, context.Canceled) {
		if e != nil {
			e.Close()
		}
		t.Errorf("StartEmbedded with a canceled context: err = %v, want context.Canceled", err)
	}
}

// TestEmbeddedInProcessWritesAreEtcdWrites checks that what the embedded
// store writes through its in-process KV calls is what any other etcd
// client sees: a client over the socket (ClientURL) reads the same value
// at the same revision, and a watch, which runs over the store's gRPC
// connection, delivers it.
func TestEmbeddedInProcessWritesAreEtcdWrites(t *testing.T) {
	t.Parallel()
	e := startTestEtcd(t)
	s := e.Store()
	ctx := testContext(t)
	w, err := s.Watch(ctx, "/registry/configmaps/", 0)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	created := mustCreate(t, s, "/registry/configmaps/default/a", `{"data":{"k":"v"}}`)

	remote, err := Connect(ctx, []string{e.ClientURL()})
	if err != nil {
		t.Fatalf("Connect to %s: %v", e.ClientURL(), err)
	}
	defer remote.Close()
	got, err := remote.Get(ctx, created.Key)
	if err != nil {
		t.Fatalf("Get over the socket: %v", err)
	}
	if string(got.Value) != string(created.Value) || got.ModRevision != created.ModRevision {
		t.Errorf("over the socket the key is %+v, want %+v", got, created)
	}
	select {
	case ev := <-w.ResultChan():
		if ev.KV.Key != created.Key || ev.KV.ModRevision != created.ModRevision {
			t.Errorf("watch event %+v, want the create at revision %d", ev, created.ModRevision)
		}
	case <-ctx.Done():
		t.Fatal("no watch event for the create")
	}
}

// TestEmbeddedWatchIsInProcessAndEndsOnClose checks that the embedded
// etcd's watches call etcd in-process (a member of a multi-member cluster
// keeps gRPC ones, whose leader check the in-process path skips), and that
// closing the embedded etcd ends an open watch with an Error event, as
// closing the client ends a gRPC watch, instead of leaving it waiting.
func TestEmbeddedWatchIsInProcessAndEndsOnClose(t *testing.T) {
	e := startTestEtcd(t)
	s := e.Store()
	if s.inProcess == nil {
		t.Fatal("the embedded etcd's store watches over gRPC, want in-process")
	}
	w, err := s.Watch(testContext(t), "/registry/pods/", 0)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	created := mustCreate(t, s, "/registry/pods/default/a", "x")
	if ev := nextEvent(t, w); ev.Type != Added || ev.KV.Key != created.Key || string(ev.KV.Value) != "x" {
		t.Fatalf("first event = %+v, want Added %s", ev, created.Key)
	}

	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if ev := nextEvent(t, w); ev.Type != Error {
		t.Fatalf("event after Close = %+v, want Error", ev)
	}
	expectClosed(t, w)
}
