package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"kplane/pkg/client"
	"kplane/test/framework"
)

// serviceAccountTokens checks, on a `ctl up` cluster with real kubectl
// (TestSimulatedShell's, shared to save a cluster start):
//   - `kubectl create token default` (for the default ServiceAccount the
//     serviceaccount controller made) prints a JWT, and
//     `kubectl --token <it> auth whoami` names the ServiceAccount;
//   - a hand-made Secret of type kubernetes.io/service-account-token is
//     filled by the controller-manager's serviceaccount-token controller
//     (which `ctl up` gives the apiserver's signing key): token, ca.crt,
//     namespace; its token authenticates as that ServiceAccount.
func serviceAccountTokens(t *testing.T, c *framework.LocalCluster) {
	ctx := context.Background()
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		_, err := c.Client(t).ServiceAccounts("default").Get(ctx, "default", client.GetOptions{})
		return err == nil, fmt.Sprintf("serviceaccount default/default: %v", err)
	})
	token := strings.TrimSpace(c.MustKubectl(t, "create", "token", "default"))
	if strings.Count(token, ".") != 2 || !strings.HasPrefix(token, "eyJ") {
		t.Fatalf("kubectl create token printed %q, want a JWT", token)
	}
	// The "Done when" 3: the token authenticates as the account.
	out := c.MustKubectl(t, "--token", token, "auth", "whoami")
	if !regexp.MustCompile(`(?m)^Username\s+system:serviceaccount:default:default$`).MatchString(out) ||
		!strings.Contains(out, "system:serviceaccounts:default") {
		t.Errorf("kubectl --token <token> auth whoami:\n%s", out)
	}

	c.MustKubectl(t, "create", "serviceaccount", "build-robot")
	applyYAML(t, c, `apiVersion: v1
kind: Secret
metadata:
  name: build-robot-token
  annotations:
    kubernetes.io/service-account.name: build-robot
type: kubernetes.io/service-account-token
`)
	out = waitKubectl(t, c, 30*time.Second, func(out string) bool { return strings.Contains(out, "kubernetes.io/service-account-token   3 ") },
		"get", "secret", "build-robot-token")
	if !strings.HasPrefix(out, "NAME") {
		t.Errorf("kubectl get secret = %q", out)
	}
	// Its token authenticates as build-robot.
	encoded := c.MustKubectl(t, "get", "secret", "build-robot-token", "-o", "jsonpath={.data.token}")
	legacy, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		t.Fatalf("decode the Secret's token %q: %v", encoded, err)
	}
	out = c.MustKubectl(t, "--token", string(legacy), "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
	if out != "system:serviceaccount:default:build-robot" {
		t.Errorf("kubectl --token <legacy token> auth whoami = %q", out)
	}
}
