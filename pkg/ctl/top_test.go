package ctl

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/api/fields"
	"kplane/pkg/api/labels"
	"kplane/pkg/kubeconfig"
	"kplane/test/framework"
)

// `ctl top` against a fake API that serves what an apiserver with
// metrics-server behind its aggregator serves: /apis listing
// metrics.k8s.io, the NodeMetrics and PodMetrics lists, and the nodes and
// pods. The same fake answers the real kubectl, which judges the output
// byte for byte (TestTopMatchesKubectl).

// fakeMetricsAPI is the state the fake API serves.
type fakeMetricsAPI struct {
	metricsServed bool
	nodes         []api.Node
	nodeMetrics   []api.NodeMetrics
	pods          []api.Pod
	podMetrics    []api.PodMetrics
}

// topFixture is a cluster of two workers and a control-plane node whose
// kubelet is not scraped, two pods of web in default (one of two
// containers), a DNS pod in kube-system, and an old pod in "stale" that
// has no metrics.
func topFixture(now time.Time) *fakeMetricsAPI {
	q := api.MustParseQuantity
	node := func(name, cpu, memory string) api.Node {
		n := api.Node{TypeMeta: api.TypeMeta{Kind: "Node", APIVersion: "v1"}, ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}}}
		n.Status.Allocatable = api.ResourceList{api.ResourceCPU: q(cpu), api.ResourceMemory: q(memory)}
		n.Status.Capacity = api.ResourceList{api.ResourceCPU: q("8"), api.ResourceMemory: q("16Gi")}
		return n
	}
	nodeMetrics := func(name, cpu, memory string) api.NodeMetrics {
		return api.NodeMetrics{
			TypeMeta:   api.TypeMeta{Kind: "NodeMetrics", APIVersion: "metrics.k8s.io/v1beta1"},
			ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
			Timestamp:  api.NewTime(now), Window: api.Duration{Duration: 15 * time.Second},
			Usage: api.ResourceList{api.ResourceCPU: q(cpu), api.ResourceMemory: q(memory)},
		}
	}
	pod := func(ns, name, app string, age time.Duration) api.Pod {
		return api.Pod{TypeMeta: api.TypeMeta{Kind: "Pod", APIVersion: "v1"}, ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": app},
			CreationTimestamp: api.NewTime(now.Add(-age))}}
	}
	container := func(name, cpu, memory string) api.ContainerMetrics {
		return api.ContainerMetrics{Name: name, Usage: api.ResourceList{api.ResourceCPU: q(cpu), api.ResourceMemory: q(memory)}}
	}
	podMetrics := func(ns, name, app string, containers ...api.ContainerMetrics) api.PodMetrics {
		return api.PodMetrics{
			TypeMeta:   api.TypeMeta{Kind: "PodMetrics", APIVersion: "metrics.k8s.io/v1beta1"},
			ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": app}},
			Timestamp:  api.NewTime(now), Window: api.Duration{Duration: 15 * time.Second},
			Containers: containers,
		}
	}
	return &fakeMetricsAPI{
		metricsServed: true,
		nodes:         []api.Node{node("node2", "4", "8Gi"), node("node1", "4", "8Gi"), node("control-plane", "2", "4Gi")},
		nodeMetrics: []api.NodeMetrics{
			nodeMetrics("node2", "402318422n", "913408Ki"),
			nodeMetrics("node1", "1250000000n", "524288Ki"),
		},
		pods: []api.Pod{
			pod("default", "web-7d4b9c-x2k4p", "web", time.Hour),
			pod("default", "web-7d4b9c-b9kfl", "web", time.Hour),
			pod("kube-system", "coredns", "dns", time.Hour),
			pod("stale", "old", "old", 10*time.Minute),
			pod("fresh", "new", "new", 5*time.Second),
		},
		podMetrics: []api.PodMetrics{
			podMetrics("default", "web-7d4b9c-x2k4p", "web", container("nginx", "147391203n", "20480Ki")),
			podMetrics("default", "web-7d4b9c-b9kfl", "web", container("nginx", "150000000n", "21504Ki"), container("log", "4990000n", "10Mi")),
			podMetrics("kube-system", "coredns", "dns", container("coredns", "2m", "12Mi")),
		},
	}
}

