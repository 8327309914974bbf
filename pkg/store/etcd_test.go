package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
)

func TestCreate(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)

	first, err := s.Create(ctx, "/registry/pods/default/a", []byte(`{"v":1}`))
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if first.ModRevision == 0 || first.CreateRevision != first.ModRevision {
		t.Errorf("Create returned revisions mod=%d create=%d, want equal and non-zero", first.ModRevision, first.CreateRevision)
	}
	got, err := s.Get(ctx, "/registry/pods/default/a")
	if err != nil {
		t.Fatalf("Get after Create: %v", err)
	}
	if !bytes.Equal(got.Value, []byte(`{"v":1}`)) || got.ModRevision != first.ModRevision || got.CreateRevision != first.CreateRevision {
		t.Errorf("Get = %+v, want the created value at revision %d", got, first.ModRevision)
	}

	_, err = s.Create(ctx, "/registry/pods/default/a", []byte(`{"v":2}`))
	if !errors.Is(err, ErrAlreadyExists) {
		t.Errorf("second Create: err = %v, want ErrAlreadyExists", err)
	}
	got, _ = s.Get(ctx, "/registry/pods/default/a")
	if !bytes.Equal(got.Value, []byte(`{"v":1}`)) {
		t.Errorf("a refused Create changed the value to %s", got.Value)
	}

	// A deleted key is free again, and gets a new create revision.
	if _, err := s.Delete(ctx, "/registry/pods/default/a", 0); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	again, err := s.Create(ctx, "/registry/pods/default/a", []byte(`{"v":3}`))
	if err != nil {
		t.Fatalf("Create after Delete: %v", err)
	}
	if again.CreateRevision <= first.CreateRevision {
		t.Errorf("re-created key has create revision %d, want > %d", again.CreateRevision, first.CreateRevision)
	}
}

func TestGetMissing(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	_, err := s.Get(testContext(t), "/registry/pods/default/missing")
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of a missing key: err = %v, want ErrNotFound", err)
	}
}

func TestUpdate(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	created := mustCreate(t, s, "/registry/pods/default/p", "v1")
	deleted := mustCreate(t, s, "/registry/pods/default/gone", "v1")
	if _, err := s.Delete(ctx, deleted.Key, 0); err != nil {
		t.Fatalf("Delete: %v", err)
	}

	tests := []struct {
		name     string
		key      string
		revision int64
		wantErr  error
	}{
		{name: "stale revision", key: created.Key, revision: created.ModRevision - 1, wantErr: ErrConflict},
		{name: "future revision", key: created.Key, revision: created.ModRevision + 100, wantErr: ErrConflict},
		{name: "missing key", key: "/registry/pods/default/never", revision: 5, wantErr: ErrNotFound},
		{name: "deleted key", key: deleted.Key, revision: deleted.ModRevision, wantErr: ErrNotFound},
		{name: "missing key, any revision", key: "/registry/pods/default/never", revision: 0, wantErr: ErrNotFound},
		{name: "current revision", key: created.Key, revision: created.ModRevision},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := s.Get(ctx, tt.key)
			kv, err := s.Update(ctx, tt.key, []byte("new"), tt.revision)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Update: err = %v, want %v", err, tt.wantErr)
				}
				after, _ := s.Get(ctx, tt.key)
				if after.ModRevision != before.ModRevision {
					t.Errorf("a refused Update wrote the key (revision %d → %d)", before.ModRevision, after.ModRevision)
				}
				return
			}
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			if kv.ModRevision <= tt.revision || kv.CreateRevision != created.CreateRevision || string(kv.Value) != "new" {
				t.Errorf("Update = %+v, want value new, mod revision > %d, create revision %d", kv, tt.revision, created.CreateRevision)
			}
			got, _ := s.Get(ctx, tt.key)
			if got.ModRevision != kv.ModRevision || string(got.Value) != "new" {
				t.Errorf("Get after Update = %+v, want %+v", got, kv)
			}
		})
	}
}

