package fakeapi

import (
	"context"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// widget is a custom resource of the tests, served with WithKind.
type widget struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata,omitempty"`
	Spec           struct {
		Size int `json:"size"`
	} `json:"spec"`
	Status struct {
		Seen int `json:"seen"`
	} `json:"status"`
}

var typedWidgets = client.Resource{Group: "test.kplane.dev", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}

// A kind added with WithKind is served like a built-in one: created and
// read through the typed client, its status written only through /status,
// its writes recorded as actions, and Get and List read it back.
func TestWithKindServesACustomResource(t *testing.T) {
	s := New(t, WithKind(typedWidgets, func() api.Object { return &widget{} }))
	ctx := context.Background()
	wc := client.For[*widget](s.Client(), typedWidgets).Namespace("default")

	w := &widget{ObjectMeta: api.ObjectMeta{Name: "w1"}}
	w.Spec.Size = 3
	created, err := wc.Create(ctx, w, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if created.APIVersion != "test.kplane.dev/v1" || created.Kind != "Widget" || created.Namespace != "default" || created.UID == "" {
		t.Errorf("created = %+v", created)
	}
	created.Status.Seen, created.Spec.Size = 3, 99 // the spec change must not pass /status
	if _, err := wc.UpdateStatus(ctx, created, client.UpdateOptions{}); err != nil {
		t.Fatalf("update status: %v", err)
	}
	s.ExpectActions(t, "create widgets w1", "update widgets/status w1")

	stored, ok := Get[*widget](t, s, "default", "w1")
	if !ok || stored.Spec.Size != 3 || stored.Status.Seen != 3 {
		t.Errorf("stored = %+v (found %v), want size 3 and seen 3", stored, ok)
	}
	if list := List[*widget](t, s, "default"); len(list) != 1 || list[0].Name != "w1" {
		t.Errorf("List = %v", list)
	}
	// A server without WithKind does not serve the kind: that server's
	// own tests would fail, so only resource resolution is checked here.
	if _, ok := New(t).objectResource(&widget{}); ok {
		t.Error("a server without WithKind resolves widgets")
	}
}
