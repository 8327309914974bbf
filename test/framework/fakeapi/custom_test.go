package fakeapi

import (
	"context"
	"slices"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/restmapper"
)

var widgets = client.Resource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}

// Discovery lists the built-in resources and the custom ones with their
// verbs; SetCustomResources changes what the next read sees; a discovery
// failure is injected like any other.
func TestDiscoveryListsCustomResources(t *testing.T) {
	s := New(t, WithCustomResource(widgets, "get", "list"))
	ctx := context.Background()
	m, err := restmapper.Discover(ctx, s.Client())
	if err != nil {
		t.Fatal(err)
	}
	w, err := m.KindFor("example.com/v1", "Widget")
	if err != nil || w.Client() != widgets || !slices.Equal(w.Verbs, []string{"get", "list"}) || !w.Preferred {
		t.Fatalf("Widget in discovery: %+v, %v", w, err)
	}
	if d, err := m.KindFor("apps/v1", "Deployment"); err != nil || d.Client() != client.DeploymentsResource || !d.HasVerb("deletecollection") {
		t.Fatalf("Deployment in discovery: %+v, %v", d, err)
	}

	s.SetCustomResources()
	if m, err = restmapper.Discover(ctx, s.Client()); err != nil {
		t.Fatal(err)
	}
	if _, err := m.KindFor("example.com/v1", "Widget"); err == nil {
		t.Fatal("Widget still discovered after SetCustomResources()")
	}

	s.FailOn(VerbGet, "discovery", "", apierrors.NewServiceUnavailable("down"))
	if _, err := restmapper.Discover(ctx, s.Client()); apierrors.ReasonOf(err) != apierrors.ReasonServiceUnavailable {
		t.Fatalf("discovery with an injected failure: %v", err)
	}
}

// Objects of a custom resource are stored as maps, read, listed, merge
// patched and deleted; a strategic merge patch is refused with 415.
func TestCustomResourceObjects(t *testing.T) {
	s := New(t, WithCustomResource(widgets))
	ctx := context.Background()
	s.Add(t, &api.CustomObject{
		TypeMeta:   api.TypeMeta{APIVersion: "example.com/v1", Kind: "Widget"},
		ObjectMeta: api.ObjectMeta{Name: "w", Namespace: "default", UID: "uid-w", ResourceVersion: "3"},
		Content:    map[string]any{"spec": map[string]any{"size": int64(2)}},
	})
	d := s.Client().Dynamic(widgets).Namespace("default")
	got, err := d.Get(ctx, "w", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got["kind"] != "Widget" || got["spec"].(map[string]any)["size"] != int64(2) {
		t.Fatalf("stored widget %v", got)
	}
	if list, err := d.List(ctx, client.ListOptions{}); err != nil || len(list.Items) != 1 {
		t.Fatalf("list: %v, %v", list, err)
	}
	_, err = d.Patch(ctx, "w", client.StrategicMergePatchType, []byte(`{"spec":{"size":3}}`), client.PatchOptions{})
	if apierrors.ReasonOf(err) != apierrors.ReasonUnsupportedMediaType {
		t.Fatalf("strategic merge patch of a custom object: %v, want 415", err)
	}
	patched, err := d.Patch(ctx, "w", client.MergePatchType, []byte(`{"spec":{"size":3}}`), client.PatchOptions{})
	if err != nil || patched["spec"].(map[string]any)["size"] != int64(3) {
		t.Fatalf("merge patch: %v, %v", patched, err)
	}
	if err := d.Delete(ctx, "w", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	s.ExpectActions(t, "patch widgets w", "patch widgets w", "delete widgets w")
}
