package metricsserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/informer"
)

// fixture is an API over two nodes and three pods, with two scrape rounds
// stored 15 s apart: node1 and default/web-1 have metrics; node2 was
// scraped once; default/pending is not running; shop/db-0 is running.
type fixture struct {
	server *httptest.Server
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	nodes := informer.NewIndexer(informer.MetaNamespaceKeyFunc, informer.Indexers{})
	pods := informer.NewIndexer(informer.MetaNamespaceKeyFunc, informer.StandardIndexers())
	for _, n := range []*api.Node{
		{ObjectMeta: api.ObjectMeta{Name: "node1", Labels: map[string]string{"zone": "a"}}},
		{ObjectMeta: api.ObjectMeta{Name: "node2", Labels: map[string]string{"zone": "b"}}},
	} {
		if err := nodes.Add(n); err != nil {
			t.Fatal(err)
		}
	}
	running := api.PodStatus{Phase: api.PodRunning}
	for _, p := range []*api.Pod{
		{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web-1", Labels: map[string]string{"app": "web"}}, Status: running},
		{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "pending", Labels: map[string]string{"app": "web"}}, Status: api.PodStatus{Phase: api.PodPending}},
		{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "db-0", Labels: map[string]string{"app": "db"}}, Status: running},
	} {
		if err := pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	store := NewStore(15 * time.Second)
	round := func(at time.Duration, nodeCPU, webCPU, sidecarCPU, dbCPU float64) map[string]*MetricsBatch {
		n1 := point(at, nodeCPU, 1<<30)
		return map[string]*MetricsBatch{
			"node1": {Node: &n1, Pods: map[PodRef]map[string]MetricsPoint{
				{"default", "web-1"}:   {"web": point(at, webCPU, 200<<20), "sidecar": point(at, sidecarCPU, 10<<20)},
				{"default", "pending"}: {"c": point(at, webCPU, 1<<20)},
				{"shop", "db-0"}:       {"db": point(at, dbCPU, 300<<20)},
			}},
		}
	}
	store.Store(round(0, 100, 10, 1, 50))
	second := round(15*time.Second, 106, 14.5, 1.15, 51.5)
	n2 := point(15*time.Second, 1, 1)
	second["node2"] = &MetricsBatch{Node: &n2} // first point of node2
	store.Store(second)

	now := func() time.Time { return t0.Add(20 * time.Second) }
	a := NewAPI(store, informer.NewLister[*api.Node](nodes, apierrors.Resource{Resource: "nodes"}),
		informer.NewLister[*api.Pod](pods, apierrors.Resource{Resource: "pods"}), now)
	f := &fixture{server: httptest.NewServer(a.Handler())}
	t.Cleanup(f.server.Close)
	return f
}

// get requests path with accept and decodes the JSON answer into out.
func (f *fixture) get(t *testing.T, path, accept string, out any) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, f.server.URL+path, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(body, out); err != nil {
		t.Fatalf("GET %s: %v in %s", path, err, body)
	}
	return resp.StatusCode
}

type nodeList struct {
	Kind       string            `json:"kind"`
	APIVersion string            `json:"apiVersion"`
	Items      []api.NodeMetrics `json:"items"`
}

type podList struct {
	Kind  string           `json:"kind"`
	Items []api.PodMetrics `json:"items"`
}

