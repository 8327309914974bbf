package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/serviceaccount"
	"kplane/test/framework"
)

// TestTokenReview: the apiserver answers who holds a token — the admin,
// a node — and authenticated false for an unknown token; a review without
// a token, or a body that is not one, is a 400 Status. The client's
// ReviewToken reads the same answers.
func TestTokenReview(t *testing.T) {
	a := framework.StartAPIServer(t)
	adminToken, _ := a.Tokens().TokenFor(auth.AdminUserName)
	nodeToken, err := a.Tokens().EnsureUser(auth.NodeUser("node1"))
	if err != nil {
		t.Fatal(err)
	}
	review := func(body string) (int, api.TokenReview) {
		t.Helper()
		resp := a.Do(t, http.MethodPost, "/apis/authentication.k8s.io/v1/tokenreviews", []byte(body))
		var out api.TokenReview
		if err := json.Unmarshal(resp.Body, &out); err != nil {
			t.Fatalf("decode %s: %v", resp.Body, err)
		}
		return resp.Code, out
	}
	ask := func(token string) string {
		return `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"` + token + `"}}`
	}

	code, got := review(ask(adminToken))
	if code != http.StatusCreated || !got.Status.Authenticated || got.Status.User.Username != auth.AdminUserName ||
		!slices.Contains(got.Status.User.Groups, "system:masters") || got.Spec.Token != "" || got.Kind != "TokenReview" {
		t.Errorf("admin token: %d %+v, want 201, authenticated kubernetes-admin in system:masters, token not echoed", code, got)
	}
	code, got = review(ask(nodeToken))
	if code != http.StatusCreated || !got.Status.Authenticated || got.Status.User.Username != "system:node:node1" ||
		!slices.Contains(got.Status.User.Groups, "system:nodes") {
		t.Errorf("node token: %d %+v, want 201, authenticated system:node:node1 in system:nodes", code, got)
	}
	if !slices.Equal(got.Status.Audiences, []string{serviceaccount.DefaultIssuer}) {
		t.Errorf("node token: status.audiences = %q, want the apiserver's [%s]", got.Status.Audiences, serviceaccount.DefaultIssuer)
	}
	code, got = review(ask("not-a-token"))
	if code != http.StatusCreated || got.Status.Authenticated || got.Status.User.Username != "" || got.Status.Error != "invalid bearer token" {
		t.Errorf("unknown token: %d %+v, want 201, authenticated false, error \"invalid bearer token\"", code, got)
	}

	// Audiences: a static token is meant for the apiserver only.
	withAudiences := func(token, audiences string) string {
		return `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"` + token + `","audiences":` + audiences + `}}`
	}
	code, got = review(withAudiences(adminToken, `["vault"]`))
	if code != http.StatusCreated || got.Status.Authenticated || len(got.Status.Audiences) != 0 {
		t.Errorf("static token for audience vault: %d %+v, want 201 and authenticated false", code, got)
	}
	code, got = review(withAudiences(adminToken, `["vault","`+serviceaccount.DefaultIssuer+`"]`))
	if code != http.StatusCreated || !got.Status.Authenticated || !slices.Equal(got.Status.Audiences, []string{serviceaccount.DefaultIssuer}) {
		t.Errorf("static token for vault or the apiserver: %d %+v, want authenticated for [%s] only", code, got, serviceaccount.DefaultIssuer)
	}
	// A ServiceAccount token says whom it is for; the review follows it.
	if r := a.Do(t, http.MethodPost, "/api/v1/namespaces/default/serviceaccounts",
		[]byte(`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"builder"}}`)); r.Code != http.StatusCreated {
		t.Fatalf("create ServiceAccount: %d %s", r.Code, r.Body)
	}
	tr := a.Do(t, http.MethodPost, "/api/v1/namespaces/default/serviceaccounts/builder/token",
		[]byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"audiences":["vault"]}}`))
	var issued api.TokenRequest
	if err := json.Unmarshal(tr.Body, &issued); tr.Code != http.StatusCreated || err != nil || issued.Status.Token == "" {
		t.Fatalf("TokenRequest: %d %s", tr.Code, tr.Body)
	}
	code, got = review(withAudiences(issued.Status.Token, `["vault"]`))
	if code != http.StatusCreated || !got.Status.Authenticated || got.Status.User.Username != "system:serviceaccount:default:builder" ||
		!slices.Contains(got.Status.User.Groups, auth.AuthenticatedGroup) || !slices.Equal(got.Status.Audiences, []string{"vault"}) {
		t.Errorf("ServiceAccount token for vault, reviewed for vault: %d %+v", code, got)
	}
	// Asked for two audiences, the token holds for the one in its aud.
	code, got = review(withAudiences(issued.Status.Token, `["etcd","vault"]`))
	if code != http.StatusCreated || !got.Status.Authenticated || !slices.Equal(got.Status.Audiences, []string{"vault"}) {
		t.Errorf("ServiceAccount token for vault, reviewed for etcd and vault: %d %+v, want authenticated for [vault] only", code, got)
	}
	code, got = review(ask(issued.Status.Token))
	if code != http.StatusCreated || got.Status.Authenticated || got.Status.Error == "" {
		t.Errorf("ServiceAccount token for vault, reviewed for the apiserver: %d %+v, want authenticated false with a reason", code, got)
	}

	for _, body := range []string{`{"spec":{}}`, `{"spec":`, `{"kind":"Pod","spec":{"token":"x"}}`} {
		resp := a.Do(t, http.MethodPost, "/apis/authentication.k8s.io/v1/tokenreviews", []byte(body))
		var status api.Status
		_ = json.Unmarshal(resp.Body, &status)
		if resp.Code != http.StatusBadRequest || status.Kind != "Status" || status.Reason != "BadRequest" || status.Message == "" {
			t.Errorf("body %s: %d %s, want a 400 BadRequest Status", body, resp.Code, resp.Body)
		}
	}

	c := a.Client(t, nil)
	user, groups, ok, err := c.ReviewToken(context.Background(), nodeToken)
	if err != nil || !ok || user != "system:node:node1" || !slices.Contains(groups, "system:nodes") {
		t.Errorf("ReviewToken(node) = %q %q %v %v", user, groups, ok, err)
	}
	if _, _, ok, err := c.ReviewToken(context.Background(), "nope"); err != nil || ok {
		t.Errorf("ReviewToken(unknown) = authenticated %v, err %v; want false, nil", ok, err)
	}
}
