package store

import (
	"errors"
	"fmt"
	"log/slog"
	"testing"
)

// mustUpdate updates key to value at whatever revision it has.
func mustUpdate(t testing.TB, s Interface, key, value string) KV {
	t.Helper()
	kv, err := s.Update(testContext(t), key, []byte(value), 0)
	if err != nil {
		t.Fatalf("Update(%q): %v", key, err)
	}
	return kv
}

// changeSummary prints a history's changes as "TYPE@rev=value".
func changeSummary(h KeyHistory) []string {
	var out []string
	for _, c := range h.Changes {
		out = append(out, fmt.Sprintf("%s@%d=%s", c.Type, c.KV.ModRevision, c.KV.Value))
	}
	return out
}

func TestHistoryReplaysEveryChangeOfTheKeyOnly(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	const key = "/registry/configmaps/default/app"

	created := mustCreate(t, s, key, "v1")
	mustCreate(t, s, "/registry/configmaps/default/other", "x") // not part of app's history
	updated := mustUpdate(t, s, key, "v2")
	deleted, err := s.Delete(ctx, key, 0)
	if err != nil {
		t.Fatal(err)
	}
	again := mustCreate(t, s, key, "v3")

	h, err := s.History(ctx, key, 0)
	if err != nil {
		t.Fatalf("History: %v", err)
	}
	want := []string{
		fmt.Sprintf("ADDED@%d=v1", created.ModRevision),
		fmt.Sprintf("MODIFIED@%d=v2", updated.ModRevision),
		fmt.Sprintf("DELETED@%d=", deleted.ModRevision),
		fmt.Sprintf("ADDED@%d=v3", again.ModRevision),
	}
	if got := changeSummary(h); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("history = %v, want %v", got, want)
	}
	if h.Changes[1].KV.Version != 2 || h.Changes[3].KV.Version != 1 || h.Changes[3].KV.CreateRevision != again.ModRevision {
		t.Errorf("versions: update %+v, re-create %+v; want version 2, then 1 with a new create revision", h.Changes[1].KV, h.Changes[3].KV)
	}
	if h.CompactRevision != 0 || h.AtCompaction != nil || h.Omitted != 0 {
		t.Errorf("uncompacted history: compact revision %d, at compaction %v, omitted %d; want none", h.CompactRevision, h.AtCompaction, h.Omitted)
	}
	if h.Revision < again.ModRevision {
		t.Errorf("history read up to revision %d, before the last change at %d", h.Revision, again.ModRevision)
	}

	none, err := s.History(ctx, "/registry/configmaps/default/never", 0)
	if err != nil || len(none.Changes) != 0 {
		t.Errorf("history of a key never written = %v, %v; want no changes", changeSummary(none), err)
	}
}

func TestHistoryStopsAtTheCompactionPoint(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	const key = "/registry/configmaps/default/app"

	mustCreate(t, s, key, "v1")
	mustUpdate(t, s, key, "v2")
	last := mustUpdate(t, s, key, "v3")

	compactedAt, err := s.CompactToNow(ctx)
	if err != nil {
		t.Fatalf("CompactToNow: %v", err)
	}
	if compactedAt <= last.ModRevision {
		t.Fatalf("compacted at %d, not past the last write %d a client may have seen", compactedAt, last.ModRevision)
	}
	if _, err := s.List(ctx, "/registry/", ListOptions{Revision: last.ModRevision}); !errors.Is(err, ErrGone) {
		t.Errorf("read at revision %d after CompactToNow: %v, want ErrGone", last.ModRevision, err)
	}
	after := mustUpdate(t, s, key, "v4")

	h, err := s.History(ctx, key, 0)
	if err != nil {
		t.Fatalf("History: %v", err)
	}
	if h.CompactRevision != compactedAt {
		t.Errorf("compact revision = %d, want %d", h.CompactRevision, compactedAt)
	}
	if want := []string{fmt.Sprintf("MODIFIED@%d=v4", after.ModRevision)}; fmt.Sprint(changeSummary(h)) != fmt.Sprint(want) {
		t.Errorf("changes after the compaction = %v, want %v", changeSummary(h), want)
	}
	if h.AtCompaction == nil || string(h.AtCompaction.Value) != "v3" || h.AtCompaction.ModRevision != last.ModRevision {
		t.Errorf("value at the compaction point = %+v, want v3 written at %d", h.AtCompaction, last.ModRevision)
	}
}

func TestHistoryKeepsTheNewestChanges(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	const key = "/registry/leases/kube-node-lease/node1"

	mustCreate(t, s, key, "0")
	var want []string
	for i := 1; i <= 9; i++ {
		kv := mustUpdate(t, s, key, fmt.Sprint(i))
		if i > 6 {
			want = append(want, fmt.Sprintf("MODIFIED@%d=%d", kv.ModRevision, i))
		}
	}
	h, err := s.History(ctx, key, 3)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(changeSummary(h)) != fmt.Sprint(want) || h.Omitted != 7 {
		t.Errorf("history with limit 3 = %v (omitted %d), want %v (omitted 7)", changeSummary(h), h.Omitted, want)
	}
}

func TestCompactToNowTakesTheCompactorsTurn(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	c := &compactor{client: s.client, log: slog.Default()}
	mustCreate(t, s, "/registry/pods/default/a", "a")
	if err := c.tick(ctx); err != nil {
		t.Fatal(err)
	}
	turn := c.turn
	if _, err := s.CompactToNow(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.tick(ctx); err != nil {
		t.Fatalf("tick after CompactToNow: %v", err)
	}
	if c.turn != turn+1 {
		t.Errorf("compactor's turn = %d after CompactToNow, want %d: the fault's write is a turn the compactor follows", c.turn, turn+1)
	}
}
