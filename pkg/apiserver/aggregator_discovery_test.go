package apiserver

import (
	"encoding/json"
	"testing"
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

// TestMergeGroups: an aggregated version of a group the apiserver serves
// joins that group; a new group is appended.
func TestMergeGroups(t *testing.T) {
	v := func(gv, version string) groupVersionForDiscovery {
		return groupVersionForDiscovery{GroupVersion: gv, Version: version}
	}
	local := []apiGroup{{Name: "apps", Versions: []groupVersionForDiscovery{v("apps/v1", "v1")}, PreferredVersion: v("apps/v1", "v1")}}
	aggregated := []apiGroup{
		{Name: "apps", Versions: []groupVersionForDiscovery{v("apps/v2alpha1", "v2alpha1")}},
		{Name: "metrics.k8s.io", Versions: []groupVersionForDiscovery{v("metrics.k8s.io/v1beta1", "v1beta1")}, PreferredVersion: v("metrics.k8s.io/v1beta1", "v1beta1")},
	}
	got := mergeGroups(local, aggregated)
	if len(got) != 2 || len(got[0].Versions) != 2 || got[0].PreferredVersion.Version != "v1" || got[1].Name != "metrics.k8s.io" {
		t.Errorf("merged: %+v", got)
	}
}
