package informer

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/debug"
	"kplane/test/framework"
)

// The drop-watch fault end to end inside one process: the journal's route
// reaches the factory's informers, each reflector watches again from its
// last resourceVersion, and a pod created afterwards is still seen, with
// no relist.
func TestDropWatchRouteMakesTheFactoryInformersWatchAgain(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newTestClient(t, a)
	ctx := t.Context()
	if _, err := c.Pods("default").Create(ctx, testPod("default", "before"), client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	j := debug.NewJournal("controller-manager", 1000, nil)
	f := NewSharedInformerFactory(c, 0, WithLogger(quietLogger), WithJournal(j))
	pods := f.Pods()
	rec := newKeyRecorder()
	if _, err := pods.Informer().AddEventHandler(rec); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	defer f.Shutdown()
	if !f.WaitForCacheSync(ctx)[client.PodsResource] {
		t.Fatal("pod informer did not sync")
	}

	srv := httptest.NewServer(j.Handler(nil, false))
	defer srv.Close()
	dc := &debug.Client{}
	ep := debug.Endpoint{Component: "controller-manager", URL: srv.URL}
	// The reflector starts its watch just after the list that synced the
	// cache; until then there is nothing to drop.
	var result debug.DropWatchResult
	deadline := time.Now().Add(30 * time.Second)
	for len(result.Resources) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("drop-watch never found the pod informer watching; last answer %+v", result)
		}
		if err := dc.Post(ctx, ep, debug.PathFaultDropWatch, struct{}{}, &result); err != nil {
			t.Fatal(err)
		}
	}
	if result.Component != "controller-manager" || !slices.Equal(result.Resources, []string{"pods"}) {
		t.Fatalf("drop-watch answered %+v, want the controller-manager's pods", result)
	}

	if _, err := c.Pods("default").Create(ctx, testPod("default", "after"), client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the pod created after the drop reaches the handler", func() bool { return len(rec.events("default/after")) > 0 })

	// No relist after the drop: the reflector watches again from its last
	// resourceVersion. (The first list may or may not carry "before": a
	// list at resourceVersion 0 is served by a watch cache that can still
	// lack it, which then arrives as a watch event.)
	records, _ := j.After(0)
	var listsAfterDrop, rewatches, events int
	for _, r := range records {
		switch {
		case r.Type == debug.TypeTrace && r.Stage == StageList && events > 0:
			listsAfterDrop++
		case r.Type == debug.TypeTrace && r.Stage == StageRewatch && r.Resource == "pods" && r.ResourceVersion != "":
			rewatches++
		case r.Type == debug.TypeEvent && r.Stage == "drop-watch" && strings.HasPrefix(r.Message, "fault injected: "):
			events++
		}
	}
	if listsAfterDrop != 0 || rewatches != 1 || events != 1 {
		t.Errorf("journal has %d list records after the drop-watch event, %d rewatch (with resource and rv) and %d drop-watch event records; want no relist, 1 rewatch, 1 event", listsAfterDrop, rewatches, events)
	}
}

// waitFor polls cond until it holds or 30 s pass, then fails with what.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting until %s", what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
