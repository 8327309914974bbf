package tainteviction

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/events"
	"kplane/pkg/informer"
)

// These tests follow sample-controller's fixture pattern: objects go into
// the informers' caches by hand, one sync runs, and the test compares the
// API requests the controller made with the expected ones. Time is a fake
// clock the test steps, so five minutes of toleration take no time.

var t0 = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

// fakeAPI records requests with their bodies and answers writes by echoing
// the body, deletes with a Success status.
type fakeAPI struct {
	mu      sync.Mutex
	actions []string
	bodies  map[string][]byte
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	action := r.Method + " " + r.URL.Path
	f.mu.Lock()
	f.actions = append(f.actions, action)
	f.bodies[action] = body
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodDelete {
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Success"}`))
		return
	}
	_, _ = w.Write(body)
}

func (f *fakeAPI) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Clone(f.actions)
	f.actions = nil
	return out
}

func (f *fakeAPI) body(t *testing.T, action string, into any) {
	t.Helper()
	f.mu.Lock()
	b, ok := f.bodies[action]
	f.mu.Unlock()
	if !ok {
		t.Fatalf("no request %q was made", action)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("decode body of %s: %v", action, err)
	}
}

type fixture struct {
	api        *fakeAPI
	clock      *clock.Fake
	recorder   *events.FakeRecorder
	controller *Controller
	informers  *informer.SharedInformerFactory
	eventsSeen int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	fake := &fakeAPI{bodies: map[string][]byte{}}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	c, err := client.New(&client.Config{Host: srv.URL, MaxRetries: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	factory := informer.NewSharedInformerFactory(c, 0)
	clk := clock.NewFake(t0)
	rec := &events.FakeRecorder{}
	ctrl, err := New(c, factory, rec, Options{Logger: slog.New(slog.DiscardHandler), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	return &fixture{api: fake, clock: clk, recorder: rec, controller: ctrl, informers: factory}
}

func (f *fixture) put(t *testing.T, objs ...api.Object) {
	t.Helper()
	for _, obj := range objs {
		var err error
		switch o := obj.(type) {
		case *api.Node:
			err = f.informers.Nodes().Informer().GetIndexer().Update(o)
		case *api.Pod:
			err = f.informers.Pods().Informer().GetIndexer().Update(o)
		default:
			t.Fatalf("put %T", obj)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func (f *fixture) remove(t *testing.T, obj api.Object) {
	t.Helper()
	var err error
	switch o := obj.(type) {
	case *api.Node:
		err = f.informers.Nodes().Informer().GetIndexer().Delete(o)
	case *api.Pod:
		err = f.informers.Pods().Informer().GetIndexer().Delete(o)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// sync runs one sync of pod key and returns the requests it made.
func (f *fixture) sync(t *testing.T, key string) []string {
	t.Helper()
	if err := f.controller.sync(context.Background(), key); err != nil {
		t.Fatalf("sync %s: %v", key, err)
	}
	return f.api.take()
}

func (f *fixture) events() []string {
	all := f.recorder.Events()
	fresh := all[f.eventsSeen:]
	f.eventsSeen = len(all)
	return fresh
}

// taintedNode is a node with the given taints.
func taintedNode(name string, taints ...api.Taint) *api.Node {
	return &api.Node{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.NodeSpec{Taints: taints}}
}

var (
	unreachable = api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute}
	notReady    = api.Taint{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute}
)

// podOn is a running pod on nodeName with tolerations.
func podOn(name, nodeName string, tolerations ...api.Toleration) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name, ResourceVersion: "3"},
		Spec:       api.PodSpec{NodeName: nodeName, Tolerations: tolerations, Containers: []api.Container{{Name: "app", Image: "nginx"}}},
		Status:     api.PodStatus{Phase: api.PodRunning},
	}
}

// tolerate is an Exists toleration of key's NoExecute taint for seconds
// (nil: for ever).
func tolerate(key string, seconds *int64) api.Toleration {
	return api.Toleration{Key: key, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: seconds}
}

func seconds(n int64) *int64 { return &n }
