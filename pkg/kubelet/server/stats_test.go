package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"kplane/pkg/api"
	"kplane/pkg/kubelet/stats"
	"kplane/pkg/pki"
)

var sampleTime = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func u64(v uint64) *uint64 { return &v }

// testSummary is a node with one pod of two containers.
func testSummary(node string) *stats.Summary {
	cpu := func(nanoCores, total uint64) *stats.CPUStats {
		return &stats.CPUStats{Time: api.NewTime(sampleTime), UsageNanoCores: u64(nanoCores), UsageCoreNanoSeconds: u64(total)}
	}
	mem := func(ws uint64) *stats.MemoryStats {
		return &stats.MemoryStats{Time: api.NewTime(sampleTime), WorkingSetBytes: u64(ws), UsageBytes: u64(ws)}
	}
	return &stats.Summary{
		Node: stats.NodeStats{NodeName: node, StartTime: api.NewTime(sampleTime.Add(-time.Hour)),
			CPU: cpu(550e6, 4500e9), Memory: mem(556 << 20)},
		Pods: []stats.PodStats{{
			PodRef:    stats.PodReference{Name: "web-1", Namespace: "default", UID: "u1"},
			StartTime: api.NewTime(sampleTime.Add(-time.Minute)),
			Containers: []stats.ContainerStats{
				{Name: "app", StartTime: api.NewTime(sampleTime.Add(-time.Minute)), CPU: cpu(300e6, 18e9), Memory: mem(200 << 20)},
				{Name: "side", StartTime: api.NewTime(sampleTime.Add(-time.Minute)), CPU: cpu(150e6, 9e9), Memory: mem(100 << 20)},
			},
			CPU: cpu(450e6, 27e9), Memory: mem(300 << 20),
		}},
	}
}

// statsServer is a server whose summaries come from testSummary, for the
// nodes named in nodes; asked records the node names it was asked for.
func statsServer(t *testing.T, b *pki.Bundle, nodes ...string) (*Server, *[]string) {
	s := newTestServer(t, b, nil)
	var asked []string
	s.SetSummaryLookup(func(node string) (*stats.Summary, error) {
		asked = append(asked, node)
		for _, n := range nodes {
			if n == node {
				return testSummary(node), nil
			}
		}
		return nil, NotFoundf("node %q is not one of this kubelet's nodes", node)
	})
	return s, &asked
}

// TestStatsSummary: GET /stats/summary answers the addressed node's
// Summary in upstream's JSON shape; an unknown node is a 404 with the
// reason.
func TestStatsSummary(t *testing.T) {
	s, asked := statsServer(t, nil, "node-a")
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "https://node-a:10250/stats/summary", nil)
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("got %d %s: %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
	var generic map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &generic); err != nil {
		t.Fatal(err)
	}
	node := generic["node"].(map[string]any)
	pod := generic["pods"].([]any)[0].(map[string]any)
	container := pod["containers"].([]any)[0].(map[string]any)
	checks := map[string]any{
		"node.nodeName":                  node["nodeName"],
		"node.startTime":                 node["startTime"],
		"node.cpu.usageNanoCores":        node["cpu"].(map[string]any)["usageNanoCores"],
		"node.memory.workingSetBytes":    node["memory"].(map[string]any)["workingSetBytes"],
		"pods[0].podRef.uid":             pod["podRef"].(map[string]any)["uid"],
		"containers[0].name":             container["name"],
		"containers[0].cpu.usageCoreNs":  container["cpu"].(map[string]any)["usageCoreNanoSeconds"],
		"containers[0].cpu.time":         container["cpu"].(map[string]any)["time"],
		"containers[0].memory.usageByte": container["memory"].(map[string]any)["usageBytes"],
	}
	want := map[string]any{
		"node.nodeName": "node-a", "node.startTime": "2026-03-04T04:06:07Z", "node.cpu.usageNanoCores": 550e6,
		"node.memory.workingSetBytes": float64(556 << 20), "pods[0].podRef.uid": "u1", "containers[0].name": "app",
		"containers[0].cpu.usageCoreNs": 18e9, "containers[0].cpu.time": "2026-03-04T05:06:07Z",
		"containers[0].memory.usageByte": float64(200 << 20),
	}
	for k, v := range want {
		if checks[k] != v {
			t.Errorf("%s = %v, want %v", k, checks[k], v)
		}
	}
	if len(*asked) != 1 || (*asked)[0] != "node-a" {
		t.Errorf("asked for nodes %q, want the request's host", *asked)
	}

	code, body := get(t, s, "https://node-z/stats/summary")
	if code != http.StatusNotFound || !strings.Contains(body, `node "node-z" is not one of this kubelet's nodes`) {
		t.Errorf("unknown node: %d %q", code, body)
	}
}

