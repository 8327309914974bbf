package server

import (
	"net/http"
	"testing"

	"kplane/pkg/auth"
	"kplane/pkg/kubelet/runtime"
)

// TestServerLetsMetricsServerReadMetricsOnly: metrics-server's user gets
// past authorization for GET /metrics/... (upstream's nodes/metrics, which
// its ClusterRole grants) and is refused everything else.
func TestServerLetsMetricsServerReadMetricsOnly(t *testing.T) {
	run := newFakeRun("secret output\n")
	run.exit()
	cluster := testBundle(t)
	s := newTestServer(t, cluster, func(string, string, string, bool) (runtime.Container, error) { return run, nil })
	base := startTLS(t, s)
	client := clientWith(signedClientCert(t, cluster, auth.MetricsServerUserName, "system:serviceaccounts"))
	defer client.CloseIdleConnections()

	for path, forbidden := range map[string]bool{
		"/metrics/resource":              false,
		"/containerLogs/default/web/app": true,
	} {
		resp, err := client.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.StatusCode == http.StatusForbidden; got != forbidden {
			t.Errorf("GET %s as metrics-server: %d, want forbidden=%v", path, resp.StatusCode, forbidden)
		}
	}
	resp, err := client.Post(base+"/metrics/resource", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("POST /metrics/resource as metrics-server: %d, want 403", resp.StatusCode)
	}
}