// ServeHTTP answers the discovery, metrics and core requests kubectl top
// makes, with JSON lists and Status errors as an apiserver would.
func (f *fakeMetricsAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.Trim(r.URL.Path, "/")
	parts := strings.Split(path, "/")
	selector, err := labels.Parse(r.URL.Query().Get("labelSelector"))
	if err != nil {
		writeFakeStatus(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	fieldSelector, err := fields.Parse(r.URL.Query().Get("fieldSelector"))
	if err != nil {
		writeFakeStatus(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	matches := func(m api.ObjectMeta, ns string) bool {
		return (ns == "" || m.Namespace == ns) && selector.Matches(m.Labels) &&
			fieldSelector.Matches(fields.Set{"metadata.name": m.Name, "metadata.namespace": m.Namespace})
	}
	switch {
	case path == "api":
		writeFakeJSON(w, map[string]any{"kind": "APIVersions", "versions": []string{"v1"}})
	case path == "apis":
		groups := []any{map[string]any{"name": "apps", "versions": []any{map[string]string{"groupVersion": "apps/v1", "version": "v1"}},
			"preferredVersion": map[string]string{"groupVersion": "apps/v1", "version": "v1"}}}
		if f.metricsServed {
			groups = append(groups, map[string]any{"name": "metrics.k8s.io",
				"versions":         []any{map[string]string{"groupVersion": "metrics.k8s.io/v1beta1", "version": "v1beta1"}},
				"preferredVersion": map[string]string{"groupVersion": "metrics.k8s.io/v1beta1", "version": "v1beta1"}})
		}
		writeFakeJSON(w, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
	case len(parts) >= 4 && parts[0] == "apis" && parts[1] == "metrics.k8s.io" && parts[3] == "nodes":
		var items []api.NodeMetrics
		for _, m := range f.nodeMetrics {
			if (len(parts) == 5 && m.Name == parts[4]) || (len(parts) == 4 && matches(m.ObjectMeta, "")) {
				items = append(items, m)
			}
		}
		writeFakeItems(w, len(parts) == 5, "metrics.k8s.io/v1beta1", "NodeMetrics", "nodemetrics.metrics.k8s.io", parts, items)
	case len(parts) >= 4 && parts[0] == "apis" && parts[1] == "metrics.k8s.io":
		ns, name, ok := namespacedPath(parts[3:], "pods")
		if !ok {
			writeFakeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
			return
		}
		var items []api.PodMetrics
		for _, m := range f.podMetrics {
			if (name != "" && m.Name == name && m.Namespace == ns) || (name == "" && matches(m.ObjectMeta, ns)) {
				items = append(items, m)
			}
		}
		writeFakeItems(w, name != "", "metrics.k8s.io/v1beta1", "PodMetrics", "podmetrics.metrics.k8s.io", []string{name}, items)
	case len(parts) >= 3 && parts[0] == "api" && parts[2] == "nodes":
		var items []api.Node
		for _, n := range f.nodes {
			if (len(parts) == 4 && n.Name == parts[3]) || (len(parts) == 3 && matches(n.ObjectMeta, "")) {
				items = append(items, n)
			}
		}
		writeFakeItems(w, len(parts) == 4, "v1", "Node", "nodes", parts, items)
	case len(parts) >= 3 && parts[0] == "api":
		ns, name, ok := namespacedPath(parts[2:], "pods")
		if !ok {
			writeFakeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
			return
		}
		var items []api.Pod
		for _, p := range f.pods {
			if (name != "" && p.Name == name && p.Namespace == ns) || (name == "" && matches(p.ObjectMeta, ns)) {
				items = append(items, p)
			}
		}
		writeFakeItems(w, name != "", "v1", "Pod", "pods", []string{name}, items)
	default:
		writeFakeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
	}
}

// namespacedPath splits [namespaces <ns>] <resource> [<name>].
func namespacedPath(parts []string, resource string) (ns, name string, ok bool) {
	if len(parts) >= 2 && parts[0] == "namespaces" {
		ns, parts = parts[1], parts[2:]
	}
	if len(parts) == 0 || parts[0] != resource || len(parts) > 2 {
		return "", "", false
	}
	if len(parts) == 2 {
		name = parts[1]
	}
	return ns, name, true
}

// writeFakeItems answers a get (one item, or NotFound) or a list.
func writeFakeItems[T any](w http.ResponseWriter, get bool, apiVersion, kind, resource string, path []string, items []T) {
	if !get {
		writeFakeJSON(w, map[string]any{"kind": kind + "List", "apiVersion": apiVersion, "metadata": map[string]any{}, "items": items})
		return
	}
	if len(items) == 0 {
		writeFakeStatus(w, http.StatusNotFound, "NotFound", resource+` "`+path[len(path)-1]+`" not found`)
		return
	}
	writeFakeJSON(w, items[0])
}

func writeFakeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func writeFakeStatus(w http.ResponseWriter, code int, reason, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure",
		"message": message, "reason": reason, "code": code})
}

// startFakeMetricsAPI serves f over TLS and writes a kubeconfig for it.
func startFakeMetricsAPI(t *testing.T, f *fakeMetricsAPI) string {
	t.Helper()
	srv := httptest.NewTLSServer(f)
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := kubeconfig.New("fake", srv.URL, ca, "admin", "token").WriteFile(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// runCtl runs ctl with a kubeconfig and returns exit code, stdout, stderr.
func runCtl(kubeconfigPath string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := Main(context.Background(), append([]string{"--kubeconfig", kubeconfigPath}, args...),
		IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

// topCases are the invocations both tests run; want is ctl's exact output
// (kubectl's, too: its tab writer pads the last column).
var topCases = []struct {
	args            []string
	wantCode        int
	wantOut         string
	wantErrPrefix   string
	metricsNotThere bool
}{
	{args: []string{"top", "node"}, wantOut: "" +
		"NAME            CPU(cores)   CPU(%)      MEMORY(bytes)   MEMORY(%)   \n" +
		"node1           1250m        31%         512Mi           6%          \n" +
		"node2           403m         10%         892Mi           10%         \n" +
		"control-plane   <unknown>    <unknown>   <unknown>       <unknown>   \n"},
	{args: []string{"top", "node", "--sort-by", "memory", "--no-headers", "-l", "kubernetes.io/hostname!=control-plane"}, wantOut: "" +
		"node2   403m    10%   892Mi   10%   \n" +
		"node1   1250m   31%   512Mi   6%    \n"},
	{args: []string{"top", "node", "node2", "--show-capacity"}, wantOut: "" +
		"NAME    CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)   \n" +
		"node2   403m         5%       892Mi           5%          \n"},
	{args: []string{"top", "node", "control-plane"}, wantCode: 1, wantErrPrefix: `Error from server (NotFound): nodemetrics.metrics.k8s.io "control-plane" not found`},
	{args: []string{"top", "node", "node1", "-l", "a=b"}, wantCode: 1, wantErrPrefix: "error: only one of NAME or --selector can be provided"},
	{args: []string{"top", "node", "--sort-by", "name"}, wantCode: 1, wantErrPrefix: "error: --sort-by accepts only cpu or memory"},
	{args: []string{"top", "node", "-l", "nothing=here"}, wantCode: 1, wantErrPrefix: "error: metrics not available yet"},
	{args: []string{"top", "pod"}, wantOut: "" +
		"NAME               CPU(cores)   MEMORY(bytes)   \n" +
		"web-7d4b9c-b9kfl   155m         31Mi            \n" +
		"web-7d4b9c-x2k4p   148m         20Mi            \n"},
	{args: []string{"top", "pod", "-A", "--sort-by", "cpu", "--sum"}, wantOut: "" +
		"NAMESPACE     NAME               CPU(cores)   MEMORY(bytes)   \n" +
		"default       web-7d4b9c-b9kfl   155m         31Mi            \n" +
		"default       web-7d4b9c-x2k4p   148m         20Mi            \n" +
		"kube-system   coredns            2m           12Mi            \n" +
		"                                 ________     ________        \n" +
		"                                 305m         63Mi            \n"},
	{args: []string{"top", "pod", "--containers", "-l", "app=web"}, wantOut: "" +
		"POD                NAME    CPU(cores)   MEMORY(bytes)   \n" +
		"web-7d4b9c-b9kfl   log     5m           10Mi            \n" +
		"web-7d4b9c-b9kfl   nginx   150m         21Mi            \n" +
		"web-7d4b9c-x2k4p   nginx   148m         20Mi            \n"},
	{args: []string{"top", "pod", "web-7d4b9c-b9kfl", "--containers", "--sort-by", "cpu", "--no-headers", "--sum"}, wantOut: "" +
		"web-7d4b9c-b9kfl   nginx      150m       21Mi   \n" +
		"web-7d4b9c-b9kfl   log        5m         10Mi   \n" +
		"                   ________   ________   \n" +
		"                   155m       31Mi       \n"},
	{args: []string{"top", "pod", "--field-selector", "metadata.name=web-7d4b9c-x2k4p"}, wantOut: "" +
		"NAME               CPU(cores)   MEMORY(bytes)   \n" +
		"web-7d4b9c-x2k4p   148m         20Mi            \n"},
	{args: []string{"top", "pod", "-n", "empty"}, wantErrPrefix: "No resources found in empty namespace.\n"},
	{args: []string{"top", "pod", "-n", "fresh"}, wantCode: 1, wantErrPrefix: "error: metrics not available yet"},
	{args: []string{"top", "pod", "-n", "stale"}, wantCode: 1, wantErrPrefix: "error: Metrics not available for pod stale/old, age: 10m"},
	{args: []string{"top", "pod", "nosuch"}, wantCode: 1, wantErrPrefix: `Error from server (NotFound): podmetrics.metrics.k8s.io "nosuch" not found`},
	{args: []string{"top", "pod", "web", "-l", "app=web"}, wantCode: 1, wantErrPrefix: "error: only one of NAME or selector can be provided"},
	{args: []string{"top", "pod"}, metricsNotThere: true, wantCode: 1, wantErrPrefix: "error: Metrics API not available"},
	{args: []string{"top", "node"}, metricsNotThere: true, wantCode: 1, wantErrPrefix: "error: Metrics API not available"},
}

func TestTop(t *testing.T) {
	fixture := topFixture(time.Now())
	served := startFakeMetricsAPI(t, fixture)
	withoutMetrics := *fixture
	withoutMetrics.metricsServed = false
	notServed := startFakeMetricsAPI(t, &withoutMetrics)
	for _, tt := range topCases {
		name := strings.Join(tt.args, " ")
		if tt.metricsNotThere {
			name += " (no metrics API)"
		}
		t.Run(name, func(t *testing.T) {
			kubeconfigPath := served
			if tt.metricsNotThere {
				kubeconfigPath = notServed
			}
			code, out, errOut := runCtl(kubeconfigPath, tt.args...)
			if code != tt.wantCode || out != tt.wantOut || !strings.HasPrefix(errOut, tt.wantErrPrefix) || (tt.wantErrPrefix == "" && errOut != "") {
				t.Errorf("ctl %s: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit %d\nstdout:\n%s\nstderr starting %q",
					name, code, out, errOut, tt.wantCode, tt.wantOut, tt.wantErrPrefix)
			}
		})
	}
}

// TestTopMatchesKubectl runs every case with the newest installed kubectl
// against the same fake API: kubectl must print what ctl prints, so the
// expectations above are kubectl's own output.
func TestTopMatchesKubectl(t *testing.T) {
	minors := framework.InstalledKubectlMinors(t)
	kubectl := framework.RequireKubectl(t)
	if len(minors) > 0 {
		kubectl = minors[len(minors)-1].Path
	}
	fixture := topFixture(time.Now())
	served := startFakeMetricsAPI(t, fixture)
	withoutMetrics := *fixture
	withoutMetrics.metricsServed = false
	notServed := startFakeMetricsAPI(t, &withoutMetrics)
	for _, tt := range topCases {
		kubeconfigPath := served
		if tt.metricsNotThere {
			kubeconfigPath = notServed
		}
		args := tt.args
		r := framework.RunKubectl(t, kubectl, kubeconfigPath, t.TempDir(), "", args...)
		code := 0
		if r.Err != nil {
			code = 1
		}
		if code != tt.wantCode || r.Stdout != tt.wantOut || !strings.HasPrefix(r.Stderr, tt.wantErrPrefix) {
			t.Errorf("%s %s: %v\nstdout:\n%s\nstderr:\n%s\nwant exit %d\nstdout:\n%s\nstderr starting %q",
				filepath.Base(kubectl), strings.Join(args, " "), r.Err, r.Stdout, r.Stderr, tt.wantCode, tt.wantOut, tt.wantErrPrefix)
		}
	}
}
