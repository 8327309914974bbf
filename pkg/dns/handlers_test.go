package dns

import (
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/informer"
)

// TestDeletedAcceptsObjectsAndTombstones: a delete handler removes the
// object whether the informer hands over the object itself or a relist's
// tombstone, even one whose last state was lost.
func TestDeletedAcceptsObjectsAndTombstones(t *testing.T) {
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"}}
	for name, obj := range map[string]any{
		"the object":                svc,
		"a tombstone":               informer.DeletedFinalStateUnknown{Key: "default/web", Obj: svc},
		"a tombstone pointer":       &informer.DeletedFinalStateUnknown{Key: "default/web", Obj: svc},
		"a tombstone without state": informer.DeletedFinalStateUnknown{Key: "default/web"},
	} {
		var got string
		deleted(obj, func(namespace, name string) { got = namespace + "/" + name })
		if got != "default/web" {
			t.Errorf("%s: removed %q, want default/web", name, got)
		}
	}
	called := false
	deleted("not an object", func(string, string) { called = true })
	if called {
		t.Error("removed something for a value that is neither an object nor a tombstone")
	}
}
