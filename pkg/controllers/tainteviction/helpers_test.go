package tainteviction

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/events"
	"kplane/test/framework/fakeapi"
)

// These tests follow sample-controller's fixture pattern: objects go into
// the fake apiserver and the informers' caches (fakeapi's Put), one sync
// runs, and the test lists the API writes the controller made, in order
// (ExpectActions). Time is a fake clock the test steps, so five minutes of
// toleration take no time.

var t0 = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

// fixture is a controller built on a fakeapi server, with a fake clock.
type fixture struct {
	server     *fakeapi.Server
	clock      *clock.Fake
	recorder   *events.FakeRecorder
	controller *Controller
	eventsSeen int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	clk := clock.NewFake(t0)
	server := fakeapi.New(t, fakeapi.WithClock(clk))
	rec := &events.FakeRecorder{}
	ctrl, err := New(server.Client(), server.Informers(), rec, Options{Logger: slog.New(slog.DiscardHandler), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	return &fixture{server: server, clock: clk, recorder: rec, controller: ctrl}
}

// sync runs one sync of pod key and fails the test on its error.
func (f *fixture) sync(t *testing.T, key string) {
	t.Helper()
	if err := f.controller.sync(context.Background(), key); err != nil {
		t.Fatalf("sync %s: %v", key, err)
	}
}

// events returns the events recorded since the last call.
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
