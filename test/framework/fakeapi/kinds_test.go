package fakeapi

import (
	"testing"

	"kplane/pkg/client"
)

// Every resource the client knows must be one the fake can store, so a
// new kind cannot be forgotten here.
func TestEveryBuiltinResourceHasAKind(t *testing.T) {
	for _, r := range client.BuiltinResources() {
		newObject, ok := kinds[r.Resource]
		if !ok {
			t.Errorf("resource %s has no entry in kinds", r)
			continue
		}
		if got, ok := resourceOf(newObject()); !ok || got != r {
			t.Errorf("resourceOf(%T) = %v, %v; want %v", newObject(), got, ok, r)
		}
	}
	if len(kinds) != len(client.BuiltinResources()) {
		t.Errorf("kinds has %d entries, the client serves %d resources", len(kinds), len(client.BuiltinResources()))
	}
}
