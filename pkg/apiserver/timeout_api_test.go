package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/apiserver"
	"kplane/test/framework"
)

// TestRequestTimeoutAnswers504 holds a create past its deadline: the
// client gets upstream's 504 Status at once, the handler's late answer is
// dropped, and the object (whose write never started) is not stored. A
// client's ?timeout= shortens the server's limit; a bad one is a 400.
func TestRequestTimeoutAnswers504(t *testing.T) {
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) {
		// Long enough that nothing else times out on a loaded machine;
		// the request under test asks for less with ?timeout=.
		o.RequestTimeout = time.Minute
	})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	a.SetInFlightHook(func(r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/configmaps") {
			<-r.Context().Done() // outlive the deadline…
			<-release            // …and answer only after the 504 went out
		}
	})

	got := a.Do(t, http.MethodPost, "/api/v1/namespaces/default/configmaps?timeout=200ms", []byte(configMapBody("slow")))
	if got.Code != http.StatusGatewayTimeout {
		t.Fatalf("slow create: %d %s, want 504", got.Code, got.Body)
	}
	var status api.Status
	if err := json.Unmarshal(got.Body, &status); err != nil {
		t.Fatalf("504 body is not a Status: %v: %s", err, got.Body)
	}
	want := "Timeout: request did not complete within requested timeout - context deadline exceeded"
	if status.Reason != "Timeout" || status.Code != 504 || status.Message != want || status.Status != "Failure" {
		t.Errorf("504 Status = %+v, want reason Timeout, message %q", status, want)
	}

	if got := a.Do(t, http.MethodGet, "/api/v1/namespaces/default/configmaps/slow", nil); got.Code != http.StatusNotFound {
		t.Errorf("the timed-out create was stored: GET answered %d %s", got.Code, got.Body)
	}
	if got := a.Do(t, http.MethodGet, "/api/v1/namespaces/default/configmaps?timeout=soon", nil); got.Code != http.StatusBadRequest ||
		!strings.Contains(string(got.Body), "invalid timeout specified in the request URL") {
		t.Errorf("?timeout=soon: %d %s, want 400", got.Code, got.Body)
	}
	// A watch is long-running: its ?timeout= is not a request deadline.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch := a.Stream(t, ctx, "/api/v1/namespaces/default/configmaps?watch=true&timeout=1ms")
	defer watch.Body.Close()
	if watch.StatusCode != http.StatusOK {
		t.Fatalf("watch with ?timeout=1ms: %s", watch.Status)
	}
}
