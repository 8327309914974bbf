package endpoints

import (
	"maps"
	"slices"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/informer"
)

// serviceCache is an indexer holding services, as the informer's would.
func serviceCache(t *testing.T, services ...*api.Service) *informer.Lister[*api.Service] {
	t.Helper()
	idx := informer.NewIndexer(informer.MetaNamespaceKeyFunc, informer.StandardIndexers())
	for _, s := range services {
		if err := idx.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	return informer.NewLister[*api.Service](idx, apierrors.Resource{Resource: "services"})
}

func named(name string, selector map[string]string) *api.Service {
	s := testService()
	s.Name, s.Spec.Selector = name, selector
	return s
}

func TestServicesToUpdate(t *testing.T) {
	lister := serviceCache(t,
		named("web", map[string]string{"app": "web"}),
		named("canary", map[string]string{"app": "web", "track": "canary"}),
		named("api", map[string]string{"app": "api"}),
		named("manual", nil), // no selector: never ours
	)
	base := testPod("p", "10.244.1.2")
	next := func(change podOpt) *api.Pod {
		p := api.DeepCopy(base)
		p.ResourceVersion = "2"
		if change != nil {
			change(p)
		}
		return p
	}
	tests := []struct {
		name   string
		newPod *api.Pod
		want   []string
	}{
		{"resync (same resourceVersion)", api.DeepCopy(base), nil},
		{"annotation only", next(func(p *api.Pod) { p.Annotations = map[string]string{"x": "y"} }), nil},
		{"became not ready", next(notReady), []string{"default/web"}},
		{"marked for deletion", next(terminating), []string{"default/web"}},
		{"new IP", next(func(p *api.Pod) { p.Status.PodIP, p.Status.PodIPs = "10.244.9.9", []api.PodIP{{IP: "10.244.9.9"}} }), []string{"default/web"}},
		{"joined canary: only canary", next(withLabels(map[string]string{"app": "web", "track": "canary"})), []string{"default/canary"}},
		{"moved to api: left web, joined api", next(withLabels(map[string]string{"app": "api"})), []string{"default/api", "default/web"}},
		{"moved and not ready: old and new", next(func(p *api.Pod) {
			p.Labels = map[string]string{"app": "web", "track": "canary"}
			notReady(p)
		}), []string{"default/canary", "default/web"}},
	}
	for _, tc := range tests {
		got, err := servicesToUpdate(lister.Namespace("default"), base, tc.newPod)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, tc.want) {
			t.Errorf("%s: services %v, want %v", tc.name, keys, tc.want)
		}
	}
}

func TestServicesForPodStaysInNamespace(t *testing.T) {
	elsewhere := named("web", map[string]string{"app": "web"})
	elsewhere.Namespace = "other"
	lister := serviceCache(t, named("web", map[string]string{"app": "web"}), elsewhere)
	got, err := servicesForPod(lister.Namespace("default"), testPod("p", "10.244.1.2"))
	if err != nil {
		t.Fatal(err)
	}
	if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, []string{"default/web"}) {
		t.Fatalf("services %v, want [default/web]", keys)
	}
}
