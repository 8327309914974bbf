package nodelifecycle

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/events"
	"kplane/pkg/informer"
)

// These tests follow sample-controller's fixture pattern: objects go into
// the informers' caches by hand, one sync runs, and the test compares the
// API requests the controller made with the expected ones. The
// "apiserver" records every request and answers a write with the object
// it was sent; time is a fake clock the test steps.

// t0 is the fake clock's start.
var t0 = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

// fakeAPI records requests ("PUT /api/v1/nodes/node1/status") with their
// bodies and answers writes by echoing the body; fail makes one path
// answer an error instead.
type fakeAPI struct {
	mu      sync.Mutex
	actions []string
	bodies  map[string][]byte // last body per action
	fail    map[string]*apierrors.StatusError
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	action := r.Method + " " + r.URL.Path
	f.mu.Lock()
	f.actions = append(f.actions, action)
	f.bodies[action] = body
	failure := f.fail[action]
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if failure != nil {
		s := failure.Status()
		w.WriteHeader(int(s.Code))
		_ = json.NewEncoder(w).Encode(s)
		return
	}
	if r.Method == http.MethodDelete {
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Success"}`))
		return
	}
	_, _ = w.Write(body)
}

// take returns the requests made since the last call and forgets them.
func (f *fakeAPI) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Clone(f.actions)
	f.actions = nil
	return out
}

// body decodes the last body sent with action.
func body[T any](t *testing.T, f *fakeAPI, action string) T {
	t.Helper()
	f.mu.Lock()
	b, ok := f.bodies[action]
	f.mu.Unlock()
	var out T
	if !ok {
		t.Fatalf("no request %q was made", action)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("decode body of %s: %v", action, err)
	}
	return out
}

// fixture is a controller whose caches the test fills, whose client talks
// to a fakeAPI, and whose clock is fake.
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
	fake := &fakeAPI{bodies: map[string][]byte{}, fail: map[string]*apierrors.StatusError{}}
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

// put adds or replaces objects in the caches, as the informers would
// after a watch event.
func (f *fixture) put(t *testing.T, objs ...api.Object) {
	t.Helper()
	for _, obj := range objs {
		var err error
		switch o := obj.(type) {
		case *api.Node:
			err = f.informers.Nodes().Informer().GetIndexer().Update(o)
		case *api.Lease:
			err = f.informers.Leases().Informer().GetIndexer().Update(o)
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

// sync runs one sync of node name and returns the requests it made.
func (f *fixture) sync(t *testing.T, name string) []string {
	t.Helper()
	if err := f.controller.sync(context.Background(), name); err != nil {
		t.Fatalf("sync %s: %v", name, err)
	}
	return f.api.take()
}

// events returns the events recorded since the last call.
func (f *fixture) events() []string {
	all := f.recorder.Events()
	fresh := all[f.eventsSeen:]
	f.eventsSeen = len(all)
	return fresh
}

// healthyNode is a node whose kubelet posted its four conditions at
// heartbeat, with a pod range.
func healthyNode(name string, heartbeat time.Time) *api.Node {
	node := &api.Node{
		ObjectMeta: api.ObjectMeta{Name: name, UID: "uid-" + name, ResourceVersion: "5", CreationTimestamp: api.NewTime(t0.Add(-time.Hour))},
		Spec:       api.NodeSpec{PodCIDR: "10.244.1.0/24", PodCIDRs: []string{"10.244.1.0/24"}},
	}
	hb := api.NewTime(heartbeat)
	since := api.NewTime(t0.Add(-time.Hour))
	for _, c := range []struct {
		t       api.NodeConditionType
		s       api.ConditionStatus
		reason  string
		message string
	}{
		{api.NodeMemoryPressure, api.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
		{api.NodeDiskPressure, api.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
		{api.NodePIDPressure, api.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
		{api.NodeReady, api.ConditionTrue, "KubeletReady", "kubelet is posting ready status"},
	} {
		node.Status.Conditions = append(node.Status.Conditions, api.NodeCondition{Type: c.t, Status: c.s, Reason: c.reason, Message: c.message,
			LastHeartbeatTime: hb, LastTransitionTime: since})
	}
	return node
}

// nodeLease is node name's Lease renewed at renew.
func nodeLease(name string, renew time.Time) *api.Lease {
	rt := api.MicroTime{Time: renew}
	holder := name
	return &api.Lease{ObjectMeta: api.ObjectMeta{Name: name, Namespace: api.NamespaceNodeLease},
		Spec: api.LeaseSpec{HolderIdentity: &holder, RenewTime: &rt}}
}

// readyPod is a pod on nodeName that became Ready at readySince.
func readyPod(name, nodeName string, readySince time.Time) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name, ResourceVersion: "7"},
		Spec:       api.PodSpec{NodeName: nodeName, Containers: []api.Container{{Name: "app", Image: "nginx"}}},
		Status: api.PodStatus{Phase: api.PodRunning, Conditions: []api.PodCondition{
			{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(readySince)},
		}},
	}
}

// conditionSummary renders a node's conditions as "Type=Status(Reason)".
func conditionSummary(node *api.Node) string {
	var parts []string
	for _, c := range node.Status.Conditions {
		parts = append(parts, string(c.Type)+"="+string(c.Status)+"("+c.Reason+")")
	}
	return strings.Join(parts, " ")
}

// taintSummary renders taints as "key:Effect".
func taintSummary(taints []api.Taint) string {
	var parts []string
	for _, t := range taints {
		parts = append(parts, t.Key+":"+string(t.Effect))
	}
	return strings.Join(parts, " ")
}
