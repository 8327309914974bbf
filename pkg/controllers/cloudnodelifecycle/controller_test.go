package cloudnodelifecycle

import (
	"context"
	"log/slog"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/cloudprovider"
	"kplane/pkg/cloudprovider/simulated"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

type fixture struct {
	server     *fakeapi.Server
	cloud      *simulated.Cloud
	recorder   *controllertest.Recorder
	controller *Controller
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	server, cloud, rec := controllertest.NewCloudFixture(t, simulated.DefaultLoadBalancerIPRange)
	ctrl, err := New(server.Client(), server.Informers(), rec, cloud, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	return &fixture{server: server, cloud: cloud, recorder: rec, controller: ctrl}
}

func node(name string, ready api.ConditionStatus, taints ...api.Taint) *api.Node {
	return &api.Node{ObjectMeta: api.ObjectMeta{Name: name, UID: "uid-" + name, ResourceVersion: "7"},
		Spec:   api.NodeSpec{Taints: taints},
		Status: api.NodeStatus{Conditions: []api.NodeCondition{{Type: api.NodeReady, Status: ready}}}}
}

var shutdown = api.Taint{Key: cloudprovider.TaintNodeShutdown, Effect: api.TaintEffectNoSchedule}

func TestSync(t *testing.T) {
	tests := []struct {
		name    string
		node    *api.Node
		machine simulated.InstanceState
		want    []string // API writes
		events  []string
		taints  []string // the shutdown taint after an update: present or not
	}{
		{name: "ready node with a running machine: nothing", node: node("node1", api.ConditionTrue), machine: simulated.InstanceRunning},
		{name: "ready node whose machine is off: nothing until it stops being Ready", node: node("node1", api.ConditionTrue), machine: simulated.InstanceShutdown},
		{name: "unready node with a running machine: nothing (the kubelet's trouble)", node: node("node1", api.ConditionUnknown), machine: simulated.InstanceRunning},
		{name: "unready node whose machine is shut down: tainted", node: node("node1", api.ConditionUnknown), machine: simulated.InstanceShutdown,
			want: []string{"update nodes node1"}, taints: []string{cloudprovider.TaintNodeShutdown}},
		{name: "already tainted: nothing", node: node("node1", api.ConditionFalse, shutdown), machine: simulated.InstanceShutdown},
		{name: "ready again: the taint goes", node: node("node1", api.ConditionTrue, shutdown), machine: simulated.InstanceRunning,
			want: []string{"update nodes node1"}, taints: []string{}},
		{name: "unready node whose machine is gone: deleted", node: node("node1", api.ConditionUnknown), machine: simulated.InstanceDeleted,
			want:   []string{"delete nodes node1"},
			events: []string{"Normal DeletingNode Deleting node node1 because it does not exist in the cloud provider"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.server.Put(t, tt.node)
			if _, err := f.cloud.SetInstanceState("node1", tt.machine); err != nil {
				t.Fatal(err)
			}
			if err := f.controller.sync(context.Background(), "node1"); err != nil {
				t.Fatal(err)
			}
			f.server.ExpectActions(t, tt.want...)
			f.recorder.ExpectEvents(t, tt.events...)
			if tt.taints != nil {
				got := fakeapi.Result[*api.Node](t, f.server, "update nodes node1").Spec.Taints
				var keys []string
				for _, taint := range got {
					keys = append(keys, taint.Key)
				}
				if len(keys) != len(tt.taints) || (len(keys) == 1 && keys[0] != tt.taints[0]) {
					t.Fatalf("taints = %v, want %v", keys, tt.taints)
				}
			}
			if len(tt.want) == 0 {
				controllertest.ExpectNoDecision(t, f.server.Decisions("node1"))
			}
		})
	}
}

func TestSyncRecordsWhyANodeIsDeleted(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, node("node2", api.ConditionUnknown))
	if _, err := f.cloud.SetInstanceState("node2", simulated.InstanceDeleted); err != nil {
		t.Fatal(err)
	}
	if err := f.controller.sync(context.Background(), "node2"); err != nil {
		t.Fatal(err)
	}
	controllertest.ExpectDecision(t, f.server.Decisions("node2"),
		"node2 Ready=Unknown and the cloud has no machine for it → delete the Node", map[string]string{"action": "delete"})
	if _, ok := fakeapi.Get[*api.Node](t, f.server, "", "node2"); ok {
		t.Fatal("node2 is still stored")
	}
}
