package restmapper

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"kplane/pkg/client"
	"kplane/test/framework"
)

// discovered is what kplane's apiserver serves, abridged, plus a second
// version of one group to check that unqualified names only see preferred
// versions.
var discovered = []APIResource{
	{Version: "v1", Name: "pods", SingularName: "pod", Kind: "Pod", ShortNames: []string{"po"}, Namespaced: true, Categories: []string{"all"}, Preferred: true},
	{Version: "v1", Name: "services", SingularName: "service", Kind: "Service", ShortNames: []string{"svc"}, Namespaced: true, Categories: []string{"all"}, Preferred: true},
	{Version: "v1", Name: "namespaces", SingularName: "namespace", Kind: "Namespace", ShortNames: []string{"ns"}, Preferred: true},
	{Version: "v1", Name: "configmaps", SingularName: "configmap", Kind: "ConfigMap", ShortNames: []string{"cm"}, Namespaced: true, Preferred: true},
	{Group: "apps", Version: "v1", Name: "deployments", SingularName: "deployment", Kind: "Deployment", ShortNames: []string{"deploy"}, Namespaced: true, Categories: []string{"all"}, Preferred: true},
	{Group: "apps", Version: "v1", Name: "statefulsets", SingularName: "statefulset", Kind: "StatefulSet", ShortNames: []string{"sts"}, Namespaced: true, Categories: []string{"all"}, Preferred: true},
	{Group: "autoscaling", Version: "v2", Name: "horizontalpodautoscalers", SingularName: "horizontalpodautoscaler", Kind: "HorizontalPodAutoscaler", ShortNames: []string{"hpa"}, Namespaced: true, Categories: []string{"all"}, Preferred: true},
	{Group: "autoscaling", Version: "v1", Name: "horizontalpodautoscalers", SingularName: "horizontalpodautoscaler", Kind: "HorizontalPodAutoscaler", ShortNames: []string{"hpa"}, Namespaced: true, Categories: []string{"all"}},
	{Group: "batch", Version: "v1", Name: "jobs", SingularName: "job", Kind: "Job", Namespaced: true, Categories: []string{"all"}, Preferred: true},
}

func TestResourceFor(t *testing.T) {
	m := New(discovered)
	tests := []struct {
		arg, wantGroupResource, wantVersion string
	}{
		{"po", "pods", "v1"},
		{"pods", "pods", "v1"},
		{"pod", "pods", "v1"},
		{"Pod", "pods", "v1"},
		{"PODS", "pods", "v1"},
		{"svc", "services", "v1"},
		{"ns", "namespaces", "v1"},
		{"deploy", "deployments.apps", "v1"},
		{"deployments.apps", "deployments.apps", "v1"},
		{"deploy.apps", "deployments.apps", "v1"},
		{"Deployment.apps", "deployments.apps", "v1"},
		{"deployments.v1.apps", "deployments.apps", "v1"},
		{"sts", "statefulsets.apps", "v1"},
		{"hpa", "horizontalpodautoscalers.autoscaling", "v2"},
		{"hpa.v1.autoscaling", "horizontalpodautoscalers.autoscaling", "v1"},
		{"jobs.batch", "jobs.batch", "v1"},
	}
	for _, tt := range tests {
		r, err := m.ResourceFor(tt.arg)
		if err != nil {
			t.Errorf("ResourceFor(%q): %v", tt.arg, err)
			continue
		}
		if r.GroupResource() != tt.wantGroupResource || r.Version != tt.wantVersion {
			t.Errorf("ResourceFor(%q) = %s %s, want %s %s", tt.arg, r.GroupResource(), r.Version, tt.wantGroupResource, tt.wantVersion)
		}
	}

	for arg, want := range map[string]string{
		"foo":                 `the server doesn't have a resource type "foo"`,
		"pods.apps":           `the server doesn't have a resource type "pods" in group "apps"`,
		"deployments.v9.apps": `the server doesn't have a resource type "deployments" in group "v9.apps"`,
	} {
		_, err := m.ResourceFor(arg)
		var noMatch *NoResourceMatchError
		if !errors.As(err, &noMatch) || err.Error() != want {
			t.Errorf("ResourceFor(%q) error = %v, want %q", arg, err, want)
		}
	}
}

