package apiserver_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/apiserver"
	"kplane/pkg/serviceaccount"
	"kplane/test/framework"
)

// createObject creates obj (JSON) at path as the admin and returns it decoded into out.
func createObject(t *testing.T, a *framework.APIServer, path, body string, out any) {
	t.Helper()
	resp := a.Do(t, http.MethodPost, path, []byte(body))
	if resp.Code != http.StatusCreated {
		t.Fatalf("POST %s: %d %s", path, resp.Code, resp.Body)
	}
	if out != nil {
		if err := json.Unmarshal(resp.Body, out); err != nil {
			t.Fatal(err)
		}
	}
}

// requestToken POSTs a TokenRequest body for default/<account>.
func requestToken(t *testing.T, a *framework.APIServer, account, body string) (framework.Response, api.TokenRequest) {
	t.Helper()
	resp := a.Do(t, http.MethodPost, "/api/v1/namespaces/default/serviceaccounts/"+account+"/token", []byte(body))
	var out api.TokenRequest
	_ = json.Unmarshal(resp.Body, &out)
	return resp, out
}

func authenticates(t *testing.T, a *framework.APIServer, token string) (string, map[string][]string, bool) {
	t.Helper()
	result, ok, _ := a.ServiceAccountTokens().AuthenticateToken(context.Background(), token, nil)
	return result.User.Name, result.User.Extra, ok
}

// TestTokenRequest: POST serviceaccounts/<name>/token answers 201 with a
// token that authenticates as the ServiceAccount for an hour by default;
// a pod-bound token names the pod and its node, and stops authenticating
// when the pod is deleted.
func TestTokenRequest(t *testing.T) {
	a := framework.StartAPIServer(t)
	var sa api.ServiceAccount
	createObject(t, a, "/api/v1/namespaces/default/serviceaccounts", `{"metadata":{"name":"robot"}}`, &sa)

	before := time.Now().Truncate(time.Second)
	resp, tr := requestToken(t, a, "robot", `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}}`)
	if resp.Code != http.StatusCreated || tr.Kind != "TokenRequest" || tr.Status.Token == "" || tr.Name != "robot" || tr.Namespace != "default" {
		t.Fatalf("token request: %d %s", resp.Code, resp.Body)
	}
	if got := tr.Status.ExpirationTimestamp.Sub(before); got < time.Hour || got > time.Hour+time.Minute {
		t.Errorf("expires in %v, want an hour", got)
	}
	if len(tr.Spec.Audiences) != 1 || tr.Spec.Audiences[0] != serviceaccount.DefaultIssuer {
		t.Errorf("audiences = %v, want the issuer", tr.Spec.Audiences)
	}
	name, _, ok := authenticates(t, a, tr.Status.Token)
	if !ok || name != "system:serviceaccount:default:robot" {
		t.Fatalf("token authenticates as %q (%v)", name, ok)
	}
	// Through the handler chain: who am I, with the token as the bearer.
	if got := whoAmI(t, a, tr.Status.Token); got.Code != http.StatusCreated || got.Username != "system:serviceaccount:default:robot" {
		t.Fatalf("selfsubjectreview with the token: %+v", got)
	}

	// A pod on a node, running as robot.
	createObject(t, a, "/api/v1/nodes", `{"metadata":{"name":"node1"}}`, nil)
	var pod api.Pod
	createObject(t, a, "/api/v1/namespaces/default/pods",
		`{"metadata":{"name":"web"},"spec":{"serviceAccountName":"robot","nodeName":"node1","containers":[{"name":"c","image":"nginx"}]}}`, &pod)
	resp, tr = requestToken(t, a, "robot", fmt.Sprintf(
		`{"spec":{"expirationSeconds":600,"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"web","uid":%q}}}`, pod.UID))
	if resp.Code != http.StatusCreated {
		t.Fatalf("pod-bound request: %d %s", resp.Code, resp.Body)
	}
	name, extra, ok := authenticates(t, a, tr.Status.Token)
	if !ok || name != "system:serviceaccount:default:robot" || extra[serviceaccount.PodNameExtraKey][0] != "web" ||
		extra[serviceaccount.PodUIDExtraKey][0] != pod.UID || extra[serviceaccount.NodeNameExtraKey][0] != "node1" {
		t.Fatalf("pod-bound token: %q %v %v", name, extra, ok)
	}
	if r := a.Do(t, http.MethodDelete, "/api/v1/namespaces/default/pods/web?gracePeriodSeconds=0", nil); r.Code != http.StatusOK {
		t.Fatalf("delete pod: %d %s", r.Code, r.Body)
	}
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		_, _, ok := authenticates(t, a, tr.Status.Token)
		return !ok, "the pod-bound token still authenticates after the pod was deleted"
	})
	if got := whoAmI(t, a, tr.Status.Token); got.Code != http.StatusUnauthorized {
		t.Errorf("request with the deleted pod's token: %+v, want 401", got)
	}
	// The unbound token is unaffected.
	if _, _, ok := authenticates(t, a, mustToken(t, a, "robot")); !ok {
		t.Error("an unbound token stopped authenticating")
	}
}

func mustToken(t *testing.T, a *framework.APIServer, account string) string {
	t.Helper()
	resp, tr := requestToken(t, a, account, `{"spec":{}}`)
	if resp.Code != http.StatusCreated {
		t.Fatalf("token for %s: %d %s", account, resp.Code, resp.Body)
	}
	return tr.Status.Token
}

