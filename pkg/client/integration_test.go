package client_test

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/test/framework"
)

// These tests drive a real in-process apiserver on a temp etcd through the
// admin kubeconfig it writes, the way every kplane component connects.

func newClient(t *testing.T, a *framework.APIServer, configure func(*client.Config)) *client.Client {
	t.Helper()
	cfg, err := client.ConfigFromKubeconfig(a.KubeconfigPath(), "")
	if err != nil {
		t.Fatalf("ConfigFromKubeconfig: %v", err)
	}
	cfg.UserAgent = "kplane-client-test"
	cfg.Logger = slog.New(slog.DiscardHandler)
	if configure != nil {
		configure(cfg)
	}
	c, err := client.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

func configMap(name string, labels map[string]string, data map[string]string) *api.ConfigMap {
	return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: name, Labels: labels}, Data: data}
}

func testPod(name string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
	}
}

func testDeployment(name string, replicas int32) *api.Deployment {
	labels := map[string]string{"app": name}
	return &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: name},
		Spec: api.DeploymentSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: labels},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
			},
		},
	}
}

func TestTypedVerbsAgainstAPIServer(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a, nil)
	ctx := context.Background()
	cms := c.ConfigMaps("default")

	created, err := cms.Create(ctx, configMap("web", map[string]string{"app": "web"}, map[string]string{"k": "v1"}), client.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if created.UID == "" || created.ResourceVersion == "" || created.Namespace != "default" {
		t.Fatalf("created object lacks server fields: %+v", created.ObjectMeta)
	}
	if _, err := cms.Create(ctx, configMap("web", nil, nil), client.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Errorf("second Create = %v, want AlreadyExists", err)
	}
	if _, err := cms.Create(ctx, configMap("other", map[string]string{"app": "other"}, nil), client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	got, err := cms.Get(ctx, "web", client.GetOptions{})
	if err != nil || got.Data["k"] != "v1" || got.UID != created.UID {
		t.Fatalf("Get = %+v, %v", got, err)
	}

	list, err := cms.List(ctx, client.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "web" || list.ResourceVersion == "" {
		t.Errorf("List app=web = %d items at rv %q", len(list.Items), list.ResourceVersion)
	}

	// Update is a compare-and-swap on resourceVersion.
	got.Data["k"] = "v2"
	updated, err := cms.Update(ctx, got, client.UpdateOptions{})
	if err != nil || updated.Data["k"] != "v2" || updated.ResourceVersion == got.ResourceVersion {
		t.Fatalf("Update = %+v, %v", updated, err)
	}
	got.Data["k"] = "stale"
	if _, err := cms.Update(ctx, got, client.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("Update with a stale resourceVersion = %v, want Conflict", err)
	}

	patches := []struct {
		pt   client.PatchType
		body string
		key  string
		want string
	}{
		{client.MergePatchType, `{"data":{"merge":"yes"}}`, "merge", "yes"},
		{client.JSONPatchType, `[{"op":"add","path":"/data/json","value":"yes"}]`, "json", "yes"},
		{client.StrategicMergePatchType, `{"data":{"smp":"yes"}}`, "smp", "yes"},
	}
	for _, p := range patches {
		patched, err := cms.Patch(ctx, "web", p.pt, []byte(p.body), client.PatchOptions{})
		if err != nil || patched.Data[p.key] != p.want || patched.Data["k"] != "v2" {
			t.Errorf("Patch %s = %v, %v", p.pt, patched.Data, err)
		}
	}

	// Dry run goes through admission but stores nothing.
	if _, err := cms.Create(ctx, configMap("dry", nil, nil), client.CreateOptions{DryRun: true}); err != nil {
		t.Errorf("dry-run Create: %v", err)
	}
	if _, err := cms.Get(ctx, "dry", client.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Get after dry run = %v, want NotFound", err)
	}

	// generateName: the server picks the name.
	generated, err := cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{GenerateName: "gen-"}}, client.CreateOptions{})
	if err != nil || !strings.HasPrefix(generated.Name, "gen-") || len(generated.Name) <= len("gen-") {
		t.Errorf("generateName Create = %q, %v", generated.Name, err)
	}

	// A client without a namespace writes into the object's own namespace.
	anyNS := client.For[*api.ConfigMap](c, client.ConfigMapsResource)
	inKubeSystem := configMap("elsewhere", nil, nil)
	inKubeSystem.Namespace = "kube-system"
	if cm, err := anyNS.Create(ctx, inKubeSystem, client.CreateOptions{}); err != nil || cm.Namespace != "kube-system" {
		t.Errorf("Create via the object's namespace = %v, %v", cm, err)
	}
	all, err := anyNS.List(ctx, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	namespaces := map[string]bool{}
	for _, cm := range all.Items {
		namespaces[cm.Namespace] = true
	}
	if !namespaces["default"] || !namespaces["kube-system"] {
		t.Errorf("List across namespaces saw %v", namespaces)
	}
	if _, err := anyNS.Get(ctx, "web", client.GetOptions{}); err == nil {
		t.Error("Get of a namespaced object without a namespace was sent")
	}

	if err := cms.Delete(ctx, "web", client.DeleteOptions{}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := cms.Get(ctx, "web", client.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Get after Delete = %v, want NotFound", err)
	}
	if err := cms.Delete(ctx, "web", client.DeleteOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("second Delete = %v, want NotFound", err)
	}

	if err := cms.DeleteCollection(ctx, client.DeleteOptions{}, client.ListOptions{LabelSelector: "app=other"}); err != nil {
		t.Fatalf("DeleteCollection: %v", err)
	}
	if _, err := cms.Get(ctx, "other", client.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Get after DeleteCollection = %v, want NotFound", err)
	}
	if _, err := cms.Get(ctx, generated.Name, client.GetOptions{}); err != nil {
		t.Errorf("DeleteCollection with a selector removed a non-matching object: %v", err)
	}
}

func TestTypedErrorsAgainstAPIServer(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a, nil)
	ctx := context.Background()

	_, err := c.Pods("default").Get(ctx, "missing", client.GetOptions{})
	if !apierrors.IsNotFound(err) || err.Error() != `pods "missing" not found` {
		t.Errorf("Get missing = %v, want NotFound with upstream's message", err)
	}
	invalid := configMap("Not_A_DNS_Name", nil, nil)
	if _, err := c.ConfigMaps("default").Create(ctx, invalid, client.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("Create with a bad name = %v, want Invalid", err)
	}
	if _, err := c.Nodes().Patch(ctx, "n", "application/nonsense", []byte(`{}`), client.PatchOptions{}); apierrors.CodeOf(err) != 415 {
		t.Errorf("Patch with a bad type = %v, want 415", err)
	}

	noToken := newClient(t, a, func(cfg *client.Config) {
		cfg.Token = "not-a-token"
		cfg.MaxRetries = -1
	})
	if _, err := noToken.Pods("default").List(ctx, client.ListOptions{}); !apierrors.IsUnauthorized(err) {
		t.Errorf("List with a bad token = %v, want Unauthorized", err)
	}

	code, body, err := c.Do(ctx, "GET", "/version", nil, nil)
	if err != nil || code != 200 || !strings.Contains(string(body), "gitVersion") {
		t.Errorf("Do /version = %d %s %v", code, body, err)
	}
}

func TestSubresourcesAgainstAPIServer(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a, nil)
	ctx := context.Background()

	// status: UpdateStatus changes status only, Update changes spec only.
	pod, err := c.Pods("default").Create(ctx, testPod("web-0"), client.CreateOptions{})
	if err != nil {
		t.Fatalf("create pod: %v", err)
	}
	pod.Status.Phase = api.PodRunning
	pod.Spec.ActiveDeadlineSeconds = new(int64(60))
	pod, err = c.Pods("default").UpdateStatus(ctx, pod, client.UpdateOptions{})
	if err != nil {
		t.Fatalf("UpdateStatus: %v", err)
	}
	if pod.Status.Phase != api.PodRunning || pod.Spec.ActiveDeadlineSeconds != nil {
		t.Errorf("after UpdateStatus: phase %q, spec change kept %v", pod.Status.Phase, pod.Spec.ActiveDeadlineSeconds)
	}
	statusPatched, err := c.Pods("default").Patch(ctx, "web-0", client.MergePatchType,
		[]byte(`{"status":{"message":"hello"}}`), client.PatchOptions{}, "status")
	if err != nil || statusPatched.Status.Message != "hello" {
		t.Errorf("Patch status = %v, %v", statusPatched.Status.Message, err)
	}

	// binding: the scheduler's write.
	binding := &api.Binding{ObjectMeta: api.ObjectMeta{Name: "web-0", Namespace: "default"},
		Target: api.ObjectReference{Kind: "Node", Name: "node-1"}}
	if err := c.Bind(ctx, binding); err != nil {
		t.Fatalf("Bind: %v", err)
	}
	if got, _ := c.Pods("default").Get(ctx, "web-0", client.GetOptions{}); got.Spec.NodeName != "node-1" {
		t.Errorf("after Bind nodeName = %q", got.Spec.NodeName)
	}
	if err := c.Bind(ctx, binding); !apierrors.IsConflict(err) {
		t.Errorf("second Bind = %v, want Conflict", err)
	}

	// scale: read and write replicas of a Deployment.
	if _, err := c.Deployments("default").Create(ctx, testDeployment("web", 2), client.CreateOptions{}); err != nil {
		t.Fatalf("create deployment: %v", err)
	}
	scale, err := c.GetScale(ctx, client.DeploymentsResource, "default", "web")
	if err != nil || scale.Spec.Replicas != 2 || scale.Status.Selector != "app=web" {
		t.Fatalf("GetScale = %+v, %v", scale, err)
	}
	scale.Spec.Replicas = 5
	scaled, err := c.UpdateScale(ctx, client.DeploymentsResource, "default", scale)
	if err != nil || scaled.Spec.Replicas != 5 {
		t.Fatalf("UpdateScale = %+v, %v", scaled, err)
	}
	if d, _ := c.Deployments("default").Get(ctx, "web", client.GetOptions{}); d.Spec.Replicas == nil || *d.Spec.Replicas != 5 {
		t.Errorf("deployment replicas after UpdateScale = %v", d.Spec.Replicas)
	}
	scale.Spec.Replicas = 7 // scale.ResourceVersion is now stale
	if _, err := c.UpdateScale(ctx, client.DeploymentsResource, "default", scale); !apierrors.IsConflict(err) {
		t.Errorf("UpdateScale with a stale resourceVersion = %v, want Conflict", err)
	}
}