func TestKindForAndCategories(t *testing.T) {
	m := New(discovered)
	r, err := m.KindFor("apps/v1", "Deployment")
	if err != nil || r.Name != "deployments" {
		t.Errorf("KindFor(apps/v1, Deployment) = %+v, %v", r, err)
	}
	if _, err := m.KindFor("example.com/v1", "Widget"); err == nil || err.Error() != `no matches for kind "Widget" in version "example.com/v1"` {
		t.Errorf("KindFor(unknown) error = %v", err)
	}
	var all []string
	for _, r := range m.Category("all") {
		all = append(all, r.GroupResource())
	}
	want := "[pods services deployments.apps statefulsets.apps horizontalpodautoscalers.autoscaling jobs.batch]"
	if got := fmtList(all); got != want {
		t.Errorf("Category(all) = %s, want %s", got, want)
	}
}

func TestNamesAndPaths(t *testing.T) {
	m := New(discovered)
	deploy, _ := m.ResourceFor("deploy")
	pod, _ := m.ResourceFor("po")
	ns, _ := m.ResourceFor("ns")
	for got, want := range map[string]string{
		deploy.KindName():             "deployment.apps",
		pod.KindName():                "pod",
		deploy.Path("default", "web"): "/apis/apps/v1/namespaces/default/deployments/web",
		deploy.Path("", ""):           "/apis/apps/v1/deployments",
		pod.Path("kube-system", ""):   "/api/v1/namespaces/kube-system/pods",
		ns.Path("default", "default"): "/api/v1/namespaces/default",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func fmtList(s []string) string {
	out := "["
	for i, v := range s {
		if i > 0 {
			out += " "
		}
		out += v
	}
	return out + "]"
}

// TestDiscoverFromAPIServer reads kplane's own (aggregated) discovery.
func TestDiscoverFromAPIServer(t *testing.T) {
	a := framework.StartAPIServer(t)
	m, err := Discover(context.Background(), a.Client(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	checkDiscovered(t, m)
}

// TestDiscoverLegacy reads the legacy documents from a server that does
// not know the aggregated form.
func TestDiscoverLegacy(t *testing.T) {
	docs := map[string]string{
		"/api":          `{"kind":"APIVersions","versions":["v1"]}`,
		"/api/v1":       `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","list"],"shortNames":["po"],"categories":["all"]},{"name":"pods/status","namespaced":true,"kind":"Pod","verbs":["get"]}]}`,
		"/apis":         `{"kind":"APIGroupList","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]}`,
		"/apis/apps/v1": `{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get"],"shortNames":["deploy"]}]}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, doc)
	}))
	defer srv.Close()
	c, err := client.New(&client.Config{Host: srv.URL, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Discover(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.Resources()); got != 2 {
		t.Errorf("found %d resources, want 2 (subresources left out): %+v", got, m.Resources())
	}
	checkDiscovered(t, m)
}

func checkDiscovered(t *testing.T, m *Mapper) {
	t.Helper()
	for arg, want := range map[string]string{"po": "pods", "deploy": "deployments.apps", "Deployment": "deployments.apps"} {
		r, err := m.ResourceFor(arg)
		if err != nil || r.GroupResource() != want {
			t.Errorf("ResourceFor(%q) = %s, %v; want %s", arg, r.GroupResource(), err, want)
		}
	}
	pods, _ := m.ResourceFor("pods")
	if !pods.Namespaced || pods.Kind != "Pod" || !pods.HasVerb("get") || len(pods.Categories) == 0 {
		t.Errorf("pods = %+v", pods)
	}
}
