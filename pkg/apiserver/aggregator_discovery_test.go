package apiserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/store"
	"kplane/pkg/store/cache"
)

// TestToDiscoveryResources: a legacy APIResourceList becomes the aggregated
// form — scope from namespaced, a singular name from the kind when the list
// has none, "<resource>/<subresource>" entries under their resource with
// their own response kind, and an orphan subresource dropped.
func TestToDiscoveryResources(t *testing.T) {
	list := []apiResource{
		{Name: "pods", Namespaced: true, Kind: "PodMetrics", Verbs: []string{"get", "list"}},
		{Name: "nodes", SingularName: "node", Kind: "NodeMetrics"},
		{Name: "pods/status", Namespaced: true, Kind: "PodMetrics", Verbs: []string{"get"}},
		{Name: "pods/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{"get"}},
		{Name: "widgets/status", Kind: "Widget"},
	}
	got, _ := json.Marshal(toDiscoveryResources("metrics.k8s.io", "v1beta1", list))
	want := `[{"resource":"pods","responseKind":{"group":"metrics.k8s.io","version":"v1beta1","kind":"PodMetrics"},"scope":"Namespaced","singularResource":"podmetrics","verbs":["get","list"],` +
		`"subresources":[{"subresource":"status","responseKind":{"group":"metrics.k8s.io","version":"v1beta1","kind":"PodMetrics"},"verbs":["get"]},` +
		`{"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"},"verbs":["get"]}]},` +
		`{"resource":"nodes","responseKind":{"group":"metrics.k8s.io","version":"v1beta1","kind":"NodeMetrics"},"scope":"Cluster","singularResource":"node","verbs":[]}]`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestDiscoveryAddsAvailableBackends: the available backends' group/versions
// follow the apiserver's own in /apis, legacy and aggregated, in upstream's
// order (group priority, then version priority, highest first); a version
// of a group served here joins that group and leaves its preferred version
// alone; an unavailable backend is not listed.
func TestDiscoveryAddsAvailableBackends(t *testing.T) {
	s := &Server{reg: newRegistry(builtinResources())}
	s.aggregator = newAggregator(s, 0)
	aggregated := func(group, version string, versionPriority int32, available bool) *backend {
		b := &backend{apiService: &api.APIService{Spec: api.APIServiceSpec{Group: group, Version: version,
			GroupPriorityMinimum: 100, VersionPriority: versionPriority}}}
		if available {
			b.resources = &apiResourceList{GroupVersion: group + "/" + version, Resources: []apiResource{{Name: "widgets", Kind: "Widget"}}}
			b.discovery = toDiscoveryResources(group, version, b.resources.Resources)
		}
		return b
	}
	s.aggregator.backends.Store(newBackendSet(map[string]*backend{
		"apps/v2alpha1":           aggregated("apps", "v2alpha1", 10, true),
		"metrics.k8s.io/v1alpha1": aggregated("metrics.k8s.io", "v1alpha1", 5, true),
		"metrics.k8s.io/v1beta1":  aggregated("metrics.k8s.io", "v1beta1", 20, true),
		"example.com/v1":          aggregated("example.com", "v1", 15, false),
	}))

	var legacy []string
	for _, g := range s.groups() {
		if g.Name == "apps" || g.Name == "metrics.k8s.io" || g.Name == "example.com" {
			versions := make([]string, len(g.Versions))
			for i, v := range g.Versions {
				versions[i] = v.GroupVersion
			}
			legacy = append(legacy, fmt.Sprintf("%s%v preferred %s", g.Name, versions, g.PreferredVersion.GroupVersion))
		}
	}
	wantLegacy := []string{"apps[apps/v1 apps/v2alpha1] preferred apps/v1", "metrics.k8s.io[metrics.k8s.io/v1beta1 metrics.k8s.io/v1alpha1] preferred metrics.k8s.io/v1beta1"}
	if !reflect.DeepEqual(legacy, wantLegacy) {
		t.Errorf("groups(): %q, want %q", legacy, wantLegacy)
	}
	if groups := s.groups(); groups[len(groups)-1].Name != "metrics.k8s.io" {
		t.Errorf("groups(): the last group is %s, want metrics.k8s.io after the apiserver's own", groups[len(groups)-1].Name)
	}

	w := discoveryGet(t, s, "/apis", acceptKubectl132)
	var body struct {
		Items []struct {
			Metadata struct{ Name string }
			Versions []struct {
				Version   string
				Resources []struct{ Resource string }
			}
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	var aggregatedDoc []string
	for _, g := range body.Items {
		for _, v := range g.Versions {
			if len(v.Resources) > 0 && v.Resources[0].Resource == "widgets" {
				aggregatedDoc = append(aggregatedDoc, g.Metadata.Name+"/"+v.Version)
			}
		}
		if g.Metadata.Name == "apps" && (len(g.Versions) != 2 || g.Versions[0].Version != "v1") {
			t.Errorf("aggregated apps versions: %+v, want v1 then v2alpha1", g.Versions)
		}
	}
	wantDoc := []string{"apps/v2alpha1", "metrics.k8s.io/v1beta1", "metrics.k8s.io/v1alpha1"}
	if !reflect.DeepEqual(aggregatedDoc, wantDoc) {
		t.Errorf("aggregated /apis lists the backends' versions %q, want %q", aggregatedDoc, wantDoc)
	}
	if last := body.Items[len(body.Items)-1].Metadata.Name; last != "metrics.k8s.io" {
		t.Errorf("aggregated /apis: the last group is %s, want metrics.k8s.io", last)
	}
}

// TestAggregatorWatchFilters: a status-only APIService change (the
// aggregator's own condition write) and a change to a Service no APIService
// names do not start a check; a spec change and a named Service's change do.
func TestAggregatorWatchFilters(t *testing.T) {
	apiService := func(versionPriority int32, reason string) *storedObject {
		s := &api.APIService{Spec: api.APIServiceSpec{Group: "metrics.k8s.io", Version: "v1beta1", VersionPriority: versionPriority}}
		s.Status.Conditions = []api.APIServiceCondition{{Type: api.APIServiceAvailable, Reason: reason}}
		return &storedObject{obj: s}
	}
	if apiServiceSpecChanged(cache.Event{Type: store.Modified, Object: apiService(10, "Passed"), PrevObject: apiService(10, "ServiceNotFound")}) {
		t.Error("a status-only change counts as a spec change")
	}
	if !apiServiceSpecChanged(cache.Event{Type: store.Modified, Object: apiService(20, "Passed"), PrevObject: apiService(10, "Passed")}) {
		t.Error("a versionPriority change does not count as a spec change")
	}

	a := newAggregator(&Server{}, 0)
	a.services.Store(&map[string]bool{"/registry/services/specs/kube-system/metrics-server": true})
	if !a.checkedService(cache.Event{Type: store.Modified, Key: "/registry/services/specs/kube-system/metrics-server"}) {
		t.Error("a change to the Service an APIService names is ignored")
	}
	if a.checkedService(cache.Event{Type: store.Modified, Key: "/registry/services/specs/default/web"}) {
		t.Error("a change to an unrelated Service starts a check")
	}
}