func TestUpdateAnyRevision(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	created := mustCreate(t, s, "/registry/configmaps/default/c", "v1")
	if _, err := s.Update(testContext(t), created.Key, []byte("v2"), created.ModRevision); err != nil {
		t.Fatalf("Update: %v", err)
	}
	kv, err := s.Update(testContext(t), created.Key, []byte("v3"), 0)
	if err != nil {
		t.Fatalf("Update with revision 0: %v", err)
	}
	if string(kv.Value) != "v3" || kv.CreateRevision != created.CreateRevision {
		t.Errorf("Update with revision 0 = %+v", kv)
	}
}

func TestDelete(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)

	tests := []struct {
		name string
		// revision picks the expected revision from the created key.
		revision func(created KV) int64
		wantErr  error
	}{
		{name: "any revision", revision: func(KV) int64 { return 0 }},
		{name: "current revision", revision: func(kv KV) int64 { return kv.ModRevision }},
		{name: "stale revision", revision: func(kv KV) int64 { return kv.ModRevision - 1 }, wantErr: ErrConflict},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := fmt.Sprintf("/registry/secrets/default/s%d", i)
			created := mustCreate(t, s, key, "last value")
			kv, err := s.Delete(ctx, key, tt.revision(created))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Delete: err = %v, want %v", err, tt.wantErr)
				}
				if _, err := s.Get(ctx, key); err != nil {
					t.Errorf("a refused Delete removed the key: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Delete: %v", err)
			}
			rev, _ := s.CurrentRevision(ctx)
			want := KV{Key: key, Value: []byte("last value"), ModRevision: rev, CreateRevision: created.CreateRevision}
			if kv.Key != want.Key || !bytes.Equal(kv.Value, want.Value) || kv.ModRevision != want.ModRevision || kv.CreateRevision != want.CreateRevision {
				t.Errorf("Delete = %+v, want %+v (the last value at the delete's revision)", kv, want)
			}
			if _, err := s.Get(ctx, key); !errors.Is(err, ErrNotFound) {
				t.Errorf("Get after Delete: err = %v, want ErrNotFound", err)
			}
			if _, err := s.Delete(ctx, key, 0); !errors.Is(err, ErrNotFound) {
				t.Errorf("second Delete: err = %v, want ErrNotFound", err)
			}
			if _, err := s.Delete(ctx, key, kv.ModRevision); !errors.Is(err, ErrNotFound) {
				t.Errorf("second Delete with a revision: err = %v, want ErrNotFound", err)
			}
		})
	}
}

