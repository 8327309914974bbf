package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// TestControllersNamespaceDeletion deletes a namespace holding a
// Deployment (with its ReplicaSet and pods), a Service and ConfigMaps:
//   - `kubectl delete ns x --wait=false` returns, and `kubectl get ns x`
//     shows it Terminating;
//   - creating in it is refused: Forbidden, "… because it is being
//     terminated" (the NamespaceLifecycle admission upstream);
//   - the namespace controller deletes every object in it; one ConfigMap
//     carries a finalizer of the test's own, so the namespace is still
//     Terminating when everything else is gone — observable;
//   - once that finalizer is removed, the namespace is NotFound;
//   - `kubectl delete ns --cascade=foreground` returns once the namespace
//     is gone: the garbage collector watches namespaces too, and takes off
//     the foregroundDeletion finalizer (it once waited for ever).
func TestControllersNamespaceDeletion(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 2)
	const ns = "doomed"
	c.MustKubectl(t, "create", "namespace", ns)
	applyYAML(t, c, strings.Replace(simpleDeploymentYAML("web"), "metadata:\n  name: web\n", "metadata:\n  name: web\n  namespace: "+ns+"\n", 1))
	c.MustKubectl(t, "create", "service", "clusterip", "web", "-n", ns, "--tcp=80:80")
	c.MustKubectl(t, "create", "configmap", "settings", "-n", ns, "--from-literal=color=blue")
	applyYAML(t, c, fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: held
  namespace: %s
  finalizers: [%q]
data:
  why: keeps the namespace Terminating until the test removes the finalizer
`, ns, holdFinalizer))
	waitRunningPods(t, c, ns, "app=web", 3)

	c.MustKubectl(t, "delete", "ns", ns, "--wait=false")
	out := c.MustKubectl(t, "get", "ns", ns, "--no-headers")
	if !regexp.MustCompile(`^` + ns + `\s+Terminating\s+\S+\s*$`).MatchString(out) {
		t.Errorf("kubectl get ns %s right after the delete = %q, want STATUS Terminating", ns, out)
	}

	// kubectl create configmap words it "error: failed to create configmap:
	// configmaps "late" is forbidden: …"; the status code is 403.
	r := c.Kubectl(t, "", "create", "configmap", "late", "-n", ns, "--from-literal=a=b")
	wantMsg := "unable to create new content in namespace " + ns + " because it is being terminated"
	if r.Err == nil {
		t.Errorf("creating a configmap in the terminating namespace succeeded:\n%s", r.Stdout)
	} else if !strings.Contains(r.Stderr, `configmaps "late" is forbidden: `+wantMsg) {
		t.Errorf("creating in the terminating namespace failed with\n%s\nwant configmaps \"late\" is forbidden: %s", r.Stderr, wantMsg)
	}
	_, err := c.Client(t).ConfigMaps(ns).Create(context.Background(),
		&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "late2", Namespace: ns}}, client.CreateOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("creating through the API in the terminating namespace: %v, want a 403 Forbidden", err)
	}

	// Everything but the held ConfigMap goes while the namespace waits.
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return strings.TrimSpace(out) == "configmap/held" },
		"get", "deployments,replicasets,pods,services,configmaps", "-n", ns, "-o", "name")
	if out := c.MustKubectl(t, "get", "ns", ns, "-o", "jsonpath={.status.phase}"); out != "Terminating" {
		t.Errorf("with content remaining, namespace %s has phase %q, want Terminating", ns, out)
	}

	c.MustKubectl(t, "patch", "configmap", "held", "-n", ns, "--type=json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		r := c.Kubectl(t, "", "get", "ns", ns)
		return r.Err != nil && strings.Contains(r.Stderr, `namespaces "`+ns+`" not found`),
			fmt.Sprintf("kubectl get ns %s: %v\n%s%s", ns, r.Err, r.Stdout, r.Stderr)
	})

	const fg = "doomed-foreground"
	c.MustKubectl(t, "create", "namespace", fg)
	c.MustKubectl(t, "create", "configmap", "settings", "-n", fg, "--from-literal=color=blue")
	if r := c.Kubectl(t, "", "delete", "ns", fg, "--cascade=foreground", "--timeout=90s"); r.Err != nil {
		t.Errorf("kubectl delete ns %s --cascade=foreground: %v\n%s%s", fg, r.Err, r.Stdout, r.Stderr)
	}
	if r := c.Kubectl(t, "", "get", "ns", fg); r.Err == nil || !strings.Contains(r.Stderr, `namespaces "`+fg+`" not found`) {
		t.Errorf("after the foreground delete, kubectl get ns %s: %v\n%s%s", fg, r.Err, r.Stdout, r.Stderr)
	}
}
