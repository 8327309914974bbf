package ctl

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// followServer serves pod logs: pod "broken" answers 400 (not retried), every other pod
// writes one line and then holds the stream open until the client leaves.
func followServer(t *testing.T) *client.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/pods/broken/") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"kubelet is gone","reason":"BadRequest","code":400}`)
			return
		}
		fmt.Fprintln(w, "hello")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(func() {
		// Held streams would block Close: end them first.
		srv.CloseClientConnections()
		srv.Close()
	})
	c, err := client.New(&client.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFollowAllStopsOnTheFirstError checks that following several streams
// ends with the error of the one that fails instead of waiting for the
// others, which never end; with --ignore-errors the error is printed and
// the others are still followed.
func TestFollowAllStopsOnTheFirstError(t *testing.T) {
	c := followServer(t)
	pod := func(name string) *api.Pod {
		p := &api.Pod{}
		p.Name, p.Namespace = name, "default"
		return p
	}
	requests := []logRequest{{pod: pod("alive"), container: "c"}, {pod: pod("broken"), container: "c"}}

	var out, errOut syncBuffer
	o := &logsOptions{f: newFactory(IOStreams{Out: &out, ErrOut: &errOut}), follow: true, tail: -1}
	done := make(chan error, 1)
	go func() { done <- o.followAll(context.Background(), c, requests) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "kubelet is gone") {
			t.Errorf("followAll = %v, want the broken stream's error", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("followAll still running after a stream failed; stdout %q", out.String())
	}

	// --ignore-errors: the error is reported, the live stream goes on
	// until the caller stops it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errOut = syncBuffer{}
	o = &logsOptions{f: newFactory(IOStreams{Out: &out, ErrOut: &errOut}), follow: true, tail: -1, ignoreErrors: true}
	go func() { done <- o.followAll(ctx, c, requests) }()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(errOut.String(), "kubelet is gone") {
		if time.Now().After(deadline) {
			t.Fatalf("no error printed with --ignore-errors; stderr %q", errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("followAll with --ignore-errors returned %v while a stream was still open", err)
	default:
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("followAll with --ignore-errors after cancel = %v, want nil", err)
	}
}