// TestConcurrentUpdates runs read-modify-write loops in parallel on one key:
// compare-and-swap must make every increment count exactly once, and losers
// must see ErrConflict, never a silent overwrite.
func TestConcurrentUpdates(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	const key = "/registry/counters/c"
	const writers, increments = 4, 10
	mustCreate(t, s, key, "0")

	var conflicts sync.Map
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for done := 0; done < increments; {
				kv, err := s.Get(ctx, key)
				if err != nil {
					errs <- err
					return
				}
				n, _ := strconv.Atoi(string(kv.Value))
				_, err = s.Update(ctx, key, []byte(strconv.Itoa(n+1)), kv.ModRevision)
				switch {
				case errors.Is(err, ErrConflict):
					conflicts.Store(w, true)
				case err != nil:
					errs <- err
					return
				default:
					done++
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("writer failed: %v", err)
	}
	kv, err := s.Get(ctx, key)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got, want := string(kv.Value), strconv.Itoa(writers*increments); got != want {
		t.Errorf("counter = %s after %d successful increments, want %s", got, writers*increments, want)
	}
	sawConflict := false
	conflicts.Range(func(any, any) bool { sawConflict = true; return false })
	if !sawConflict {
		t.Logf("no writer ever lost a race; the conflict path went untested in this run")
	}
}

func TestListPagination(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	names := []string{"a", "b", "c", "d", "e"}
	for _, n := range names {
		mustCreate(t, s, "/registry/pods/default/"+n, n)
	}
	// Neighbours that a prefix list must not include.
	mustCreate(t, s, "/registry/pods/defaultx/z", "z")
	mustCreate(t, s, "/registry/pods/other/a", "a")
	mustCreate(t, s, "/registry/podsx/default/a", "a")

	tests := []struct {
		name          string
		prefix        string
		opts          ListOptions
		wantKeys      []string
		wantMore      bool
		wantRemaining int64
	}{
		{name: "all", prefix: "/registry/pods/default/", wantKeys: names},
		{name: "first page", prefix: "/registry/pods/default/", opts: ListOptions{Limit: 2}, wantKeys: []string{"a", "b"}, wantMore: true, wantRemaining: 3},
		{name: "middle page", prefix: "/registry/pods/default/", opts: ListOptions{Limit: 2, StartAfter: "/registry/pods/default/b"}, wantKeys: []string{"c", "d"}, wantMore: true, wantRemaining: 1},
		{name: "last page", prefix: "/registry/pods/default/", opts: ListOptions{Limit: 2, StartAfter: "/registry/pods/default/d"}, wantKeys: []string{"e"}},
		{name: "exact last page", prefix: "/registry/pods/default/", opts: ListOptions{Limit: 2, StartAfter: "/registry/pods/default/c"}, wantKeys: []string{"d", "e"}},
		{name: "start after a key that does not exist", prefix: "/registry/pods/default/", opts: ListOptions{StartAfter: "/registry/pods/default/bb"}, wantKeys: []string{"c", "d", "e"}},
		{name: "start after the end", prefix: "/registry/pods/default/", opts: ListOptions{StartAfter: "/registry/pods/default/z"}},
		{name: "start after before the prefix", prefix: "/registry/pods/default/", opts: ListOptions{StartAfter: "/registry/a"}, wantKeys: names},
		{name: "empty prefix", prefix: "/registry/nothing/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.List(ctx, tt.prefix, tt.opts)
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			var keys []string
			for _, kv := range res.Items {
				keys = append(keys, kv.Key[len(tt.prefix):])
				if string(kv.Value) != kv.Key[len(kv.Key)-1:] || kv.ModRevision == 0 {
					t.Errorf("item %+v lacks its value or revision", kv)
				}
			}
			if fmt.Sprint(keys) != fmt.Sprint(tt.wantKeys) {
				t.Errorf("keys = %v, want %v", keys, tt.wantKeys)
			}
			if res.More != tt.wantMore || res.Remaining != tt.wantRemaining {
				t.Errorf("More=%v Remaining=%d, want %v and %d", res.More, res.Remaining, tt.wantMore, tt.wantRemaining)
			}
			current, _ := s.CurrentRevision(ctx)
			if res.Revision != current {
				t.Errorf("list revision = %d, want the current %d", res.Revision, current)
			}
		})
	}
}

