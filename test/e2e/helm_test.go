package e2e

import (
	"strings"
	"testing"
	"time"

	"kplane/test/framework"
)

// TestHelmChartLifecycle drives Helm v3 through a release's whole life on a
// `ctl up` cluster, with the chart `helm create` writes and its Ingress and
// HorizontalPodAutoscaler switched on: install --wait, upgrade, rollback,
// helm test, uninstall — and then nothing of the release is left.
//
// `helm test` runs the chart's test pod, a busybox `wget web:80`. On the
// simulated runtime no command runs: a container of a pod that runs to
// completion (restartPolicy Never) exits 0 after a second, so the test pod
// Succeeds without dialling the Service (Service IPs are labels here).
func TestHelmChartLifecycle(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	framework.RequireHelm(t)
	start := time.Now()
	c := framework.StartCluster(t, nil)
	requireNodesReady(t, c, "control-plane", "node1", "node2")
	charts := t.TempDir()
	c.MustHelm(t, charts, "create", "web")

	values := []string{"--set", "ingress.enabled=true", "--set", "autoscaling.enabled=true"}
	install := c.MustHelm(t, charts, append([]string{"install", "web", "./web", "--wait", "--timeout", "120s"}, values...)...)
	if !strings.Contains(install, "STATUS: deployed") {
		t.Fatalf("helm install did not deploy:\n%s", install)
	}
	got := c.MustKubectl(t, "get", "deployment,service,ingress,hpa,serviceaccount", "-l", "app.kubernetes.io/instance=web", "-o", "name")
	for _, want := range []string{"deployment.apps/web", "service/web", "ingress.networking.k8s.io/web",
		"horizontalpodautoscaler.autoscaling/web", "serviceaccount/web"} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("after install, %s is missing from:\n%s", want, got)
		}
	}
	if hosts := c.MustKubectl(t, "get", "ingress", "web", "-o", "jsonpath={.spec.rules[0].host}"); hosts != "chart-example.local" {
		t.Errorf("ingress host = %q, want chart-example.local", hosts)
	}

	c.MustHelm(t, charts, append([]string{"upgrade", "web", "./web", "--wait", "--timeout", "120s", "--set", "image.tag=1.27"}, values...)...)
	if image := c.MustKubectl(t, "get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}"); image != "nginx:1.27" {
		t.Errorf("after upgrade, image = %q, want nginx:1.27", image)
	}
	c.MustHelm(t, charts, "rollback", "web", "1", "--wait", "--timeout", "120s")
	if image := c.MustKubectl(t, "get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}"); image == "nginx:1.27" {
		t.Errorf("after rollback, image is still %q", image)
	}
	history := c.MustHelm(t, charts, "history", "web", "-o", "json")
	if strings.Count(history, `"revision"`) != 3 || !strings.Contains(history, `"description":"Rollback to 1"`) {
		t.Errorf("helm history after install, upgrade, rollback:\n%s", history)
	}

	test := c.MustHelm(t, charts, "test", "web", "--timeout", "120s")
	if !strings.Contains(test, "TEST SUITE:     web-test-connection") || !strings.Contains(test, "Phase:          Succeeded") {
		t.Errorf("helm test:\n%s", test)
	}

	c.MustHelm(t, charts, "uninstall", "web", "--wait", "--timeout", "120s")
	// Helm leaves a test hook's pod behind unless the hook asks otherwise
	// (helm.sh/hook-delete-policy), on any cluster: only that pod may remain.
	left := c.MustKubectl(t, "get", "all,ingress,hpa,serviceaccount,secret,configmap", "-o", "name")
	for _, line := range strings.Split(strings.TrimSpace(left), "\n") {
		switch line {
		case "pod/web-test-connection", "service/kubernetes", "serviceaccount/default", "configmap/kube-root-ca.crt":
			continue
		}
		t.Errorf("left behind after helm uninstall: %s", line)
	}
	c.MustKubectl(t, "delete", "pod", "web-test-connection", "--wait=true")
	if pods := c.MustKubectl(t, "get", "pods", "-o", "name"); pods != "" {
		t.Errorf("pods left after deleting the test pod:\n%s", pods)
	}
	if list := c.MustHelm(t, charts, "list", "--all", "-q"); list != "" {
		t.Errorf("helm list --all after uninstall = %q, want none", list)
	}
	t.Logf("helm lifecycle took %v", time.Since(start).Round(time.Millisecond))
}
