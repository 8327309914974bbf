package informer

import (
	"reflect"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// A dynamic informer asked for after the factory started is started by
// the next Start and caches objects as *api.CustomObject; once removed, the
// next request builds a new one.
func TestDynamicInformerStartsLateAndStopsWhenRemoved(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newTestClient(t, a)
	ctx := t.Context()
	f := NewSharedInformerFactory(c, 0, WithLogger(quietLogger))
	f.Pods()
	f.Start(ctx)
	defer f.Shutdown()

	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "first", Namespace: "default"}, Data: map[string]string{"k": "v"}}
	if _, err := c.ConfigMaps("default").Create(ctx, cm, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dynamic := f.ForDynamicResource(client.ConfigMapsResource)
	if again := f.ForDynamicResource(client.ConfigMapsResource); again.Informer() != dynamic.Informer() {
		t.Fatal("a second request built a second informer")
	}
	rec := newKeyRecorder()
	if _, err := dynamic.Informer().AddEventHandler(rec); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	waitFor(t, "the dynamic informer's handler sees the configmap", func() bool { return len(rec.events("default/first")) > 0 })
	if !f.WaitForCacheSync(ctx)[client.ConfigMapsResource] {
		t.Fatal("the dynamic informer added after Start did not sync")
	}
	got, err := dynamic.Lister().Namespace("default").Get("first")
	if err != nil {
		t.Fatal(err)
	}
	if got.Kind != "ConfigMap" || !reflect.DeepEqual(got.Content["data"], map[string]any{"k": "v"}) {
		t.Fatalf("cached object = %+v", got)
	}

	f.RemoveInformer(client.ConfigMapsResource)
	cm2 := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "second", Namespace: "default"}}
	if _, err := c.ConfigMaps("default").Create(ctx, cm2, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A fresh informer for the same resource, with its own cache.
	fresh := f.ForDynamicResource(client.ConfigMapsResource)
	if fresh.Informer() == dynamic.Informer() {
		t.Fatal("RemoveInformer kept the old informer")
	}
	f.Start(ctx)
	if !f.WaitForCacheSync(ctx)[client.ConfigMapsResource] {
		t.Fatal("the new informer did not sync")
	}
	if _, err := fresh.Lister().Namespace("default").Get("second"); err != nil {
		t.Fatal(err)
	}
}

// One resource has one informer of one Go type: BuiltinInformer hands out
// the typed accessor's informer, and asking for a typed resource again as
// a dynamic one panics rather than give a lister that fails on every
// object.
func TestOneResourceOneInformerType(t *testing.T) {
	f := NewSharedInformerFactory(nil, 0, WithLogger(quietLogger))
	leases, ok := f.BuiltinInformer(client.LeasesResource)
	if !ok || leases != f.Leases().Informer() {
		t.Fatalf("BuiltinInformer(leases) = %v, %v; want the Leases() informer", leases, ok)
	}
	if _, ok := f.BuiltinInformer(client.APIServicesResource); ok {
		t.Error("BuiltinInformer(apiservices) found a typed informer; there is no accessor for it")
	}
	defer func() {
		if recover() == nil {
			t.Error("ForDynamicResource(leases) after Leases() did not panic")
		}
	}()
	f.ForDynamicResource(client.LeasesResource)
}
