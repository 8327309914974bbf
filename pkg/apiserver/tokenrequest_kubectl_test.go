package apiserver_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/test/framework"
)

// TestKubectlCreateToken: `kubectl create token` of the oldest and newest
// installed kubectl returns a JWT that authenticates as the
// ServiceAccount; --duration, --audience and a pod binding reach the
// token; a too short --duration is refused with upstream's message.
func TestKubectlCreateToken(t *testing.T) {
	a := framework.StartAPIServer(t)
	createObject(t, a, "/api/v1/namespaces/default/serviceaccounts", `{"metadata":{"name":"default"}}`, nil)
	var pod api.Pod
	createObject(t, a, "/api/v1/namespaces/default/pods",
		`{"metadata":{"name":"web"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, &pod)

	minors := framework.OldestAndNewestKubectl(t)
	for _, k := range minors {
		t.Run(fmt.Sprintf("1.%d", k.Minor), func(t *testing.T) {
			kubectl := func(args ...string) framework.KubectlResult {
				return framework.RunKubectl(t, k.Path, a.KubeconfigPath(), t.TempDir(), "", args...)
			}
			r := kubectl("create", "token", "default")
			token := strings.TrimSpace(r.Stdout)
			if r.Err != nil || strings.Count(token, ".") != 2 {
				t.Fatalf("create token: %v\n%s%s", r.Err, r.Stdout, r.Stderr)
			}
			name, _, ok := authenticates(t, a, token)
			if !ok || name != "system:serviceaccount:default:default" {
				t.Fatalf("token authenticates as %q (%v)", name, ok)
			}
			// kubectl itself, with the token instead of the admin's credentials.
			r = kubectl("--token", token, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
			if r.Err != nil || r.Stdout != "system:serviceaccount:default:default" {
				t.Errorf("kubectl --token <token> auth whoami: %v %q %s", r.Err, r.Stdout, r.Stderr)
			}
			claims := decodeClaims(t, token)
			if claims["exp"].(float64)-claims["iat"].(float64) != 3600 {
				t.Errorf("default lifetime %v s, want 3600", claims["exp"].(float64)-claims["iat"].(float64))
			}

			r = kubectl("create", "token", "default", "--duration", "10m", "--audience", "vault",
				"--bound-object-kind", "Pod", "--bound-object-name", "web")
			token = strings.TrimSpace(r.Stdout)
			if r.Err != nil {
				t.Fatalf("create token with options: %v\n%s%s", r.Err, r.Stdout, r.Stderr)
			}
			claims = decodeClaims(t, token)
			k := claims["kubernetes.io"].(map[string]any)
			if claims["exp"].(float64)-claims["iat"].(float64) != 600 || fmt.Sprint(claims["aud"]) != "[vault]" ||
				k["pod"].(map[string]any)["uid"] != pod.UID {
				t.Errorf("claims %v", claims)
			}
			// Its audience is vault's, not the apiserver's.
			if _, _, ok := authenticates(t, a, token); ok {
				t.Error("a token for audience vault authenticates to the apiserver")
			}
			if result, ok, _ := a.ServiceAccountTokens().AuthenticateToken(context.Background(), token, []string{"vault"}); !ok ||
				result.User.Name != "system:serviceaccount:default:default" {
				t.Errorf("token for vault: %+v %v", result, ok)
			}

			r = kubectl("create", "token", "default", "--duration", "1m")
			want := `spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes`
			if r.Err == nil || !strings.Contains(r.Stderr, want) {
				t.Errorf("--duration 1m: %v %s, want an error containing %q", r.Err, r.Stderr, want)
			}
		})
	}
	// The pod-bound token dies with the pod.
	r := framework.RunKubectl(t, minors[0].Path, a.KubeconfigPath(), t.TempDir(), "", "create", "token", "default", "--bound-object-kind", "Pod", "--bound-object-name", "web")
	token := strings.TrimSpace(r.Stdout)
	if _, _, ok := authenticates(t, a, token); !ok {
		t.Fatalf("pod-bound token refused: %v %s", r.Err, r.Stderr)
	}
	if resp := a.Do(t, http.MethodDelete, "/api/v1/namespaces/default/pods/web?gracePeriodSeconds=0", nil); resp.Code != http.StatusOK {
		t.Fatalf("delete pod: %d %s", resp.Code, resp.Body)
	}
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		_, _, ok := authenticates(t, a, token)
		return !ok, "pod-bound token still authenticates after the pod was deleted"
	})
}