// receive returns the next event or fails after a generous guard.
func receive[E any](t *testing.T, ch <-chan E) (E, bool) {
	t.Helper()
	select {
	case ev, ok := <-ch:
		return ev, ok
	case <-time.After(15 * time.Second):
		t.Fatal("no watch event within 15 s")
	}
	var zero E
	return zero, false
}

func TestWatchAgainstAPIServer(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a, nil)
	ctx := context.Background()
	cms := c.ConfigMaps("default")

	list, err := cms.List(ctx, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cms.Watch(ctx, client.ListOptions{ResourceVersion: list.ResourceVersion, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()

	cm, err := cms.Create(ctx, configMap("watched", nil, map[string]string{"k": "1"}), client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["k"] = "2"
	if _, err := cms.Update(ctx, cm, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(ctx, "watched", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	var lastRV int64
	for _, want := range []struct {
		typ  client.EventType
		data string
	}{{client.Added, "1"}, {client.Modified, "2"}, {client.Deleted, "2"}} {
		var ev client.Event
		for { // bookmarks may come in between
			ev, _ = receive(t, w.ResultChan())
			if ev.Type != client.Bookmark {
				break
			}
		}
		got, ok := ev.Object.(*api.ConfigMap)
		if ev.Type != want.typ || !ok || got.Name != "watched" || got.Data["k"] != want.data {
			t.Fatalf("event = %s %#v, want %s watched k=%s", ev.Type, ev.Object, want.typ, want.data)
		}
		rv, _ := strconv.ParseInt(got.ResourceVersion, 10, 64)
		if rv <= lastRV {
			t.Errorf("%s at resourceVersion %d, not after %d", ev.Type, rv, lastRV)
		}
		lastRV = rv
	}

	// A change elsewhere in the store moves the revision on without an
	// event for this watch; a bookmark then says how far the stream has come.
	other, err := c.Secrets("default").Create(ctx, &api.Secret{ObjectMeta: api.ObjectMeta{Name: "elsewhere"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	otherRV, _ := strconv.ParseInt(other.ResourceVersion, 10, 64)
	for {
		ev, ok := receive(t, w.ResultChan())
		if !ok {
			t.Fatal("watch closed before a bookmark arrived")
		}
		if ev.Type != client.Bookmark {
			continue
		}
		bm, isCM := ev.Object.(*api.ConfigMap)
		if !isCM || bm.ResourceVersion == "" || bm.Name != "" {
			t.Fatalf("bookmark = %#v, want a ConfigMap carrying only a resourceVersion", ev.Object)
		}
		rv, _ := strconv.ParseInt(bm.ResourceVersion, 10, 64)
		if rv <= lastRV {
			t.Errorf("bookmark at %d, not after the last event at %d", rv, lastRV)
		}
		if rv >= otherRV {
			break
		}
	}

	w.Stop()
	if _, ok := receive(t, w.ResultChan()); ok {
		t.Error("ResultChan still open after Stop")
	}
}

func TestWatchExpiredAgainstAPIServer(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a, nil)
	ctx := context.Background()
	cms := c.ConfigMaps("default")

	first, err := cms.Create(ctx, configMap("a", nil, nil), client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := cms.Patch(ctx, "a", client.MergePatchType, []byte(`{"data":{"i":"`+strconv.Itoa(i)+`"}}`), client.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	rev, err := a.Store().CurrentRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Store().Compact(ctx, rev); err != nil {
		t.Fatalf("compact: %v", err)
	}

	w, err := cms.Watch(ctx, client.ListOptions{ResourceVersion: first.ResourceVersion})
	if err != nil {
		// A server may also refuse the watch outright; either way it is 410.
		if !apierrors.IsGone(err) {
			t.Fatalf("Watch from a compacted revision = %v, want Gone", err)
		}
		return
	}
	defer w.Stop()
	ev, _ := receive(t, w.ResultChan())
	if ev.Type != client.Error || !apierrors.IsGone(ev.Err) || apierrors.ReasonOf(ev.Err) != apierrors.ReasonExpired {
		t.Fatalf("event = %+v, want ERROR 410 Expired", ev)
	}
	if _, ok := receive(t, w.ResultChan()); ok {
		t.Error("watch still open after its ERROR event")
	}
}

func TestWatchEndsOnContextCancel(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a, nil)
	ctx, cancel := context.WithCancel(context.Background())
	w, err := c.Namespaces().Watch(ctx, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// From resourceVersion "": the existing namespaces arrive first.
	if ev, _ := receive(t, w.ResultChan()); ev.Type != client.Added {
		t.Fatalf("first event = %+v, want ADDED", ev)
	}
	cancel()
	for {
		if _, ok := receive(t, w.ResultChan()); !ok {
			break
		}
	}
	w.Stop() // after the end, Stop returns at once
}

func TestDynamicAgainstAPIServer(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a, nil)
	ctx := context.Background()
	deployments := c.Dynamic(client.DeploymentsResource).Namespace("default")

	list, err := deployments.List(ctx, client.ListOptions{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	w, err := deployments.Watch(ctx, client.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()

	obj := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "dyn", "labels": map[string]any{"app": "dyn"}},
		"spec": map[string]any{
			"replicas": 3,
			"selector": map[string]any{"matchLabels": map[string]any{"app": "dyn"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "dyn"}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx"}}},
			},
		},
	}
	created, err := deployments.Create(ctx, obj, client.CreateOptions{FieldValidation: "Strict"})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	spec := created["spec"].(map[string]any)
	if spec["replicas"] != int64(3) || spec["revisionHistoryLimit"] != int64(10) {
		t.Errorf("created spec replicas %#v, revisionHistoryLimit %#v (want int64 3 and defaulted 10)", spec["replicas"], spec["revisionHistoryLimit"])
	}

	got, err := deployments.Get(ctx, "dyn", client.GetOptions{})
	if err != nil || got["metadata"].(map[string]any)["uid"] == "" {
		t.Fatalf("Get = %v, %v", got, err)
	}
	got["spec"].(map[string]any)["replicas"] = 4
	updated, err := deployments.Update(ctx, got, client.UpdateOptions{})
	if err != nil || updated["spec"].(map[string]any)["replicas"] != int64(4) {
		t.Fatalf("Update = %v, %v", updated["spec"], err)
	}
	if _, err := deployments.Update(ctx, got, client.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("stale Update = %v, want Conflict", err)
	}
	patched, err := deployments.Patch(ctx, "dyn", client.MergePatchType, []byte(`{"spec":{"replicas":5}}`), client.PatchOptions{})
	if err != nil || patched["spec"].(map[string]any)["replicas"] != int64(5) {
		t.Fatalf("Patch = %v, %v", patched["spec"], err)
	}

	list, err = deployments.List(ctx, client.ListOptions{LabelSelector: "app=dyn"})
	if err != nil || len(list.Items) != 1 || list.ResourceVersion == "" || list.Items[0]["metadata"].(map[string]any)["name"] != "dyn" {
		t.Fatalf("List = %+v, %v", list, err)
	}

	if err := deployments.Delete(ctx, "dyn", client.DeleteOptions{}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := deployments.Get(ctx, "dyn", client.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Get after Delete = %v", err)
	}

	for _, want := range []client.EventType{client.Added, client.Modified, client.Modified, client.Deleted} {
		ev, ok := receive(t, w.ResultChan())
		if !ok || ev.Type != want || ev.Object["kind"] != "Deployment" {
			t.Fatalf("dynamic event = %s %v, want %s of a Deployment", ev.Type, ev.Object["kind"], want)
		}
	}
}

func TestRateLimitAgainstAPIServer(t *testing.T) {
	a := framework.StartAPIServer(t)
	clk := clock.NewFake(time.Now())
	c := newClient(t, a, func(cfg *client.Config) {
		cfg.QPS, cfg.Burst, cfg.Clock = 1, 2, clk
	})
	ctx := context.Background()
	get := func() error {
		_, err := c.Namespaces().Get(ctx, "default", client.GetOptions{})
		return err
	}
	// The burst goes out at once.
	for i := range 2 {
		if err := get(); err != nil {
			t.Fatalf("request %d of the burst: %v", i, err)
		}
	}
	// The third waits for a token, earned one (fake) second later.
	done := make(chan error, 1)
	go func() { done <- get() }()
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		return clk.Waiters() == 1, "third request is not waiting on the rate limiter"
	})
	select {
	case err := <-done:
		t.Fatalf("third request went out without a token (err %v)", err)
	default:
	}
	clk.Step(time.Second)
	if err := <-done; err != nil {
		t.Fatalf("third request: %v", err)
	}

	// A caller that gives up while throttled gets its context's error.
	cctx, cancel := context.WithCancel(ctx)
	go func() { _, err := c.Namespaces().Get(cctx, "default", client.GetOptions{}); done <- err }()
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		return clk.Waiters() == 1, "request is not waiting on the rate limiter"
	})
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("throttled request after cancel = %v, want context.Canceled", err)
	}
}
