package nodelifecycle

import (
	"context"
	"log/slog"
	"strings"
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
// (ExpectActions). Time is a fake clock the test steps.

// t0 is the fake clock's start.
var t0 = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

// The writes the tests expect most, as fakeapi spells them.
const (
	updateNode1       = "update nodes node1"
	updateNode1Status = "update nodes/status node1"
)

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

// sync runs one sync of node name and fails the test on its error.
func (f *fixture) sync(t *testing.T, name string) {
	t.Helper()
	if err := f.controller.sync(context.Background(), name); err != nil {
		t.Fatalf("sync %s: %v", name, err)
	}
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
