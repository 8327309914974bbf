package controllerutil

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
)

func podWithLabels(name, uid string, lbls map[string]string, owner *api.OwnerReference) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: uid, Labels: lbls}}
	if owner != nil {
		p.OwnerReferences = []api.OwnerReference{*owner}
	}
	return p
}

func TestClaim(t *testing.T) {
	rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", UID: "rs-uid"}}
	mine := NewControllerRef(rs, "apps/v1", "ReplicaSet")
	other := mine
	other.UID, other.Name = "other-uid", "other"
	web := map[string]string{"app": "web"}
	pods := []*api.Pod{
		podWithLabels("orphan-match", "p1", web, nil),
		podWithLabels("orphan-nomatch", "p2", map[string]string{"app": "db"}, nil),
		podWithLabels("mine-match", "p3", web, &mine),
		podWithLabels("mine-relabelled", "p4", map[string]string{"app": "debug"}, &mine),
		podWithLabels("someone-elses", "p5", web, &other),
	}

	var patched []string
	m := &RefManager{
		Owner: rs, APIVersion: "apps/v1", Kind: "ReplicaSet",
		Selector: labels.SelectorFromSet(web),
		Patch: func(_ context.Context, name string, patch []byte) error {
			patched = append(patched, name+" "+string(patch))
			return nil
		},
	}
	claimed, err := Claim(context.Background(), m, pods)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range claimed {
		names = append(names, p.Name)
	}
	if want := []string{"orphan-match", "mine-match"}; !slices.Equal(names, want) {
		t.Errorf("claimed = %v, want %v", names, want)
	}
	if len(patched) != 2 {
		t.Fatalf("patches = %v, want one adoption and one release", patched)
	}
	if !strings.HasPrefix(patched[0], "orphan-match ") || !strings.Contains(patched[0], `"controller":true`) ||
		!strings.Contains(patched[0], `"blockOwnerDeletion":true`) || !strings.Contains(patched[0], `"uid":"p1"`) {
		t.Errorf("adoption patch = %s", patched[0])
	}
	if !strings.HasPrefix(patched[1], "mine-relabelled ") || !strings.Contains(patched[1], `"$patch":"delete"`) ||
		!strings.Contains(patched[1], `"uid":"rs-uid"`) {
		t.Errorf("release patch = %s", patched[1])
	}
}

func TestClaimRefusesAdoptionWhenOwnerIsGoing(t *testing.T) {
	rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", UID: "rs-uid"}}
	web := map[string]string{"app": "web"}
	calls := 0
	m := &RefManager{
		Owner: rs, APIVersion: "apps/v1", Kind: "ReplicaSet",
		Selector: labels.SelectorFromSet(web),
		CanAdopt: RecheckDeletionTimestamp("rs-uid", func(context.Context) (*api.ObjectMeta, error) {
			calls++
			now := api.Now()
			return &api.ObjectMeta{Name: "web", UID: "rs-uid", DeletionTimestamp: &now}, nil
		}),
		Patch: func(context.Context, string, []byte) error { t.Error("no patch expected"); return nil },
	}
	pods := []*api.Pod{podWithLabels("a", "p1", web, nil), podWithLabels("b", "p2", web, nil)}
	claimed, err := Claim(context.Background(), m, pods)
	if len(claimed) != 0 || err == nil {
		t.Fatalf("claimed %d pods, err %v; want none and an error", len(claimed), err)
	}
	if calls != 1 {
		t.Errorf("owner re-read %d times, want once per Claim", calls)
	}
}

func TestRecheckDeletionTimestampNewUID(t *testing.T) {
	check := RecheckDeletionTimestamp("old", func(context.Context) (*api.ObjectMeta, error) {
		return &api.ObjectMeta{Name: "web", UID: "new"}, nil
	})
	if err := check(context.Background()); err == nil {
		t.Fatal("a recreated owner (new uid) must not adopt for the old one")
	}
	failing := RecheckDeletionTimestamp("x", func(context.Context) (*api.ObjectMeta, error) {
		return nil, errors.New("boom")
	})
	if err := failing(context.Background()); err == nil {
		t.Fatal("a failed read must refuse adoption")
	}
}
