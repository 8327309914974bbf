package namespace

import (
	"context"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/restmapper"
	"kplane/test/framework/fakeapi"
)

// Custom resources in a namespace being deleted: the resources to empty
// come from discovery at every pass, so a namespaced resource the
// apiserver added (a CRD's) is emptied like the built-in ones.

var (
	widgetsResource        = client.Resource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	clusterWidgetsResource = client.Resource{Group: "example.com", Version: "v1", Resource: "clusterwidgets", Kind: "ClusterWidget"}
)

func customWidget(namespace, name string) *api.CustomObject {
	return &api.CustomObject{
		TypeMeta:   api.TypeMeta{APIVersion: "example.com/v1", Kind: "Widget"},
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace, UID: "uid-" + name, ResourceVersion: "1"},
	}
}

func TestNamespacedResourcesAddsDiscoveredOnesBeforeEvents(t *testing.T) {
	discovered := []struct {
		res       client.Resource
		verbs     []string
		preferred bool
	}{
		{client.PodsResource, []string{"delete", "list"}, true}, // built-in: already in the list
		{widgetsResource, []string{"delete", "list"}, true},
		{clusterWidgetsResource, []string{"delete", "list"}, true}, // cluster-scoped
		{client.Resource{Group: "example.com", Version: "v1", Resource: "readonlys", Kind: "ReadOnly", Namespaced: true}, []string{"get", "list"}, true},
		{client.Resource{Group: "example.com", Version: "v1beta1", Resource: "widgets", Kind: "Widget", Namespaced: true}, []string{"delete"}, false},
	}
	var in []restmapper.APIResource
	for _, d := range discovered {
		in = append(in, restmapper.APIResource{Group: d.res.Group, Version: d.res.Version, Name: d.res.Resource, Kind: d.res.Kind,
			Namespaced: d.res.Namespaced, Verbs: d.verbs, Preferred: d.preferred})
	}
	got := namespacedResources(in)
	builtin := namespacedResources(nil)
	want := slices.Concat(builtin[:len(builtin)-1], []client.Resource{widgetsResource, client.EventsResource})
	if !slices.Equal(got, want) {
		t.Errorf("namespacedResources =\n%v\nwant\n%v", got, want)
	}
}

// A Widget in the namespace is deleted with it: its collection is deleted
// after the built-in ones and before events, and the namespace is
// finalized once it is gone.
func TestSyncDeletesNamespacedCustomResources(t *testing.T) {
	f := newFixtureOn(t, []fakeapi.Option{fakeapi.WithCustomResource(widgetsResource), fakeapi.WithCustomResource(clusterWidgetsResource)},
		terminatingNamespace("shop"), customWidget("shop", "w"), customWidget("elsewhere", "kept"))
	ctx := context.Background()
	if err := f.ctrl.sync(ctx, "shop"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	pass := contentPass()
	pass = slices.Insert(pass, len(pass)-1, "deletecollection widgets") // before events
	f.server.ExpectActions(t, then(pass, "update namespaces/status shop", "update namespaces/finalize shop")...)
	widgets := f.server.Client().Dynamic(widgetsResource)
	if _, err := widgets.Namespace("shop").Get(ctx, "w", client.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("widget shop/w after the sync: %v, want NotFound", err)
	}
	if _, err := widgets.Namespace("elsewhere").Get(ctx, "kept", client.GetOptions{}); err != nil {
		t.Errorf("widget elsewhere/kept was deleted with namespace shop: %v", err)
	}
}

// A failed discovery is not fatal — the built-in content is still deleted
// — but the pass fails, the namespace says why in its
// NamespaceDeletionDiscoveryFailure condition, and it is not finalized.
func TestSyncReportsDiscoveryFailure(t *testing.T) {
	f := newFixture(t, terminatingNamespace("shop"), &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "settings", Namespace: "shop"}})
	f.server.FailOn(fakeapi.VerbGet, "discovery", "", apierrors.NewServiceUnavailable("discovery is down"))
	err := f.ctrl.sync(context.Background(), "shop")
	if err == nil || !strings.Contains(err.Error(), "discover") {
		t.Fatalf("sync = %v, want a discovery error", err)
	}
	f.server.ExpectActions(t, then(contentPass(), "update namespaces/status shop")...) // no finalize
	c := f.condition(t, "shop", api.NamespaceDeletionDiscoveryFailure)
	if c == nil || c.Status != api.ConditionTrue || c.Reason != "DiscoveryFailed" || !strings.Contains(c.Message, "discovery is down") {
		t.Errorf("NamespaceDeletionDiscoveryFailure = %+v, want True/DiscoveryFailed with the error", c)
	}
	if _, ok := fakeapi.Get[*api.ConfigMap](t, f.server, "shop", "settings"); ok {
		t.Error("the built-in content was not deleted when discovery failed")
	}
}
