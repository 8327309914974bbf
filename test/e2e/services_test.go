package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// The tests of issue 14's "Done when" list that follow the services lesson
// (docs/lesson-services.md), each on a cluster of its own started from the
// built binaries, driven by the real kubectl as a student would:
//
//  1. TestServicesStatefulSetDNS — the seeds' statefulset.yaml: getent and
//     an interactive shell in nginx-ss-0 find nginx-ss-1 by its stable DNS
//     name, and the cluster DNS answers the headless Service
//     (dnsAnswersTheSeedsStatefulSet, dns_test.go).
//  2. TestExecWithRealKubectl (exec_test.go) and the port-forward tests
//     (portforward_test.go): exec, port-forward, cp and run on the process
//     runtime.
//  3. and 5. TestProxyRulesFollowReadiness (proxy_test.go) — kube-proxy's
//     KUBE-SVC chain splits a Service over three endpoints (1/3, 1/2, the
//     rest) and follows an endpoint going unready, the IPVS view lists
//     three real servers; `curl -s web` inside a simulated pod is answered
//     by one of the Service's pods, not always the same, never the unready
//     one.
//  4. TestCloudLoadBalancerNodesAndRoutes (cloud_test.go) — `kubectl expose
//     --type LoadBalancer` gets an EXTERNAL-IP from the simulated cloud,
//     with its events, and gives it back when the Service is deleted.

// The components a services test may need beside the controller-manager,
// by binary name: `ctl up` starts each only when it was built.
const (
	svcsDNS       = "dns"        // the cluster DNS, ./cmd/dns
	svcsKubeProxy = "kube-proxy" // one per node, ./cmd/kube-proxy
)

// svcsStartCluster starts a default cluster (two worker nodes, the
// simulated runtime) after checking that the components the test needs
// were built: a missing one fails the test, naming it, rather than leaving
// the test to wait for an answer nobody gives.
func svcsStartCluster(t *testing.T, components ...string) *framework.LocalCluster {
	t.Helper()
	framework.RequireKubectl(t)
	bin := requireControllerManager(t)
	for _, c := range components {
		if !framework.HasBinary(bin, c) {
			t.Fatalf("bin/%s was not built (./cmd/%s is missing), and `ctl up` starts it only when it exists: this test needs it", c, c)
		}
	}
	return framework.StartCluster(t, nil)
}

// svcsWebManifest is a Deployment of three nginx pods with a readiness
// probe (so that the simulated runtime's sim.kplane.io/readiness annotation
// can fail it, docs/kubelet.md) behind the ClusterIP Service web on port 80,
// whose targetPort names the container's port (http), so the endpoints'
// port is found by name as upstream does.
const svcsWebManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27.0
        ports:
        - containerPort: 80
          name: http
        readinessProbe:
          httpGet: {path: /, port: 80}
          periodSeconds: 1
          failureThreshold: 1
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
  - name: http
    port: 80
    targetPort: http
`

// svcsReadyPods waits until exactly n active pods match selector, each
// Running, Ready and with an IP, and returns them.
func svcsReadyPods(t *testing.T, c *framework.LocalCluster, selector string, n int) []*api.Pod {
	t.Helper()
	cl := c.Client(t)
	var ready []*api.Pod
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		pods := listPods(t, cl, "default", selector)
		ready = ready[:0]
		for _, p := range pods {
			if p.DeletionTimestamp == nil && p.Status.Phase == api.PodRunning && p.Status.PodIP != "" && svcsPodReady(p) {
				ready = append(ready, p)
			}
		}
		return len(ready) == n && len(pods) == n, fmt.Sprintf("waiting for %d ready pods %s:\n%s", n, selector, describePods(pods))
	})
	slices.SortFunc(ready, func(a, b *api.Pod) int { return strings.Compare(a.Name, b.Name) })
	return ready
}

// svcsPodReady reports the pod's Ready condition.
func svcsPodReady(p *api.Pod) bool {
	for _, cond := range p.Status.Conditions {
		if cond.Type == api.PodReady {
			return cond.Status == api.ConditionTrue
		}
	}
	return false
}

// svcsPodIPs returns the pods' IPs.
func svcsPodIPs(pods []*api.Pod) []string {
	ips := make([]string, len(pods))
	for i, p := range pods {
		ips[i] = p.Status.PodIP
	}
	return ips
}

// svcsPodNames returns the pods' names.
func svcsPodNames(pods []*api.Pod) []string {
	names := make([]string, len(pods))
	for i, p := range pods {
		names[i] = p.Name
	}
	return names
}

// svcsServiceIP returns a Service's ClusterIP.
func svcsServiceIP(t *testing.T, c *framework.LocalCluster, name string) string {
	t.Helper()
	svc, err := c.Client(t).Services("default").Get(context.Background(), name, client.GetOptions{})
	if err != nil {
		t.Fatalf("get service %s: %v", name, err)
	}
	return svc.Spec.ClusterIP
}

// svcsCtl runs the built ctl against the cluster's data dir (where the
// components announce their debug APIs) and returns its exit code and
// combined output.
func svcsCtl(t *testing.T, c *framework.LocalCluster, args ...string) (int, string) {
	t.Helper()
	return runCtl(t, framework.BuildBinaries(t), append(args, "--data-dir", c.Dir)...)
}

// svcsExecUntil runs the kubectl at path with args (and stdin) until it
// exits 0 and ok accepts its stdout, and returns that stdout; on timeout
// it fails with what kubectl last printed.
func svcsExecUntil(t *testing.T, c *framework.LocalCluster, path, stdin string, ok func(stdout string) bool, args ...string) string {
	t.Helper()
	var out string
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		r := framework.RunKubectl(t, path, c.KubeconfigPath(), c.Home, stdin, args...)
		out = r.Stdout
		return r.Err == nil && ok(r.Stdout), fmt.Sprintf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", path, strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
	})
	return out
}

// svcsSPDYKubectl returns an installed kubectl older than 1.30, the last
// minors whose exec speaks SPDY only (1.30 made the WebSocket protocol
// kubectl's default); the default kubectl on this machine (1.32) speaks
// WebSocket. It fails the test when there is none.
func svcsSPDYKubectl(t *testing.T) framework.KubectlMinor {
	t.Helper()
	var spdy []framework.KubectlMinor
	for _, k := range framework.InstalledKubectlMinors(t) {
		if k.Minor < 30 {
			spdy = append(spdy, k)
		}
	}
	if len(spdy) == 0 {
		t.Fatalf("no kubectl.1.NN older than 1.30 beside kubectl: nothing to drive exec over SPDY")
	}
	return spdy[len(spdy)-1]
}
