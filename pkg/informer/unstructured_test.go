package informer

import (
	"encoding/json"
	"reflect"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/test/framework"
)

func TestUnstructuredJSONKeepsMetadataTypedAndNumbersWhole(t *testing.T) {
	in := `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns","uid":"u1",` +
		`"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"cm","uid":"u0"}]},` +
		`"spec":{"replicas":3,"ratio":0.5,"tags":["a"]}}`
	var u Unstructured
	if err := json.Unmarshal([]byte(in), &u); err != nil {
		t.Fatal(err)
	}
	if u.APIVersion != "example.com/v1" || u.Kind != "Widget" || u.Name != "w" || u.Namespace != "ns" || len(u.OwnerReferences) != 1 {
		t.Fatalf("typed part = %+v %+v", u.TypeMeta, u.ObjectMeta)
	}
	want := map[string]any{"spec": map[string]any{"replicas": int64(3), "ratio": 0.5, "tags": []any{"a"}}}
	if !reflect.DeepEqual(u.Content, want) {
		t.Fatalf("Content = %#v, want %#v", u.Content, want)
	}
	out, err := json.Marshal(&u)
	if err != nil {
		t.Fatal(err)
	}
	var again Unstructured
	if err := json.Unmarshal(out, &again); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, u) {
		t.Fatalf("round trip changed the object:\n%#v\n%#v", again, u)
	}
	copied := api.DeepCopy(&u)
	copied.Content["spec"].(map[string]any)["replicas"] = int64(4)
	if u.Content["spec"].(map[string]any)["replicas"] != int64(3) {
		t.Fatal("DeepCopy shares Content with the original")
	}
	if err := json.Unmarshal([]byte(`null`), &again); err == nil {
		t.Fatal("null decoded without an error")
	}
}

// A dynamic informer asked for after the factory started is started by
// the next Start and caches objects as *Unstructured; once removed, the
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