func TestListNodeMetricsShowsOnlyNodesWithTwoPoints(t *testing.T) {
	f := newFixture(t)
	var list nodeList
	if code := f.get(t, "/apis/metrics.k8s.io/v1beta1/nodes", "", &list); code != 200 {
		t.Fatalf("status %d", code)
	}
	if list.Kind != "NodeMetricsList" || list.APIVersion != "metrics.k8s.io/v1beta1" {
		t.Errorf("kind %s apiVersion %s", list.Kind, list.APIVersion)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "node1" {
		t.Fatalf("items %+v, want node1 only (node2 was scraped once)", list.Items)
	}
	nm := list.Items[0]
	// 6 CPU-seconds over 15 s: 400m.
	if cpu := nm.Usage["cpu"]; cpu.MilliValue() != 400 {
		t.Errorf("cpu %s, want 400m", cpu.String())
	}
	if nm.Window.Duration != 15*time.Second || nm.Labels["zone"] != "a" {
		t.Errorf("window %v labels %v", nm.Window, nm.Labels)
	}
}

func TestPodMetricsListsAndSelectors(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		path string
		want []string
	}{
		{"/apis/metrics.k8s.io/v1beta1/pods", []string{"default/web-1", "shop/db-0"}},
		{"/apis/metrics.k8s.io/v1beta1/namespaces/default/pods", []string{"default/web-1"}},
		{"/apis/metrics.k8s.io/v1beta1/pods?labelSelector=app%3Ddb", []string{"shop/db-0"}},
		{"/apis/metrics.k8s.io/v1beta1/pods?fieldSelector=metadata.namespace%3Dshop", []string{"shop/db-0"}},
		{"/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?fieldSelector=metadata.name%3Dweb-1", []string{"default/web-1"}},
		{"/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Ddb", nil},
	}
	for _, tc := range tests {
		var list podList
		if code := f.get(t, tc.path, "", &list); code != 200 {
			t.Fatalf("%s: status %d", tc.path, code)
		}
		var got []string
		for _, pm := range list.Items {
			got = append(got, pm.Namespace+"/"+pm.Name)
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestGetPodMetrics(t *testing.T) {
	f := newFixture(t)
	var pm api.PodMetrics
	if code := f.get(t, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web-1", "", &pm); code != 200 {
		t.Fatalf("status %d", code)
	}
	if pm.Kind != "PodMetrics" || len(pm.Containers) != 2 || pm.Containers[0].Name != "sidecar" {
		t.Fatalf("pod metrics %+v", pm)
	}
	// web: 4.5 CPU-seconds over 15 s = 300m; sidecar 0.15 / 15 = 10m.
	if cpu := pm.Containers[1].Usage["cpu"]; cpu.MilliValue() != 300 {
		t.Errorf("web cpu %s, want 300m", cpu.String())
	}
	if cpu := pm.Containers[0].Usage["cpu"]; cpu.MilliValue() != 10 {
		t.Errorf("sidecar cpu %s, want 10m", cpu.String())
	}
}

func TestMissingMetricsAreNotFound(t *testing.T) {
	f := newFixture(t)
	for path, want := range map[string]string{
		"/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope":    `podmetrics.metrics.k8s.io "nope" not found`,
		"/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/pending": `podmetrics.metrics.k8s.io "pending" not found`,
		"/apis/metrics.k8s.io/v1beta1/nodes/node2":                     `nodemetrics.metrics.k8s.io "node2" not found`,
	} {
		var status api.Status
		if code := f.get(t, path, "", &status); code != 404 {
			t.Errorf("%s: status %d, want 404", path, code)
		}
		if status.Kind != "Status" || status.Reason != "NotFound" || status.Message != want {
			t.Errorf("%s: %+v, want message %q", path, status, want)
		}
	}
}

func TestBadRequests(t *testing.T) {
	f := newFixture(t)
	for path, code := range map[string]int{
		"/apis/metrics.k8s.io/v1beta1/pods?fieldSelector=spec.nodeName%3Dx": 400,
		"/apis/metrics.k8s.io/v1beta1/nodes?labelSelector=%3D%3D%3D":        400,
		"/apis/metrics.k8s.io/v1beta1/nodes?watch=true":                     405,
		"/apis/metrics.k8s.io/v1beta1/deployments":                          404,
	} {
		var status api.Status
		if got := f.get(t, path, "", &status); got != code || status.Kind != "Status" {
			t.Errorf("%s: %d %+v, want %d and a Status", path, got, status, code)
		}
	}
	resp, err := http.Post(f.server.URL+"/apis/metrics.k8s.io/v1beta1/nodes", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
}

func TestTableOutput(t *testing.T) {
	f := newFixture(t)
	var table api.Table
	f.get(t, "/apis/metrics.k8s.io/v1beta1/pods", "application/json;as=Table;v=v1;g=meta.k8s.io, application/json", &table)
	if table.Kind != "Table" {
		t.Fatalf("kind %q, want Table", table.Kind)
	}
	var columns []string
	for _, c := range table.ColumnDefinitions {
		columns = append(columns, c.Name)
	}
	if strings.Join(columns, ",") != "Name,cpu,memory,Window" {
		t.Errorf("columns %v, want upstream's Name,cpu,memory,Window", columns)
	}
	if len(table.Rows) != 2 {
		t.Fatalf("rows %+v", table.Rows)
	}
	// web-1 sums its containers: 300m + 10m, 200Mi + 10Mi.
	want := []any{"web-1", "310m", "210Mi", "15s"}
	for i, cell := range table.Rows[0].Cells {
		if cell != want[i] {
			t.Errorf("cell %d = %v, want %v", i, cell, want[i])
		}
	}
	meta, _ := table.Rows[0].Object.(map[string]any)
	if meta["kind"] != "PartialObjectMetadata" {
		t.Errorf("row object %v, want PartialObjectMetadata", table.Rows[0].Object)
	}
}

func TestDiscovery(t *testing.T) {
	f := newFixture(t)
	var resources struct {
		Kind         string        `json:"kind"`
		GroupVersion string        `json:"groupVersion"`
		Resources    []apiResource `json:"resources"`
	}
	f.get(t, "/apis/metrics.k8s.io/v1beta1", "", &resources)
	if resources.Kind != "APIResourceList" || resources.GroupVersion != "metrics.k8s.io/v1beta1" || len(resources.Resources) != 2 {
		t.Fatalf("%+v", resources)
	}
	if r := resources.Resources[1]; r.Name != "pods" || !r.Namespaced || r.Kind != "PodMetrics" {
		t.Errorf("pods resource %+v", r)
	}
	var group apiGroup
	f.get(t, "/apis/metrics.k8s.io", "", &group)
	if group.Kind != "APIGroup" || group.PreferredVersion.GroupVersion != "metrics.k8s.io/v1beta1" {
		t.Errorf("group %+v", group)
	}
	var groups struct {
		Kind   string     `json:"kind"`
		Groups []apiGroup `json:"groups"`
	}
	f.get(t, "/apis", "", &groups)
	if groups.Kind != "APIGroupList" || len(groups.Groups) != 1 || groups.Groups[0].Name != "metrics.k8s.io" {
		t.Errorf("groups %+v", groups)
	}
}
