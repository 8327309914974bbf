package store

import (
	"errors"
	"testing"
)

// A guarded create writes while the guard stands still, and refuses with
// ErrGuardChanged once the guard key was written, or ErrAlreadyExists for
// a taken key.
func TestCreateGuarded(t *testing.T) {
	s := startTestEtcd(t).Store()
	ctx := testContext(t)
	guard := mustCreate(t, s, "/registry/namespaces/ns", "active")
	if _, err := s.CreateGuarded(ctx, "/registry/configmaps/ns/a", []byte("a"), guard.Key, guard.ModRevision); err != nil {
		t.Fatalf("create under an unchanged guard: %v", err)
	}
	if _, err := s.CreateGuarded(ctx, "/registry/configmaps/ns/a", []byte("a"), guard.Key, guard.ModRevision); !errors.Is(err, ErrAlreadyExists) {
		t.Errorf("create of a taken key: %v, want ErrAlreadyExists", err)
	}
	if _, err := s.Update(ctx, guard.Key, []byte("terminating"), guard.ModRevision); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateGuarded(ctx, "/registry/configmaps/ns/b", []byte("b"), guard.Key, guard.ModRevision); !errors.Is(err, ErrGuardChanged) {
		t.Errorf("create under a moved guard: %v, want ErrGuardChanged", err)
	}
	if _, err := s.Get(ctx, "/registry/configmaps/ns/b"); !errors.Is(err, ErrNotFound) {
		t.Errorf("the refused create wrote: %v", err)
	}
}
