package cloudnode

import (
	"context"
	"log/slog"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
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

var uninitializedTaint = api.Taint{Key: cloudprovider.TaintExternalCloudProvider, Value: "true", Effect: api.TaintEffectNoSchedule}

// kubeletNode is a node as a kubelet with --cloud-provider=external
// registers it.
func kubeletNode(name string, taints ...api.Taint) *api.Node {
	return &api.Node{
		ObjectMeta: api.ObjectMeta{Name: name, ResourceVersion: "3", Labels: map[string]string{"kubernetes.io/hostname": name}},
		Spec:       api.NodeSpec{Taints: taints},
		Status: api.NodeStatus{Addresses: []api.NodeAddress{
			{Type: api.NodeInternalIP, Address: "127.0.0.1"}, {Type: api.NodeHostName, Address: name}}},
	}
}

func TestSyncInitializesATaintedNode(t *testing.T) {
	f := newFixture(t)
	controlPlane := api.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: api.TaintEffectNoSchedule}
	f.server.Put(t, kubeletNode("node1", controlPlane, uninitializedTaint))
	if err := f.controller.sync(context.Background(), "node1"); err != nil {
		t.Fatal(err)
	}
	// The kubelet already reports the machine's addresses: one update.
	f.server.ExpectActions(t, "update nodes node1")
	f.recorder.ExpectEvents(t, "Normal Synced Node synced successfully")
	node := fakeapi.Result[*api.Node](t, f.server, "update nodes node1")
	if node.Spec.ProviderID != "kplane://node1" {
		t.Errorf("providerID = %q", node.Spec.ProviderID)
	}
	for k, want := range map[string]string{
		"node.kubernetes.io/instance-type": "kplane.small", "beta.kubernetes.io/instance-type": "kplane.small",
		"topology.kubernetes.io/zone": "kplane-local-b", "failure-domain.beta.kubernetes.io/zone": "kplane-local-b",
		"topology.kubernetes.io/region": "kplane-local", "failure-domain.beta.kubernetes.io/region": "kplane-local",
		"kubernetes.io/hostname": "node1",
	} {
		if node.Labels[k] != want {
			t.Errorf("label %s = %q, want %q", k, node.Labels[k], want)
		}
	}
	if len(node.Spec.Taints) != 1 || node.Spec.Taints[0].Key != controlPlane.Key {
		t.Errorf("taints = %+v, want only the control-plane taint", node.Spec.Taints)
	}
	controllertest.ExpectDecision(t, f.server.Decisions("node1"),
		"node1 has the node.cloudprovider.kubernetes.io/uninitialized taint → the cloud says providerID kplane://node1, type kplane.small, zone kplane-local-b, region kplane-local: label the node and remove the taint",
		map[string]string{"zone": "kplane-local-b"})
	if views := f.cloud.InstanceViews(); len(views) != 1 || views[0].State != simulated.InstanceRunning {
		t.Fatalf("cloud instances = %+v", views)
	}
}

func TestSyncWritesTheCloudsAddressesWhenTheyDiffer(t *testing.T) {
	f := newFixture(t)
	node := kubeletNode("node2", uninitializedTaint)
	node.Status.Addresses = nil // a kubelet that has not posted its status yet
	f.server.Put(t, node)
	if err := f.controller.sync(context.Background(), "node2"); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, "update nodes node2", "update nodes/status node2")
	got := fakeapi.Result[*api.Node](t, f.server, "update nodes/status node2").Status.Addresses
	if len(got) != 1 || got[0].Type != api.NodeHostName || got[0].Address != "node2" {
		t.Fatalf("addresses = %+v, want the Hostname the cloud knows", got)
	}
}

func TestSyncLeavesInitializedAndMachinelessNodesAlone(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, kubeletNode("node1"), kubeletNode("node2", uninitializedTaint))
	if _, err := f.cloud.SetInstanceState("node2", simulated.InstanceDeleted); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"node1", "node2", "gone"} {
		if err := f.controller.sync(context.Background(), name); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	f.server.ExpectActions(t)
	f.recorder.ExpectEvents(t)
	controllertest.ExpectNoDecision(t, f.server.Decisions("node1"))
}

func TestSyncReturnsAConflictForARetry(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, kubeletNode("node1", uninitializedTaint))
	f.server.FailOn(fakeapi.VerbUpdate, "nodes", "node1", apierrors.NewConflict(apierrors.Resource{Resource: "nodes"}, "node1", "the object has been modified"))
	if err := f.controller.sync(context.Background(), "node1"); err == nil || !apierrors.IsConflict(err) {
		t.Fatalf("err = %v, want the conflict back", err)
	}
	f.recorder.ExpectEvents(t)
}
