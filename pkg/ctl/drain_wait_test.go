package ctl

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// TestWaitForDeleteReportsEveryPendingPod checks that when reading a pod
// fails, the pods not checked yet are still reported as pending (drain's
// "There are pending pods…" list), not only those before the failure.
func TestWaitForDeleteReportsEveryPendingPod(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"no","reason":"Forbidden","code":403}`)
	}))
	defer srv.Close()
	c, err := client.New(&client.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	var pods []*api.Pod
	for _, name := range []string{"a", "b", "c"} {
		p := &api.Pod{}
		p.Name, p.Namespace = name, "default"
		pods = append(pods, p)
	}
	var out syncBuffer
	o := &drainOptions{nodeOptions: nodeOptions{f: newFactory(IOStreams{Out: &out, ErrOut: &out})}}
	pending, err := o.waitForDelete(context.Background(), c, pods, "deleted")
	if err == nil || len(pending) != len(pods) {
		t.Errorf("waitForDelete = %d pending, %v; want all %d pods pending and the error", len(pending), err, len(pods))
	}
}
