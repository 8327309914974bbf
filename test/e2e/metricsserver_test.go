package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/cluster"
	"kplane/pkg/pki"
	"kplane/test/framework"
)

// TestMetricsServer starts a cluster with metrics-server scraping every
// second and follows the way `kubectl top` takes: the APIService `ctl up`
// registered turns Available, and real kubectl reads NodeMetrics of every
// node (raw and as a Table) through the apiserver's aggregator, which
// dials the Service's targetPort and presents its kubelet-client
// certificate. Directly, metrics-server refuses a client without a
// certificate of the cluster CA.
func TestMetricsServer(t *testing.T) {
	framework.RequireKubectl(t)
	if !framework.HasBinary(framework.BuildBinaries(t), "metrics-server") {
		t.Fatal("bin/metrics-server was not built")
	}
	c := framework.StartCluster(t, func(o *cluster.Options) { o.Nodes, o.MetricResolution = 1, time.Second })
	report, err := cluster.Status(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	base := report.MetricsServer
	if !strings.HasPrefix(base, "https://127.0.0.1:") {
		t.Fatalf("ctl status reports metrics-server at %q", base)
	}
	svc, err := c.Client(t).Services("kube-system").Get(context.Background(), "metrics-server", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if port := strings.TrimPrefix(base, "https://127.0.0.1:"); len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 443 ||
		svc.Spec.Ports[0].TargetPort.String() != port || svc.Spec.Selector != nil {
		t.Errorf("Service kube-system/metrics-server = %+v, want port 443 → %s without a selector", svc.Spec, port)
	}

	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		r := c.Kubectl(t, "", "get", "apiservice", "v1beta1.metrics.k8s.io")
		return r.Err == nil && containsLine(r.Stdout, "v1beta1.metrics.k8s.io", "kube-system/metrics-server") && strings.Contains(r.Stdout, " True "),
			r.Stdout + r.Stderr
	})
	framework.Eventually(t, 60*time.Second, func() (bool, string) {
		r := c.Kubectl(t, "", "get", "--raw", "/apis/metrics.k8s.io/v1beta1/nodes")
		var list struct {
			Kind  string            `json:"kind"`
			Items []api.NodeMetrics `json:"items"`
		}
		if r.Err != nil || json.Unmarshal([]byte(r.Stdout), &list) != nil || list.Kind != "NodeMetricsList" {
			return false, r.Stdout + r.Stderr
		}
		var names []string
		for _, nm := range list.Items {
			if cpu, mem := nm.Usage["cpu"], nm.Usage["memory"]; !cpu.IsZero() && !mem.IsZero() && nm.Window.Duration > 0 {
				names = append(names, nm.Name)
			}
		}
		return slices.Equal(names, []string{"control-plane", "node1"}), fmt.Sprintf("nodes with usage %v in %s", names, r.Stdout)
	})
	table := c.MustKubectl(t, "get", "nodemetrics.metrics.k8s.io", "node1")
	if fields := strings.Fields(strings.SplitN(table, "\n", 2)[0]); !slices.Equal(fields, []string{"NAME", "CPU", "MEMORY", "WINDOW"}) {
		t.Errorf("kubectl get nodemetrics:\n%s\nwant upstream's columns NAME CPU MEMORY WINDOW", table)
	}
	r := c.Kubectl(t, "", "get", "--raw", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope")
	if r.Err == nil || !strings.Contains(r.Stderr, `podmetrics.metrics.k8s.io "nope" not found`) {
		t.Errorf("a pod without metrics: %v %s%s", r.Err, r.Stdout, r.Stderr)
	}

	// Directly, without a client certificate: 401.
	ca, err := os.ReadFile(filepath.Join(c.Dir, "pki", pki.CACertFileName))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca)
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs: roots, ServerName: "metrics-server.kube-system.svc"}}}
	resp, err := hc.Get(base + "/apis/metrics.k8s.io/v1beta1/nodes")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without a client certificate: %d %s, want 401", resp.StatusCode, body)
	}
}
