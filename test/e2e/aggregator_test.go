package e2e

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/test/framework"
)

// TestKubectlAggregatedAPI registers a fake metrics-server with the
// apiserver's aggregation layer the way metrics-server's manifest does
// (kubectl apply of a Service and an APIService) and drives the oldest and
// newest installed kubectl over it. Each kubectl first reads discovery
// before the group exists (and caches it on disk), then must see the new
// group as with upstream: `kubectl get apiservices` shows it Available,
// `kubectl api-resources` lists its resources (1.27 through aggregated
// discovery v2beta1, the newest through v2), `kubectl get` reads through
// the aggregator, and `kubectl get --raw` shows the backend's own
// discovery document.
func TestKubectlAggregatedAPI(t *testing.T) {
	t.Parallel()
	minors := framework.InstalledKubectlMinors(t)
	if len(minors) == 0 {
		t.Fatal("no kubectl.1.NN beside kubectl")
	}
	kubectls := []framework.KubectlMinor{minors[0], minors[len(minors)-1]}
	a := framework.StartAPIServer(t)
	backend := framework.StartFakeMetricsServer(t, a.CACertPEM())

	run := func(k framework.KubectlMinor, stdin string, args ...string) string {
		t.Helper()
		home := filepath.Join(a.Home, fmt.Sprintf("kubectl-1-%d", k.Minor))
		r := framework.RunKubectl(t, k.Path, a.KubeconfigPath(), home, stdin, args...)
		if r.Err != nil {
			t.Fatalf("kubectl 1.%d %s: %v\nstdout:\n%s\nstderr:\n%s", k.Minor, strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
		}
		return r.Stdout
	}
	for _, k := range kubectls {
		if out := run(k, "", "api-resources"); strings.Contains(out, "metrics.k8s.io") || !strings.Contains(out, "apiservices") {
			t.Fatalf("kubectl 1.%d api-resources before registration:\n%s", k.Minor, out)
		}
	}

	run(kubectls[0], backend.Manifests(), "apply", "-f", "-")
	framework.Eventually(t, 15*time.Second, func() (bool, string) {
		out := run(kubectls[0], "", "get", "apiservices")
		return hasLeadingFields(out, "v1beta1.metrics.k8s.io", "kube-system/metrics-server", "True"), out
	})

	for _, k := range kubectls {
		out := run(k, "", "get", "apiservices")
		for _, row := range [][]string{{"NAME", "SERVICE", "AVAILABLE", "AGE"}, {"v1.", "Local", "True"}, {"v1.apps", "Local", "True"},
			{"v1beta1.metrics.k8s.io", "kube-system/metrics-server", "True"}} {
			if !hasLeadingFields(out, row...) {
				t.Errorf("kubectl 1.%d get apiservices lacks the row %q:\n%s", k.Minor, row, out)
			}
		}
		out = run(k, "", "api-resources", "--api-group=metrics.k8s.io")
		if !hasLeadingFields(out, "nodes", "metrics.k8s.io/v1beta1", "false", "NodeMetrics") ||
			!hasLeadingFields(out, "pods", "metrics.k8s.io/v1beta1", "true", "PodMetrics") {
			t.Errorf("kubectl 1.%d api-resources --api-group=metrics.k8s.io:\n%s", k.Minor, out)
		}
		if out := run(k, "", "get", "nodes.metrics.k8s.io"); !strings.Contains(out, "node-1") {
			t.Errorf("kubectl 1.%d get nodes.metrics.k8s.io:\n%s", k.Minor, out)
		}
		if out := run(k, "", "get", "--raw", "/apis/metrics.k8s.io/v1beta1"); strings.TrimSpace(out) != framework.FakeMetricsResourceList {
			t.Errorf("kubectl 1.%d get --raw /apis/metrics.k8s.io/v1beta1:\n%s", k.Minor, out)
		}
	}
}

// hasLeadingFields reports whether a line of a table starts with exactly
// these whitespace-separated fields.
func hasLeadingFields(out string, fields ...string) bool {
	for _, line := range strings.Split(out, "\n") {
		if got := strings.Fields(line); len(got) >= len(fields) && slices.Equal(got[:len(fields)], fields) {
			return true
		}
	}
	return false
}