// TestTokenRequestRefused: the errors upstream answers, with its words.
func TestTokenRequestRefused(t *testing.T) {
	a := framework.StartAPIServer(t)
	createObject(t, a, "/api/v1/namespaces/default/serviceaccounts", `{"metadata":{"name":"robot"}}`, nil)
	createObject(t, a, "/api/v1/namespaces/default/pods",
		`{"metadata":{"name":"other"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, nil)
	tests := []struct {
		name, account, body string
		code                int
		reason, message     string
	}{
		{"too short", "robot", `{"spec":{"expirationSeconds":60}}`, 422, "Invalid",
			`TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes`},
		{"too long", "robot", `{"spec":{"expirationSeconds":4294967297}}`, 422, "Invalid",
			`may not specify a duration larger than 2^32 seconds`},
		{"no such account", "ghost", `{"spec":{}}`, 404, "NotFound", `serviceaccounts "ghost" not found`},
		{"no such pod", "robot", `{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"nope"}}}`, 404, "NotFound", `pods "nope" not found`},
		{"pod of another account", "robot", `{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"other"}}}`, 400, "BadRequest",
			`cannot bind token for serviceaccount "robot" to pod running with serviceaccount "default"`},
		{"wrong uid", "robot", `{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"other","uid":"x"}}}`, 400, "BadRequest", "cannot bind token"},
		{"unsupported kind", "robot", `{"spec":{"boundObjectRef":{"kind":"ConfigMap","apiVersion":"v1","name":"c"}}}`, 400, "BadRequest",
			`cannot bind token to object of type /v1, Kind=ConfigMap`},
		{"name mismatch", "robot", `{"metadata":{"name":"someone"},"spec":{}}`, 422, "Invalid", "must match the service account name if specified"},
		{"not a TokenRequest", "robot", `{"kind":"Pod","spec":{}}`, 400, "BadRequest", "does not match the expected kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, _ := requestToken(t, a, tt.account, tt.body)
			var status api.Status
			_ = json.Unmarshal(resp.Body, &status)
			if resp.Code != tt.code || status.Reason != tt.reason || !strings.Contains(status.Message, tt.message) {
				t.Errorf("%d %s, want %d %s containing %q", resp.Code, resp.Body, tt.code, tt.reason, tt.message)
			}
		})
	}
	// A uid that does not match a bindable pod is a conflict.
	createObject(t, a, "/api/v1/namespaces/default/pods",
		`{"metadata":{"name":"mine"},"spec":{"serviceAccountName":"robot","containers":[{"name":"c","image":"nginx"}]}}`, nil)
	resp, _ := requestToken(t, a, "robot", `{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"mine","uid":"stale"}}}`)
	if resp.Code != http.StatusConflict || !strings.Contains(string(resp.Body), "The object might have been deleted and then recreated") {
		t.Errorf("stale uid: %d %s, want 409", resp.Code, resp.Body)
	}
}

// TestTokenRequestExpiration: a pod's 3607-second request becomes a
// year-long token that still reports the hour; the max-expiration flag
// shortens longer requests with a warning.
func TestTokenRequestExpiration(t *testing.T) {
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) { o.ServiceAccountMaxTokenExpiration = 2 * time.Hour })
	createObject(t, a, "/api/v1/namespaces/default/serviceaccounts", `{"metadata":{"name":"default"}}`, nil)
	createObject(t, a, "/api/v1/namespaces/default/pods",
		`{"metadata":{"name":"web"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, nil)

	resp, tr := requestToken(t, a, "default", `{"spec":{"expirationSeconds":3607,"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"web"}}}`)
	if resp.Code != http.StatusCreated {
		t.Fatalf("%d %s", resp.Code, resp.Body)
	}
	claims := decodeClaims(t, tr.Status.Token)
	lifetime := claims["exp"].(float64) - claims["iat"].(float64)
	k := claims["kubernetes.io"].(map[string]any)
	if lifetime != 365*24*3600 || k["warnafter"].(float64)-claims["iat"].(float64) != 3607 {
		t.Errorf("extended token: lifetime %v s, claims %v", lifetime, claims)
	}
	if got := time.Until(tr.Status.ExpirationTimestamp.Time); got > 3607*time.Second {
		t.Errorf("status reports %v, want the hour asked for", got)
	}

	resp, tr = requestToken(t, a, "default", `{"spec":{"expirationSeconds":86400}}`)
	if resp.Code != http.StatusCreated || *tr.Spec.ExpirationSeconds != 7200 ||
		!strings.Contains(resp.Header.Get("Warning"), "requested expiration of 86400 seconds shortened to 7200 seconds") {
		t.Errorf("capped request: %d %v %q", resp.Code, tr.Spec.ExpirationSeconds, resp.Header.Get("Warning"))
	}
}

// decodeClaims reads a JWT's payload without checking it.
func decodeClaims(t *testing.T, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", token)
	}
	return decodeSegment(t, parts[1])
}

// decodeSegment decodes one base64url JSON segment of a JWT.
func decodeSegment(t *testing.T, segment string) map[string]any {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(segment)
	if err != nil {
		t.Fatal(err)
	}
	claims := map[string]any{}
	if err := json.Unmarshal(raw, &claims); err != nil {
		t.Fatal(err)
	}
	return claims
}

// whoAmIAnswer is the status code and user of a SelfSubjectReview.
type whoAmIAnswer struct {
	Code     int
	Username string
	Extra    map[string][]string
}

// whoAmI asks the apiserver who the bearer of token is (POST
// selfsubjectreviews, what `kubectl auth whoami` sends).
func whoAmI(t *testing.T, a *framework.APIServer, token string) whoAmIAnswer {
	t.Helper()
	resp := a.DoWithToken(t, token, http.MethodPost, "/apis/authentication.k8s.io/v1/selfsubjectreviews",
		[]byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`))
	var review api.SelfSubjectReview
	_ = json.Unmarshal(resp.Body, &review)
	return whoAmIAnswer{Code: resp.Code, Username: review.Status.UserInfo.Username, Extra: review.Status.UserInfo.Extra}
}
