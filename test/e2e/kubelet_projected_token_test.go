package e2e

import (
	"context"
	"crypto/tls"
	"net/http"
	"strings"
	"testing"
	"time"

	"kplane/pkg/client"
	"kplane/test/framework"
)

// simShellProjectedToken is issue 16's Done-when 3, the pod side: the
// kubelet puts a token bound to the pod in its kube-api-access volume,
// read here with `kubectl exec … cat` as an in-cluster client would read
// it; the apiserver takes it for system:serviceaccount:default:default
// while the pod exists, and refuses it (401) once the pod is deleted.
func simShellProjectedToken(t *testing.T, c *framework.LocalCluster) {
	applyYAML(t, c, `apiVersion: v1
kind: Pod
metadata:
  name: token-reader
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: app
    image: busybox
    command: [sleep, "3600"]
`)
	waitKubectl(t, c, 60*time.Second, func(out string) bool { return out == "Running" },
		"get", "pod", "token-reader", "-o", "jsonpath={.status.phase}")
	const dir = "/var/run/secrets/kubernetes.io/serviceaccount"
	token := c.MustKubectl(t, "exec", "token-reader", "--", "cat", dir+"/token")
	if strings.Count(token, ".") != 2 {
		t.Fatalf("%s/token = %q, want a JWT", dir, token)
	}
	if ns := c.MustKubectl(t, "exec", "token-reader", "--", "cat", dir+"/namespace"); ns != "default" {
		t.Errorf("%s/namespace = %q, want default", dir, ns)
	}
	if ca := c.MustKubectl(t, "exec", "token-reader", "--", "cat", dir+"/ca.crt"); !strings.HasPrefix(ca, "-----BEGIN CERTIFICATE-----") {
		t.Errorf("%s/ca.crt = %q, want the cluster CA", dir, ca)
	}

	admin := c.Client(t)
	user, _, authenticated, err := admin.ReviewToken(context.Background(), token)
	if err != nil || !authenticated || user != "system:serviceaccount:default:default" {
		t.Fatalf("TokenReview of the pod's token: %q authenticated=%v err=%v", user, authenticated, err)
	}
	// The pod's own client: the token alone, no client certificate.
	podClient := framework.NewClient(t, c.KubeconfigPath(), func(cfg *client.Config) {
		cfg.TLSClientConfig = &tls.Config{RootCAs: cfg.TLSClientConfig.RootCAs, ServerName: cfg.TLSClientConfig.ServerName}
		cfg.Token = token
		cfg.MaxRetries = -1
	})
	if code, body, err := podClient.Do(context.Background(), http.MethodGet, "/api", nil, nil); err != nil || code != http.StatusOK {
		t.Fatalf("GET /api with the pod's token: %d %s %v", code, body, err)
	}

	c.MustKubectl(t, "delete", "pod", "token-reader", "--wait=true")
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		code, body, _ := podClient.Do(context.Background(), http.MethodGet, "/api", nil, nil)
		return code == http.StatusUnauthorized, "GET /api with the deleted pod's token: " + http.StatusText(code) + " " + string(body)
	})
	if _, _, authenticated, err := admin.ReviewToken(context.Background(), token); err != nil || authenticated {
		t.Errorf("TokenReview after the pod was deleted: authenticated=%v err=%v", authenticated, err)
	}
}
