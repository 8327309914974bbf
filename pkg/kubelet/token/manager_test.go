package token

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
)

// fakeRequester issues numbered tokens that expire expirationSeconds after
// its clock's now, and records what it was asked.
type fakeRequester struct {
	clock  clock.Clock
	issued int
	asked  []*api.TokenRequest
	err    error
}

func (f *fakeRequester) CreateToken(_ context.Context, namespace, name string, req *api.TokenRequest) (*api.TokenRequest, error) {
	f.asked = append(f.asked, req)
	if f.err != nil {
		return nil, f.err
	}
	f.issued++
	answer := *req
	answer.Status = api.TokenRequestStatus{
		Token:               fmt.Sprintf("%s/%s#%d", namespace, name, f.issued),
		ExpirationTimestamp: api.NewTime(f.clock.Now().Add(time.Duration(*req.Spec.ExpirationSeconds) * time.Second)),
	}
	return &answer, nil
}

func testPod() *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-1"}}
}

// TestPodTokenIsBoundToThePod: the question names the pod's
// ServiceAccount (default when unset), the pod as bound object, the
// source's lifetime, and its audience (none: the apiserver's own).
func TestPodTokenIsBoundToThePod(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	requester := &fakeRequester{clock: clk}
	m := NewManager(requester, clk)
	token, err := m.PodToken(context.Background(), testPod(), "", 3607)
	if err != nil || token != "default/default#1" {
		t.Fatalf("PodToken = %q, %v", token, err)
	}
	req := requester.asked[0]
	if req.Kind != "TokenRequest" || req.APIVersion != "authentication.k8s.io/v1" || len(req.Spec.Audiences) != 0 || *req.Spec.ExpirationSeconds != 3607 {
		t.Errorf("asked %+v", req)
	}
	if ref := req.Spec.BoundObjectRef; ref == nil || *ref != (api.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: "web", UID: "uid-1"}) {
		t.Errorf("bound to %+v", ref)
	}
	pod := testPod()
	pod.Spec.ServiceAccountName = "builder"
	if token, _ := m.PodToken(context.Background(), pod, "vault", 600); token != "default/builder#2" {
		t.Errorf("builder's token = %q", token)
	}
	if aud := requester.asked[1].Spec.Audiences; len(aud) != 1 || aud[0] != "vault" {
		t.Errorf("audiences = %v", aud)
	}
}

// TestTokenRefresh: a token is reused until 80 % of its lifetime has
// passed, then replaced; a 48 h token is replaced at 24 h.
func TestTokenRefresh(t *testing.T) {
	tests := []struct {
		lifetime      int64
		reuseUntil    time.Duration // the last moment the first token is reused
		wantRefreshAt time.Duration
	}{
		{lifetime: 3607, reuseUntil: 2885*time.Second + 599*time.Millisecond, wantRefreshAt: 2885*time.Second + 600*time.Millisecond},
		{lifetime: 600, reuseUntil: 479 * time.Second, wantRefreshAt: 480 * time.Second},
		{lifetime: 48 * 3600, reuseUntil: 24*time.Hour - time.Second, wantRefreshAt: 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.lifetime), func(t *testing.T) {
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			clk := clock.NewFake(start)
			requester := &fakeRequester{clock: clk}
			m := NewManager(requester, clk)
			get := func() string {
				token, err := m.PodToken(context.Background(), testPod(), "", tt.lifetime)
				if err != nil {
					t.Fatal(err)
				}
				return token
			}
			first := get()
			clk.Step(tt.reuseUntil)
			if got := get(); got != first {
				t.Errorf("at %s: %q, want the cached %q", tt.reuseUntil, got, first)
			}
			clk.Step(tt.wantRefreshAt - tt.reuseUntil)
			if got := get(); got == first {
				t.Errorf("at %s: still %q, want a new token", tt.wantRefreshAt, got)
			}
			if len(requester.asked) != 2 {
				t.Errorf("asked %d times, want 2", len(requester.asked))
			}
		})
	}
}

// TestTokenOutlivesAFailedRefresh: when the apiserver cannot answer, the
// old token is used while it is valid, and an error is returned after.
func TestTokenOutlivesAFailedRefresh(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	requester := &fakeRequester{clock: clk}
	m := NewManager(requester, clk)
	first, err := m.PodToken(context.Background(), testPod(), "", 600)
	if err != nil {
		t.Fatal(err)
	}
	requester.err = errors.New("apiserver down")
	clk.Step(599 * time.Second)
	if got, err := m.PodToken(context.Background(), testPod(), "", 600); err != nil || got != first {
		t.Errorf("before expiry: %q, %v; want the old token", got, err)
	}
	clk.Step(time.Second)
	if _, err := m.PodToken(context.Background(), testPod(), "", 600); err == nil {
		t.Error("after expiry: the expired token was returned")
	}
}

// TestForgetAndCleanup: a deleted pod's tokens go at once, expired ones at
// the next cleanup.
func TestForgetAndCleanup(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := NewManager(&fakeRequester{clock: clk}, clk)
	other := testPod()
	other.Name, other.UID = "db", "uid-2"
	for _, pod := range []*api.Pod{testPod(), other} {
		if _, err := m.PodToken(context.Background(), pod, "", 600); err != nil {
			t.Fatal(err)
		}
	}
	m.Forget("uid-1")
	if m.Len() != 1 {
		t.Fatalf("%d tokens after Forget, want 1", m.Len())
	}
	m.Cleanup()
	if m.Len() != 1 {
		t.Fatalf("%d tokens after an early Cleanup, want 1", m.Len())
	}
	clk.Step(600 * time.Second)
	m.Cleanup()
	if m.Len() != 0 {
		t.Errorf("%d tokens after Cleanup past expiry, want 0", m.Len())
	}
}

// TestClientRequester: through a *client.Client the request goes to the
// ServiceAccount's token subresource; a refusal is an error.
func TestClientRequester(t *testing.T) {
	apiserver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/v1/namespaces/default/serviceaccounts/default/token" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403}`)
			return
		}
		var req api.TokenRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Spec.BoundObjectRef == nil {
			t.Errorf("decode %v: %+v", err, req)
		}
		req.Status = api.TokenRequestStatus{Token: "jwt", ExpirationTimestamp: api.NewTime(time.Now().Add(time.Hour))}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(&req)
	}))
	defer apiserver.Close()
	c, err := client.New(&client.Config{Host: apiserver.URL})
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(c, nil)
	if token, err := m.PodToken(context.Background(), testPod(), "", 3607); err != nil || token != "jwt" {
		t.Errorf("PodToken = %q, %v", token, err)
	}
	pod := testPod()
	pod.Namespace = "kube-system"
	if _, err := m.PodToken(context.Background(), pod, "", 3607); err == nil {
		t.Error("a 403 was taken for a token")
	}
}

// TestExpiredTokensAreSweptWhileAsking: asking for any token a minute or
// more after the last sweep drops the expired ones.
func TestExpiredTokensAreSweptWhileAsking(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := NewManager(&fakeRequester{clock: clk}, clk)
	gone := testPod()
	gone.Name, gone.UID = "gone", "uid-gone"
	if _, err := m.PodToken(context.Background(), gone, "", 600); err != nil {
		t.Fatal(err)
	}
	clk.Step(600 * time.Second)
	if _, err := m.PodToken(context.Background(), testPod(), "", 600); err != nil {
		t.Fatal(err)
	}
	if m.Len() != 1 {
		t.Errorf("%d tokens, want only the live pod's", m.Len())
	}
}
