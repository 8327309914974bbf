package serviceaccount

import (
	"slices"
	"testing"

	"kplane/pkg/api"
)

func TestServiceAccountsToCreate(t *testing.T) {
	now := api.Now()
	active := &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team-a"}, Status: api.NamespaceStatus{Phase: api.NamespaceActive}}
	terminating := &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team-a", DeletionTimestamp: &now}, Status: api.NamespaceStatus{Phase: api.NamespaceTerminating}}
	// The apiserver sets deletionTimestamp and the phase in one write, but
	// a namespace with only the timestamp must not get accounts either.
	deletedNotYetTerminating := &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team-a", DeletionTimestamp: &now}, Status: api.NamespaceStatus{Phase: api.NamespaceActive}}
	// Defaulting makes the phase Active on create; an empty phase is
	// still a live namespace.
	noPhase := &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team-a"}}

	tests := []struct {
		name     string
		ns       *api.Namespace
		want     []string
		existing []string
		wantNew  []string
	}{
		{"default missing", active, []string{"default"}, nil, []string{"default"}},
		{"default present", active, []string{"default"}, []string{"default"}, nil},
		{"other accounts do not count", active, []string{"default"}, []string{"builder"}, []string{"default"}},
		{"several wanted, in order", active, []string{"default", "builder", "deployer"}, []string{"builder"}, []string{"default", "deployer"}},
		{"terminating namespace gets none", terminating, []string{"default"}, nil, nil},
		{"deleted namespace gets none", deletedNotYetTerminating, []string{"default"}, nil, nil},
		{"empty phase counts as live", noPhase, []string{"default"}, nil, []string{"default"}},
		{"nothing wanted", active, nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exists := func(name string) bool { return slices.Contains(tt.existing, name) }
			got := serviceAccountsToCreate(tt.ns, tt.want, exists)
			if !slices.Equal(got, tt.wantNew) {
				t.Fatalf("serviceAccountsToCreate = %v, want %v", got, tt.wantNew)
			}
		})
	}
}
