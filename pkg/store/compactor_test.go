package store

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"
)

// compactedUpTo reports whether the history before revision is gone, by
// reading at the revision just before it.
func compactedUpTo(ctx context.Context, s *EtcdStore, revision int64) bool {
	_, err := s.List(ctx, "/registry/", ListOptions{Revision: revision - 1})
	return errors.Is(err, ErrGone)
}

func TestCompactorKeepsOneIntervalOfHistory(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	c := &compactor{client: s.client, log: slog.Default()}

	mustCreate(t, s, "/registry/pods/default/a", "a")
	mustCreate(t, s, "/registry/pods/default/b", "b")
	// The first tick only remembers the revision.
	if err := c.tick(ctx); err != nil {
		t.Fatalf("first tick: %v", err)
	}
	seen := c.revision
	if compactedUpTo(ctx, s, seen) {
		t.Fatalf("the first tick compacted")
	}
	mustCreate(t, s, "/registry/pods/default/c", "c")

	// The second tick compacts to what the first one saw, no further.
	if err := c.tick(ctx); err != nil {
		t.Fatalf("second tick: %v", err)
	}
	if !compactedUpTo(ctx, s, seen) {
		t.Errorf("history before revision %d survived the second tick", seen)
	}
	if _, err := s.List(ctx, "/registry/", ListOptions{Revision: seen}); err != nil {
		t.Errorf("revision %d, seen at the previous tick, was compacted away: %v", seen, err)
	}
}

func TestCompactorsTakeTurns(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	a := &compactor{client: s.client, log: slog.Default()}
	b := &compactor{client: s.client, log: slog.Default()}
	mustCreate(t, s, "/registry/pods/default/a", "a")

	if err := a.tick(ctx); err != nil {
		t.Fatalf("a's first tick: %v", err)
	}
	// b ticks in the same interval: a already took the turn, b follows.
	if err := b.tick(ctx); err != nil {
		t.Fatalf("b's first tick: %v", err)
	}
	if b.turn != a.turn {
		t.Fatalf("b's turn = %d after losing to a, want a's %d", b.turn, a.turn)
	}
	mustCreate(t, s, "/registry/pods/default/b", "b")

	// Next interval b comes first and compacts to what it saw last time;
	// a finds the turn taken and does not compact.
	bSaw := b.revision
	if err := b.tick(ctx); err != nil {
		t.Fatalf("b's second tick: %v", err)
	}
	if !compactedUpTo(ctx, s, bSaw) {
		t.Errorf("b did not compact to revision %d", bSaw)
	}
	aSaw := a.revision
	if err := a.tick(ctx); err != nil {
		t.Fatalf("a's second tick: %v", err)
	}
	latest, _ := s.CurrentRevision(ctx)
	if _, err := s.List(ctx, "/registry/", ListOptions{Revision: bSaw}); err != nil {
		t.Errorf("a compacted past b's revision %d (a saw %d, latest %d): %v", bSaw, aSaw, latest, err)
	}
}

func TestCompactorSurvivesDeletedTurnKey(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	c := &compactor{client: s.client, log: slog.Default()}
	if err := c.tick(ctx); err != nil {
		t.Fatalf("tick: %v", err)
	}
	if _, err := s.Delete(ctx, compactRevisionKey, 0); err != nil {
		t.Fatalf("delete %s: %v", compactRevisionKey, err)
	}
	for i := range 3 {
		if err := c.tick(ctx); err != nil {
			t.Fatalf("tick %d after the key was deleted: %v", i, err)
		}
	}
	if _, err := s.Get(ctx, compactRevisionKey); err != nil {
		t.Errorf("the compactor did not recreate %s: %v", compactRevisionKey, err)
	}
}

func TestRunCompactor(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx, cancel := context.WithCancel(testContext(t))
	first := mustCreate(t, s, "/registry/pods/default/a", "a")
	mustCreate(t, s, "/registry/pods/default/b", "b")

	done := make(chan struct{})
	go func() {
		defer close(done)
		RunCompactor(ctx, s, 10*time.Millisecond)
	}()
	deadline := time.Now().Add(waitLimit)
	for !compactedUpTo(ctx, s, first.ModRevision+1) {
		if time.Now().After(deadline) {
			t.Fatalf("revision %d not compacted within %v", first.ModRevision, waitLimit)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(waitLimit):
		t.Fatalf("RunCompactor did not return after its context ended")
	}
}

func TestRunCompactorDisabled(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	// With compaction off it returns at once, without waiting for ctx.
	RunCompactor(testContext(t), s, 0)
	if _, err := s.Get(testContext(t), compactRevisionKey); !errors.Is(err, ErrNotFound) {
		t.Errorf("a disabled compactor wrote %s: err = %v", compactRevisionKey, err)
	}
}