// TestResourceMetrics: GET /metrics/resource renders the Summary as
// upstream's metrics — names, labels, core-second counters and sample
// timestamps — that a Prometheus parser (metrics-server's) reads back.
func TestResourceMetrics(t *testing.T) {
	s, _ := statsServer(t, nil, "node-a")
	code, body := get(t, s, "https://node-a/metrics/resource")
	if code != http.StatusOK {
		t.Fatalf("got %d: %s", code, body)
	}
	for _, line := range []string{
		"# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the container in core-seconds",
		"# TYPE container_cpu_usage_seconds_total counter",
		`container_cpu_usage_seconds_total{container="app",namespace="default",pod="web-1"} 18 1772600767000`,
		`container_memory_working_set_bytes{container="side",namespace="default",pod="web-1"} 1.048576e+08 1772600767000`,
		`container_start_time_seconds{container="app",namespace="default",pod="web-1"} 1.772600707e+09`,
		"node_cpu_usage_seconds_total 4500 1772600767000",
		"node_memory_working_set_bytes 5.83008256e+08 1772600767000",
		`pod_cpu_usage_seconds_total{namespace="default",pod="web-1"} 27 1772600767000`,
		`pod_memory_working_set_bytes{namespace="default",pod="web-1"} 3.145728e+08 1772600767000`,
		"resource_scrape_error 0",
	} {
		if !strings.Contains(body, line+"\n") {
			t.Errorf("missing line %q in:\n%s", line, body)
		}
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("the output does not parse: %v", err)
	}
	if got := len(families["container_cpu_usage_seconds_total"].GetMetric()); got != 2 {
		t.Errorf("%d container CPU series, want 2", got)
	}
}

// TestResourceMetricsScrapeError: a summary that cannot be had is still a
// successful scrape, reporting resource_scrape_error 1 and nothing else.
func TestResourceMetricsScrapeError(t *testing.T) {
	s := newTestServer(t, nil, nil)
	code, body := get(t, s, "/metrics/resource")
	if code != http.StatusOK || !strings.Contains(body, "resource_scrape_error 1\n") || strings.Contains(body, "node_cpu") {
		t.Errorf("before the kubelet is ready: %d %q", code, body)
	}
	s.SetSummaryLookup(func(string) (*stats.Summary, error) { return nil, errors.New("boom") })
	if _, body := get(t, s, "/metrics/resource"); !strings.Contains(body, "resource_scrape_error 1\n") {
		t.Errorf("failing summary: %q", body)
	}
	if code, body := get(t, s, "/stats/summary"); code != http.StatusBadRequest || body != "boom\n" {
		t.Errorf("/stats/summary with a failing lookup: %d %q", code, body)
	}
}

// TestStatsAuthorization: the stats endpoints admit what the other
// endpoints admit, and refuse others naming upstream's subresources
// (nodes/stats, nodes/metrics).
func TestStatsAuthorization(t *testing.T) {
	cluster := testBundle(t)
	s, _ := statsServer(t, cluster, "127.0.0.1")
	base := startTLS(t, s)
	tests := []struct {
		path, user, group string
		wantCode          int
		wantBody          string
	}{
		{"/stats/summary", "admin", "system:masters", http.StatusOK, `"nodeName": "127.0.0.1"`},
		{"/metrics/resource", "admin", "system:masters", http.StatusOK, "node_cpu_usage_seconds_total 4500"},
		{"/stats/summary", "system:node:n2", "system:nodes", http.StatusForbidden,
			"Forbidden (user=system:node:n2, verb=get, resource=nodes, subresource=stats)"},
		{"/metrics/resource", "system:node:n2", "system:nodes", http.StatusForbidden,
			"Forbidden (user=system:node:n2, verb=get, resource=nodes, subresource=metrics)"},
	}
	for _, tt := range tests {
		client := clientWith(signedClientCert(t, cluster, tt.user, tt.group))
		resp, err := client.Get(base + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		client.CloseIdleConnections()
		if resp.StatusCode != tt.wantCode || !strings.Contains(string(body), tt.wantBody) {
			t.Errorf("%s as %s: %d %q, want %d with %q", tt.path, tt.user, resp.StatusCode, body, tt.wantCode, tt.wantBody)
		}
	}
	// The apiserver's kubelet-client identity may too.
	client := clientWith(cluster.KubeletClientCert)
	defer client.CloseIdleConnections()
	resp, err := client.Get(base + "/metrics/resource")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("kubelet client: %d", resp.StatusCode)
	}
}

// hollowNodeSummary is a full node: 110 pods (upstream's default
// maxPods) of two containers each.
func hollowNodeSummary() *stats.Summary {
	s := testSummary("hollow-1")
	pod := s.Pods[0]
	s.Pods = nil
	for i := range 110 {
		p := pod
		p.PodRef.Name = "web-" + strings.Repeat("x", 5) + "-" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		s.Pods = append(s.Pods, p)
	}
	return s
}

// BenchmarkResourceMetrics110Pods renders GET /metrics/resource for a
// hollow node with 110 pods: what every scrape of metrics-server costs a
// kubelet, once per node per metric resolution.
func BenchmarkResourceMetrics110Pods(b *testing.B) {
	s, err := New(Options{ClientCAPEM: testBundle(b).CACertPEM, Reviewer: &bootstrapPolicyReviewer{}})
	if err != nil {
		b.Fatal(err)
	}
	summary := hollowNodeSummary()
	s.SetSummaryLookup(func(string) (*stats.Summary, error) { return summary, nil })
	h := s.Handler()
	req := httptest.NewRequest(http.MethodGet, "/metrics/resource", nil)
	b.ReportAllocs()
	var size int
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size), "bytes/scrape")
}
