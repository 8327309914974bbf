package ctl

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// budgetRefusalBody is the apiserver's 429 for an eviction a
// PodDisruptionBudget does not allow.
const budgetRefusalBody = `{"kind":"Status","apiVersion":"v1","status":"Failure",
"message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests",
"details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget web needs 2 healthy pods and has 2 currently"}]},"code":429}`

// evictionServer answers evictions of default/web-1 with refusals first
// (the first refusals of them), then 201, and reports the pod gone
// afterwards.
type evictionServer struct {
	mu        sync.Mutex
	refusals  int
	evictions int
}

func (s *evictionServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/api/v1/namespaces/default/pods/web-1/eviction":
		s.evictions++
		if s.evictions <= s.refusals {
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, budgetRefusalBody)
			return
		}
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Success","code":201}`)
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/namespaces/default/pods/web-1":
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"web-1\" not found","reason":"NotFound","code":404}`)
	default:
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"unexpected %s %s","reason":"Forbidden","code":403}`, r.Method, r.URL.Path)
	}
}

// drainEvicting runs evictPods of web-1 against srv, with --timeout timeout
// and the retry wait retryWait, and returns what it printed on stdout and
// stderr, and its error.
func drainEvicting(t *testing.T, srv http.Handler, timeout, retryWait time.Duration) (stdout, stderr string, err error) {
	t.Helper()
	server := httptest.NewServer(srv)
	defer server.Close()
	c, err := client.New(&client.Config{Host: server.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut syncBuffer
	o := &drainOptions{nodeOptions: nodeOptions{f: newFactory(IOStreams{Out: &out, ErrOut: &errOut})},
		evictionRetryWait: retryWait, timeout: timeout}
	pod := &api.Pod{}
	pod.Name, pod.Namespace = "web-1", "default"
	err = o.evictPods(context.Background(), c, []*api.Pod{pod}, client.DeleteOptions{}, false)
	return out.String(), errOut.String(), err
}

// A pod whose budget refuses twice: drain prints kubectl's lines for each
// attempt and each refusal, then "pod/web-1 evicted" once it is gone.
func TestDrainRetriesEvictionsTheBudgetRefuses(t *testing.T) {
	stdout, stderr, err := drainEvicting(t, &evictionServer{refusals: 2}, 0, time.Millisecond)
	if err != nil {
		t.Fatalf("evictPods: %v", err)
	}
	wantOut := "evicting pod default/web-1\nevicting pod default/web-1\nevicting pod default/web-1\npod/web-1 evicted\n"
	if stdout != wantOut {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, wantOut)
	}
	refusal := `error when evicting pods/"web-1" -n "default" (will retry after 1ms): Cannot evict pod as it would violate the pod's disruption budget.` + "\n"
	if stderr != refusal+refusal {
		t.Errorf("stderr:\n%s\nwant the refusal twice:\n%s", stderr, refusal)
	}
}

// A budget that never allows it: drain gives up at --timeout with
// kubectl's message. The retry wait outlasts the timeout, so the deadline
// falls while drain waits to ask again, not in the middle of a request
// (which would fail that request with "context deadline exceeded").
func TestDrainEvictionGivesUpAtTheTimeout(t *testing.T) {
	_, _, err := drainEvicting(t, &evictionServer{refusals: 1 << 30}, 50*time.Millisecond, time.Second)
	want := `error when evicting pods/"web-1" -n "default": global timeout reached: 50ms`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}