func TestListAtRevision(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	a := mustCreate(t, s, "/registry/pods/default/a", "a1")
	mustCreate(t, s, "/registry/pods/default/b", "b1")
	snapshot, _ := s.CurrentRevision(ctx)
	if _, err := s.Update(ctx, a.Key, []byte("a2"), a.ModRevision); err != nil {
		t.Fatalf("Update: %v", err)
	}
	mustCreate(t, s, "/registry/pods/default/c", "c1")
	if _, err := s.Delete(ctx, "/registry/pods/default/b", 0); err != nil {
		t.Fatalf("Delete: %v", err)
	}

	// Pages read at one revision form one snapshot, whatever happened since.
	first, err := s.List(ctx, "/registry/pods/default/", ListOptions{Revision: snapshot, Limit: 1})
	if err != nil {
		t.Fatalf("List at revision %d: %v", snapshot, err)
	}
	second, err := s.List(ctx, "/registry/pods/default/", ListOptions{Revision: snapshot, Limit: 1, StartAfter: first.Items[0].Key})
	if err != nil {
		t.Fatalf("second page at revision %d: %v", snapshot, err)
	}
	var got []string
	for _, kv := range append(first.Items, second.Items...) {
		got = append(got, string(kv.Value))
	}
	if fmt.Sprint(got) != "[a1 b1]" || second.More {
		t.Errorf("pages at revision %d hold %v (more=%v), want [a1 b1] and no more", snapshot, got, second.More)
	}
	if first.Revision != snapshot || second.Revision != snapshot {
		t.Errorf("list revisions = %d, %d, want the requested %d", first.Revision, second.Revision, snapshot)
	}

	// After a compaction the old snapshot is gone, the compacted revision
	// itself stays readable, and the latest state is unaffected.
	latest, _ := s.CurrentRevision(ctx)
	if err := s.Compact(ctx, latest); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	if _, err := s.List(ctx, "/registry/pods/default/", ListOptions{Revision: snapshot}); !errors.Is(err, ErrGone) {
		t.Errorf("List at compacted revision %d: err = %v, want ErrGone", snapshot, err)
	}
	if _, err := s.List(ctx, "/registry/pods/default/", ListOptions{Revision: latest}); err != nil {
		t.Errorf("List at the compaction revision %d: %v", latest, err)
	}
	now, err := s.List(ctx, "/registry/pods/default/", ListOptions{})
	if err != nil || len(now.Items) != 2 {
		t.Errorf("latest List after compaction = %d items, err %v; want 2 items", len(now.Items), err)
	}
	if err := s.Compact(ctx, snapshot); !errors.Is(err, ErrGone) {
		t.Errorf("Compact to an already compacted revision: err = %v, want ErrGone", err)
	}

	// A revision etcd has not reached names both revisions, for the
	// apiserver's "Too large resource version: <requested>, current: <current>".
	_, err = s.List(ctx, "/registry/pods/default/", ListOptions{Revision: latest + 100})
	var future *FutureRevisionError
	if !errors.Is(err, ErrFutureRevision) || !errors.As(err, &future) || future.Requested != latest+100 || future.Current != latest {
		t.Errorf("List at future revision %d: err = %v, want a FutureRevisionError with current %d", latest+100, err, latest)
	}
}

func TestTooLarge(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	existing := mustCreate(t, s, "/registry/configmaps/default/big", "small")

	tests := []struct {
		name string
		size int
	}{
		// etcd itself measures and refuses this one.
		{name: "just over etcd's limit", size: MaxRequestBytes + 1},
		// gRPC refuses this one before etcd sees it.
		{name: "over the gRPC message limit", size: 3 * MaxRequestBytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			value := bytes.Repeat([]byte("x"), tt.size)
			if _, err := s.Create(ctx, "/registry/configmaps/default/new", value); !errors.Is(err, ErrTooLarge) {
				t.Errorf("Create of %d bytes: err = %v, want ErrTooLarge", tt.size, err)
			}
			if _, err := s.Update(ctx, existing.Key, value, existing.ModRevision); !errors.Is(err, ErrTooLarge) {
				t.Errorf("Update to %d bytes: err = %v, want ErrTooLarge", tt.size, err)
			}
		})
	}
	// A value comfortably under the limit fits.
	if _, err := s.Create(ctx, "/registry/configmaps/default/ok", bytes.Repeat([]byte("x"), MaxRequestBytes-64*1024)); err != nil {
		t.Errorf("Create of a value under the limit: %v", err)
	}
}

func TestErrorsKeepContext(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	_, err := s.Get(testContext(t), "/registry/pods/default/missing")
	if err == nil || err.Error() == ErrNotFound.Error() {
		t.Fatalf("err = %v, want ErrNotFound wrapped with the key", err)
	}
	if !bytes.Contains([]byte(err.Error()), []byte("/registry/pods/default/missing")) {
		t.Errorf("error %q does not name the key", err)
	}
}

func TestCurrentRevisionFollowsWrites(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	before, err := s.CurrentRevision(ctx)
	if err != nil {
		t.Fatalf("CurrentRevision: %v", err)
	}
	kv := mustCreate(t, s, "/registry/pods/default/a", "a")
	after, err := s.CurrentRevision(ctx)
	if err != nil {
		t.Fatalf("CurrentRevision: %v", err)
	}
	if kv.ModRevision <= before || after != kv.ModRevision {
		t.Errorf("revisions: before %d, write %d, after %d; want before < write == after", before, kv.ModRevision, after)
	}
}

func TestCanceledContext(t *testing.T) {
	t.Parallel()
	s := startTestEtcd(t).Store()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Get(ctx, "/registry/pods/default/a"); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with a canceled context: err = %v, want context.Canceled", err)
	}
}
