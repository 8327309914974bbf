package garbagecollector

import (
	"slices"
	"testing"

	"kplane/pkg/api"
)

func TestIsBlocking(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name   string
		owners []api.OwnerReference
		want   bool
	}{
		{"blockOwnerDeletion true", []api.OwnerReference{{UID: "o", BlockOwnerDeletion: &yes}}, true},
		{"blockOwnerDeletion false", []api.OwnerReference{{UID: "o", BlockOwnerDeletion: &no}}, false},
		{"blockOwnerDeletion unset", []api.OwnerReference{{UID: "o"}}, false},
		{"blocks another owner only", []api.OwnerReference{{UID: "other", BlockOwnerDeletion: &yes}, {UID: "o"}}, false},
		{"no owners", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isBlocking("o", tt.owners); got != tt.want {
				t.Fatalf("isBlocking = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestClassifyReferences(t *testing.T) {
	now := api.Now()
	alive := ownerState{meta: &api.ObjectMeta{UID: "x"}}
	waiting := ownerState{meta: &api.ObjectMeta{UID: "x", DeletionTimestamp: &now, Finalizers: []string{api.FinalizerDeleteDependents}}}
	orphaning := ownerState{meta: &api.ObjectMeta{UID: "x", DeletionTimestamp: &now, Finalizers: []string{api.FinalizerOrphanDependents}}}
	absent := ownerState{absent: true}
	tests := []struct {
		name  string
		state ownerState
		want  string
	}{
		{"an existing owner is solid", alive, "solid"},
		{"an absent owner dangles", absent, "dangling"},
		{"an owner in foreground deletion is waiting", waiting, "waiting"},
		// Being deleted without foregroundDeletion: it does not wait
		// for its dependents, so it still counts as an owner for now.
		{"an owner being orphan-deleted is still solid", orphaning, "solid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c classifiedReferences
			c.add(api.OwnerReference{UID: "x"}, tt.state)
			got := map[string]int{"solid": len(c.solid), "dangling": len(c.dangling), "waiting": len(c.waiting)}
			for k, n := range got {
				if want := map[bool]int{true: 1, false: 0}[k == tt.want]; n != want {
					t.Fatalf("classified as %v, want %s", got, tt.want)
				}
			}
		})
	}
}

func TestDecideDependentAction(t *testing.T) {
	a := api.OwnerReference{UID: "a"}
	b := api.OwnerReference{UID: "b"}
	leaf := nodeView{}
	withDependents := nodeView{dependents: []dependentView{{identity: podID("child")}}}
	withWaitingDependent := nodeView{dependents: []dependentView{{identity: podID("child"), deletingDependents: true}}}
	tests := []struct {
		name       string
		refs       classifiedReferences
		self       nodeView
		finalizers []string
		want       dependentAction
	}{
		{
			name: "a live owner keeps the object",
			refs: classifiedReferences{solid: []api.OwnerReference{a}},
			want: dependentAction{kind: keepObject},
		},
		{
			name: "a live owner and a dangling one: remove the dangling reference",
			refs: classifiedReferences{solid: []api.OwnerReference{a}, dangling: []api.OwnerReference{b}},
			want: dependentAction{kind: removeReferences, removeUIDs: []string{"b"}},
		},
		{
			name: "a live owner and a waiting one: remove the waiting reference so it stops waiting",
			refs: classifiedReferences{solid: []api.OwnerReference{a}, waiting: []api.OwnerReference{b}},
			want: dependentAction{kind: removeReferences, removeUIDs: []string{"b"}},
		},
		{
			name: "all owners gone: delete in the background",
			refs: classifiedReferences{dangling: []api.OwnerReference{a, b}},
			self: withDependents,
			want: dependentAction{kind: deleteObject, policy: api.DeletePropagationBackground},
		},
		{
			name:       "all owners gone, object already asks for orphaning: keep that policy",
			refs:       classifiedReferences{dangling: []api.OwnerReference{a}},
			finalizers: []string{api.FinalizerOrphanDependents},
			want:       dependentAction{kind: deleteObject, policy: api.DeletePropagationOrphan},
		},
		{
			name:       "all owners gone, object already asks for foreground: keep that policy",
			refs:       classifiedReferences{dangling: []api.OwnerReference{a}},
			finalizers: []string{api.FinalizerDeleteDependents},
			want:       dependentAction{kind: deleteObject, policy: api.DeletePropagationForeground},
		},
		{
			name: "owner waiting, object without dependents: delete in the background",
			refs: classifiedReferences{waiting: []api.OwnerReference{a}},
			self: leaf,
			want: dependentAction{kind: deleteObject, policy: api.DeletePropagationBackground},
		},
		{
			name: "owner waiting, object with dependents: delete in the foreground too",
			refs: classifiedReferences{waiting: []api.OwnerReference{a}, dangling: []api.OwnerReference{b}},
			self: withDependents,
			want: dependentAction{kind: deleteObject, policy: api.DeletePropagationForeground},
		},
		{
			name: "owner waiting, a dependent waiting too: unblock first (cycle)",
			refs: classifiedReferences{waiting: []api.OwnerReference{a}},
			self: withWaitingDependent,
			want: dependentAction{kind: deleteObject, policy: api.DeletePropagationForeground, unblockFirst: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decideDependentAction(tt.refs, tt.self, tt.finalizers)
			if got.kind != tt.want.kind || got.policy != tt.want.policy || got.unblockFirst != tt.want.unblockFirst ||
				!slices.Equal(got.removeUIDs, tt.want.removeUIDs) {
				t.Fatalf("decision = %+v, want %+v", got, tt.want)
			}
		})
	}
}
