package apiserver

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
)

// TestAuthorizeAnswers: an allow goes on, a refusal is a 403 Status, and an
// authorizer's error without an allow is upstream's plain-text 500.
func TestAuthorizeAnswers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		decision authorizer.Decision
		err      error
		code     int
		body     string
	}{
		{"allow", authorizer.DecisionAllow, nil, http.StatusOK, "served"},
		{"allow despite an error", authorizer.DecisionAllow, errors.New("cache not ready"), http.StatusOK, "served"},
		{"no opinion", authorizer.DecisionNoOpinion, nil, http.StatusForbidden, `"reason":"Forbidden"`},
		{"error", authorizer.DecisionNoOpinion, errors.New("cache <not> ready"), http.StatusInternalServerError,
			`Internal Server Error: "/api/v1/pods": cache &lt;not&gt; ready`},
	} {
		s := &Server{authorizer: authorizer.Func(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
			return tc.decision, "", tc.err
		})}
		r := httptest.NewRequest("GET", "/api/v1/pods", nil)
		ctx := auth.WithUser(r.Context(), auth.User{Name: "alice"})
		r = r.WithContext(authorizer.WithRequestInfo(ctx, authorizer.ParseRequestInfo(r)))
		w := httptest.NewRecorder()
		s.authorize(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("served")) })).ServeHTTP(w, r)
		if w.Code != tc.code || !strings.Contains(w.Body.String(), tc.body) {
			t.Errorf("%s: %d %q, want %d containing %q", tc.name, w.Code, w.Body.String(), tc.code, tc.body)
		}
	}
}

// TestServeResourceRefusesAMisreadRequest: should the authorizer's reading
// of a URL and the handler's ever disagree on the verb, the request is not
// served.
func TestServeResourceRefusesAMisreadRequest(t *testing.T) {
	s := &Server{reg: newRegistry(builtinResources())}
	r := httptest.NewRequest("GET", "/api/v1/namespaces/default/pods?watch=1", nil)
	r = r.WithContext(authorizer.WithRequestInfo(r.Context(), &authorizer.RequestInfo{ResourceRequest: true, Verb: "list"}))
	w := httptest.NewRecorder()
	s.serveResource(w, r)
	if w.Code != http.StatusInternalServerError || !strings.Contains(w.Body.String(), "authorized as list but read as watch") {
		t.Errorf("got %d %q, want 500", w.Code, w.Body.String())
	}
}

// TestServeResourceUnknownResourceInANamespace: /namespaces/default/bogus
// names a resource "bogus" in default, which the authorizer reads as a list
// of it; the router agrees that nothing serves it and answers 404, not the
// 500 of a misread request (found by FuzzRequestInfo).
func TestServeResourceUnknownResourceInANamespace(t *testing.T) {
	s := &Server{reg: newRegistry(builtinResources())}
	for _, path := range []string{"/api/v1/namespaces/default/bogus", "/api/v1/namespaces/default/bogus/x"} {
		r := httptest.NewRequest("GET", path, nil)
		r = r.WithContext(authorizer.WithRequestInfo(r.Context(), authorizer.ParseRequestInfo(r)))
		w := httptest.NewRecorder()
		s.serveResource(w, r)
		if w.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d %q, want 404", path, w.Code, w.Body.String())
		}
	}
}
