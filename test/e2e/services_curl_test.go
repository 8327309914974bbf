package e2e

import (
	"strings"
	"testing"

	"kplane/test/framework"
)

// svcsCurlAsks bounds how often TestServicesCurlSimulated asks before it
// concludes that the answers never come from a second pod. kube-proxy's
// rules pick each of three endpoints with probability 1/3, so 30 asks all
// answered by one pod happen with probability 3 × (1/3)^30 ≈ 10⁻¹⁴.
const svcsCurlAsks = 30

// TestServicesCurlSimulated is issue 14's fifth "Done when", on the
// simulated runtime: `kubectl exec <pod> -- curl -s web`, web being a
// ClusterIP Service over three nginx pods, is answered by nginx's welcome
// page naming one of those three pods — the simulated shell resolved web
// through the cluster DNS (resolv.conf's search list) and asked the node's
// kube-proxy which endpoint its rules pick — and repeated calls reach more
// than one of them.
func TestServicesCurlSimulated(t *testing.T) {
	t.Parallel()
	c := svcsStartCluster(t, svcsDNS, svcsKubeProxy)
	applyYAML(t, c, svcsWebManifest)
	pods := svcsReadyPods(t, c, "app=web", 3)
	kubectl := framework.RequireKubectl(t)
	asker := pods[0].Name // the pod curl runs in: any pod may ask a Service, its own included

	// answeredBy returns the one web pod the page names ("" if it names
	// none or several).
	answeredBy := func(page string) string {
		var named []string
		for _, p := range pods {
			if strings.Contains(page, p.Name) {
				named = append(named, p.Name)
			}
		}
		if len(named) != 1 || !strings.Contains(page, "Welcome to nginx!") {
			return ""
		}
		return named[0]
	}
	// The first answer may wait for the DNS and kube-proxy to learn the
	// Service and its endpoints.
	page := svcsExecUntil(t, c, kubectl, "", func(out string) bool { return answeredBy(out) != "" },
		"exec", asker, "--", "curl", "-s", "web")
	seen := map[string]int{answeredBy(page): 1}
	for ask := 1; ask < svcsCurlAsks && len(seen) < 2; ask++ {
		r := framework.RunKubectl(t, kubectl, c.KubeconfigPath(), c.Home, "", "exec", asker, "--", "curl", "-s", "web")
		pod := answeredBy(r.Stdout)
		if r.Err != nil || pod == "" {
			t.Fatalf("kubectl exec %s -- curl -s web (ask %d): %v; the answer is not nginx's page naming one of %v:\nstdout:\n%s\nstderr:\n%s",
				asker, ask+1, r.Err, svcsPodNames(pods), r.Stdout, r.Stderr)
		}
		seen[pod]++
	}
	if len(seen) < 2 {
		t.Fatalf("%d asks of curl -s web were all answered by %v: kube-proxy's rules should spread them over %v", svcsCurlAsks, seen, svcsPodNames(pods))
	}
	t.Logf("curl -s web answered by: %v", seen)
}
