package debug

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"kplane/pkg/clock"
)

// fakeReviewer knows one admin token and one node token, and counts the
// reviews it was asked for.
type fakeReviewer struct {
	calls map[string]int
	fail  bool
}

func (f *fakeReviewer) ReviewToken(_ context.Context, token string) (string, []string, bool, error) {
	f.calls[token]++
	switch {
	case f.fail:
		return "", nil, false, errors.New("apiserver down")
	case token == "admin":
		return "kubernetes-admin", []string{AdminGroup, "system:authenticated"}, true, nil
	case token == "node":
		return "system:node:n1", []string{"system:nodes", "system:authenticated"}, true, nil
	}
	return "", nil, false, nil
}

func TestTokenReviewAuthenticatorCachesAnswers(t *testing.T) {
	reviewer := &fakeReviewer{calls: map[string]int{}}
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	authn := newTokenReviewCache(reviewer, clk).authenticate
	request := func(header string) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/debug/kplane/info", nil)
		if header != "" {
			r.Header.Set("Authorization", header)
		}
		return r
	}

	if _, _, ok := authn(request("")); ok || len(reviewer.calls) != 0 {
		t.Errorf("no token: ok %v after %d reviews, want false without asking", ok, len(reviewer.calls))
	}
	for range 3 {
		user, groups, ok := authn(request("Bearer admin"))
		if !ok || user != "kubernetes-admin" || groups[0] != AdminGroup {
			t.Fatalf("admin = %q %q %v", user, groups, ok)
		}
		if _, _, ok := authn(request("Bearer bogus")); ok {
			t.Fatal("an unknown token was authenticated")
		}
	}
	if reviewer.calls["admin"] != 1 || reviewer.calls["bogus"] != 1 {
		t.Errorf("reviews within the TTL: %v, want one per token (answers cached, rejections too)", reviewer.calls)
	}
	clk.Step(TokenReviewCacheTTL)
	authn(request("Bearer admin"))
	if reviewer.calls["admin"] != 2 {
		t.Errorf("admin reviewed %d times after the TTL passed, want 2", reviewer.calls["admin"])
	}

	// A failed review is not an answer: it rejects now and asks again next time.
	reviewer.fail = true
	clk.Step(TokenReviewCacheTTL)
	for range 2 {
		if _, _, ok := authn(request("Bearer admin")); ok {
			t.Error("authenticated while the apiserver failed the review")
		}
	}
	if reviewer.calls["admin"] != 4 {
		t.Errorf("admin reviewed %d times, want 4 (failures are not cached)", reviewer.calls["admin"])
	}
}

// The handler behind a TokenReview authenticator: 401 without a valid
// token, 403 for a node, 200 for the admin.
func TestHandlerWithTokenReview(t *testing.T) {
	j := NewJournal("scheduler", 10, nil)
	srv := httptest.NewServer(j.Handler(TokenReviewAuthenticator(&fakeReviewer{calls: map[string]int{}}), true))
	defer srv.Close()
	for token, want := range map[string]int{"": 401, "bogus": 401, "node": 403, "admin": 200} {
		for _, path := range []string{PathInfo, "/metrics", "/debug/pprof/"} {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("%s with token %q: %d, want %d", path, token, resp.StatusCode, want)
			}
		}
	}
}
