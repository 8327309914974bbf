package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"kplane/test/framework"
)

// probedWeb is a Deployment of three simulated nginx pods with a readiness
// probe, behind a ClusterIP Service: a pod annotated
// sim.kplane.io/readiness=fail goes unready within a few probe periods.
const probedWeb = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
        ports: [{containerPort: 80, name: http}]
        readinessProbe:
          httpGet: {path: /, port: 80}
          periodSeconds: 1
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
`

var (
	// answeredByRE is the line of the simulated nginx page naming the pod.
	answeredByRE      = regexp.MustCompile(`Answered by pod <b>([a-z0-9-]+)</b>`)
	svcEndpointRuleRE = regexp.MustCompile(`(?m)^-A KUBE-SVC-[A-Z2-7]{16} -m comment --comment "default/web:http -> [0-9.]+:80"( -m statistic --mode random --probability (0\.\d{10}))? -j KUBE-SEP-[A-Z2-7]{16}$`)
	realServerRE      = regexp.MustCompile(`(?m)^  -> 10\.244\.[0-9.]+:80 +Masq +1 +0 +0$`)
)

// curlWeb runs `kubectl exec client -- curl -s web` n times and returns
// the pods that answered.
func curlWeb(t *testing.T, c *framework.LocalCluster, n int) map[string]bool {
	t.Helper()
	reached := map[string]bool{}
	for range n {
		out := c.MustKubectl(t, "exec", "client", "--", "curl", "-s", "web")
		m := answeredByRE.FindStringSubmatch(out)
		if m == nil || !strings.HasPrefix(m[1], "web-") {
			t.Fatalf("curl -s web answered:\n%s", out)
		}
		reached[m[1]] = true
	}
	return reached
}

// endpointRules returns the probabilities of default/web's KUBE-SVC
// endpoint rules in order ("" for the last, unconditional one).
func endpointRules(rules string) []string {
	var out []string
	for _, m := range svcEndpointRuleRE.FindAllStringSubmatch(rules, -1) {
		out = append(out, m[2])
	}
	return out
}

// TestProxyRulesFollowReadiness is issue 14's Done-when 3: for a Service
// with three ready endpoints, `ctl proxy-rules --node node1` shows the
// KUBE-SVC chain with probabilities 0.3333333333 and 0.5000000000 and a
// last unconditional jump; when a pod goes unready the rules soon show
// two; the IPVS view shows three real servers. And Done-when 5, which
// rests on these rules: `kubectl exec client -- curl -s web` answers as
// one of the pods, repeated calls reach more than one, never the unready
// one.
func TestProxyRulesFollowReadiness(t *testing.T) {
	c := framework.StartCluster(t, nil)
	bin := framework.BuildBinaries(t)
	if r := c.Kubectl(t, probedWeb, "apply", "-f", "-"); r.Err != nil {
		t.Fatalf("kubectl apply: %v\n%s%s", r.Err, r.Stdout, r.Stderr)
	}
	c.MustKubectl(t, "run", "client", "--image=busybox", "--command", "--", "sleep", "3600")
	rules := func(args ...string) string {
		code, out := runCtl(t, bin, append([]string{"proxy-rules", "--node", "node1", "--data-dir", c.Dir}, args...)...)
		if code != 0 {
			return fmt.Sprintf("exit %d: %s", code, out)
		}
		return out
	}
	framework.Eventually(t, 60*time.Second, func() (bool, string) {
		out := rules("--service", "default/web")
		got := endpointRules(out)
		return strings.Join(got, ",") == "0.3333333333,0.5000000000,", out
	})
	// The whole table is there too, with the kube-proxy's fixed chains.
	all := rules()
	for _, want := range []string{"*filter\n", "*nat\n", ":KUBE-SERVICES - [0:0]", "-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000", "COMMIT\n"} {
		if !strings.Contains(all, want) {
			t.Errorf("ctl proxy-rules lacks %q:\n%s", want, all)
		}
	}
	if ipvs := rules("--mode", "ipvs", "--service", "default/web"); len(realServerRE.FindAllString(ipvs, -1)) != 3 ||
		!strings.HasPrefix(ipvs, "IP Virtual Server version 1.2.1 (size=4096)\n") {
		t.Errorf("ctl proxy-rules --mode ipvs, want three real servers:\n%s", ipvs)
	}
	if nft := rules("--mode", "nftables", "--service", "default/web"); !strings.Contains(nft, "numgen random mod 3 vmap {") {
		t.Errorf("ctl proxy-rules --mode nftables:\n%s", nft)
	}

	c.MustKubectl(t, "wait", "--for=condition=Ready", "pod/client", "--timeout=60s")
	// All 12 to one of three pods would happen once in 177 000 runs.
	if reached := curlWeb(t, c, 12); len(reached) < 2 {
		t.Errorf("12 curls from the client reached only %v, want more than one of the three pods", reached)
	}

	pod := strings.TrimSpace(strings.Split(c.MustKubectl(t, "get", "pods", "-l", "app=web", "-o", "name"), "\n")[0])
	c.MustKubectl(t, "annotate", pod, "sim.kplane.io/readiness=fail", "--overwrite")
	framework.Eventually(t, 60*time.Second, func() (bool, string) {
		out := rules("--service", "default/web")
		return strings.Join(endpointRules(out), ",") == "0.5000000000,", out
	})
	// The client's node may sync a moment later than node1: wait for its
	// rules too, through what the client sees.
	unready := strings.TrimPrefix(pod, "pod/")
	framework.Eventually(t, 60*time.Second, func() (bool, string) {
		reached := curlWeb(t, c, 6)
		return !reached[unready], fmt.Sprintf("curls reached %v, including the unready %s", reached, unready)
	})
	if reached := curlWeb(t, c, 12); reached[unready] {
		t.Errorf("after %s went unready, 12 curls reached %v, want the ready pods only", unready, reached)
	}

	// `ctl why svc/web` shows each kube-proxy's view of the Service: the
	// endpoints it sends connections to, and the one it left out.
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		code, out := runCtl(t, bin, "why", "svc/web", "--data-dir", c.Dir, "--kubeconfig", c.KubeconfigPath())
		return code == 0 && strings.Contains(out, "kube-proxy in kube-proxy-node1") && strings.Contains(out, "2 endpoints, 1/2 each") &&
			strings.Contains(out, ": not ready"), out
	})

	// Each sync is a decision `ctl why` shows, on the node it was for.
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		code, out := runCtl(t, bin, "why", "node/node1", "--data-dir", c.Dir, "--kubeconfig", c.KubeconfigPath())
		return code == 0 && strings.Contains(out, "kube-proxy") && strings.Contains(out, "synced the iptables rules"), out
	})

	// A node without a kube-proxy is a clear error.
	code, out := runCtl(t, bin, "proxy-rules", "--node", "node7", "--data-dir", c.Dir)
	if code == 0 || !strings.Contains(out, `node "node7" has no kube-proxy`) {
		t.Errorf("ctl proxy-rules --node node7: exit %d\n%s", code, out)
	}
}
