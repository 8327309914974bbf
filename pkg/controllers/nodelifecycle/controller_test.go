package nodelifecycle

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/controllers/controllerutil"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

// A node is marked Unknown only once the grace period has passed since
// the controller last saw a heartbeat — not at the boundary, one second
// after it — with upstream's reasons on all four kubelet conditions, the
// unreachable taints, and a NodeNotReady event.
func TestSilentNodeIsMarkedUnknownAfterGracePeriod(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, healthyNode("node1", t0.Add(-2*time.Second)), nodeLease("node1", t0.Add(-time.Second)))

	f.sync(t, "node1")
	f.server.ExpectActions(t)
	if got := f.events(); !slices.Equal(got, []string{"Normal RegisteredNode Node node1 event: Registered Node node1 in Controller"}) {
		t.Errorf("first sync events = %q", got)
	}

	f.clock.Step(DefaultNodeMonitorGracePeriod)
	f.sync(t, "node1") // exactly the grace period: still healthy
	f.server.ExpectActions(t)

	f.clock.Step(time.Second)
	f.sync(t, "node1")
	f.server.ExpectActions(t, updateNode1Status, updateNode1)

	status := fakeapi.Sent[*api.Node](t, f.server, updateNode1Status)
	const want = "MemoryPressure=Unknown(NodeStatusUnknown) DiskPressure=Unknown(NodeStatusUnknown) " +
		"PIDPressure=Unknown(NodeStatusUnknown) Ready=Unknown(NodeStatusUnknown)"
	if got := conditionSummary(status); got != want {
		t.Errorf("conditions written = %s\nwant %s", got, want)
	}
	ready := findCondition(&status.Status, api.NodeReady)
	if ready.Message != "Kubelet stopped posting node status." {
		t.Errorf("Ready message = %q", ready.Message)
	}
	if !ready.LastTransitionTime.Time.Equal(f.clock.Now()) {
		t.Errorf("Ready lastTransitionTime = %v, want now %v", ready.LastTransitionTime, f.clock.Now())
	}
	if !ready.LastHeartbeatTime.Time.Equal(t0.Add(-2 * time.Second)) {
		t.Errorf("Ready lastHeartbeatTime = %v, want the kubelet's last heartbeat kept", ready.LastHeartbeatTime)
	}

	tainted := fakeapi.Sent[*api.Node](t, f.server, updateNode1)
	if got := taintSummary(tainted.Spec.Taints); got != "node.kubernetes.io/unreachable:NoSchedule node.kubernetes.io/unreachable:NoExecute" {
		t.Errorf("taints written = %q", got)
	}
	for _, taint := range tainted.Spec.Taints {
		switch {
		case taint.Effect == api.TaintEffectNoExecute && (taint.TimeAdded == nil || !taint.TimeAdded.Time.Equal(f.clock.Now())):
			t.Errorf("NoExecute taint timeAdded = %v, want now", taint.TimeAdded)
		case taint.Effect == api.TaintEffectNoSchedule && taint.TimeAdded != nil:
			t.Errorf("NoSchedule taint has timeAdded %v", taint.TimeAdded)
		}
	}
	if got := f.events(); !slices.Equal(got, []string{"Normal NodeNotReady Node node1 status is now: NodeNotReady"}) {
		t.Errorf("events = %q", got)
	}
	decisions := f.server.Decisions("node1")
	if len(decisions) != 2 {
		t.Fatalf("decisions %+v; want the Unknown verdict, then the taints", decisions)
	}
	controllertest.ExpectDecision(t, decisions[:1],
		"node1: no heartbeat (Lease or Ready condition) for 51s > grace 50s → Ready=Unknown and the other kubelet conditions Unknown",
		map[string]string{"secondsSinceHeartbeat": "51", "gracePeriodSeconds": "50"})
	controllertest.ExpectDecision(t, decisions,
		"node1 Ready=Unknown → taints node.kubernetes.io/unreachable:NoSchedule, node.kubernetes.io/unreachable:NoExecute (were none)",
		map[string]string{"ready": "Unknown", "taints": "2"})

	// The cache catches up with both writes: nothing more to do.
	f.server.Put(t, fakeapi.Result[*api.Node](t, f.server, updateNode1))
	f.sync(t, "node1")
	f.server.ExpectActions(t)
	if got := f.events(); len(got) != 0 {
		t.Errorf("second sync recorded %q", got)
	}
}

// Either heartbeat counts: a renewed Lease, or a new lastHeartbeatTime on
// the Ready condition, restarts the grace period.
func TestHeartbeatsRestartTheGracePeriod(t *testing.T) {
	for _, viaLease := range []bool{true, false} {
		t.Run(fmt.Sprintf("lease=%v", viaLease), func(t *testing.T) {
			f := newFixture(t)
			f.server.Put(t, healthyNode("node1", t0), nodeLease("node1", t0))
			f.sync(t, "node1")

			f.clock.Step(40 * time.Second)
			if viaLease {
				f.server.Put(t, nodeLease("node1", f.clock.Now()))
			} else {
				f.server.Put(t, healthyNode("node1", f.clock.Now()))
			}
			f.sync(t, "node1")

			f.clock.Step(40 * time.Second) // 80 s after t0, 40 s after the heartbeat
			f.sync(t, "node1")
			f.server.ExpectActions(t)
			f.clock.Step(11 * time.Second)
			f.sync(t, "node1")
			f.server.ExpectActions(t, updateNode1Status, updateNode1)
		})
	}
}

// Pods on a node marked Unknown have their Ready condition set to False,
// with a NodeNotReady warning each; pods elsewhere, pods not ready and
// pods that became Ready after the node went Unknown are left alone.
func TestPodsOfUnknownNodeAreMarkedNotReady(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, healthyNode("node1", t0), nodeLease("node1", t0),
		readyPod("web-1", "node1", t0.Add(-time.Minute)),
		readyPod("web-2", "node2", t0.Add(-time.Minute)))
	notReady := readyPod("starting", "node1", t0.Add(-time.Minute))
	notReady.Status.Conditions[0].Status = api.ConditionFalse
	f.server.Put(t, notReady)
	f.sync(t, "node1")
	f.events()

	f.clock.Step(DefaultNodeMonitorGracePeriod + time.Second)
	f.sync(t, "node1")
	f.server.ExpectActions(t, updateNode1Status, "update pods/status web-1", updateNode1)
	pod := fakeapi.Sent[*api.Pod](t, f.server, "update pods/status web-1")
	ready := controllerutil.GetPodReadyCondition(pod)
	if ready.Status != api.ConditionFalse || !ready.LastTransitionTime.Time.Equal(f.clock.Now()) {
		t.Errorf("web-1 Ready = %s since %v, want False since now", ready.Status, ready.LastTransitionTime)
	}
	want := []string{"Normal NodeNotReady Node node1 status is now: NodeNotReady", "Warning NodeNotReady Node is not ready"}
	if got := f.events(); !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
	if decisions := f.server.Decisions("node1"); len(decisions) != 3 {
		t.Errorf("decisions %+v; want Unknown, pods not ready, taints", decisions)
	} else {
		controllertest.ExpectDecision(t, decisions[:2], "node1 Ready=Unknown → mark its 1 ready pods Ready=False: default/web-1",
			map[string]string{"pods": "1"})
	}

	// The caches catch up; the kubelet is still gone. A retry marks
	// nothing again.
	f.server.Put(t, fakeapi.Result[*api.Node](t, f.server, updateNode1), fakeapi.Result[*api.Pod](t, f.server, "update pods/status web-1"))
	f.sync(t, "node1")
	f.server.ExpectActions(t)

	// The kubelet comes back and makes web-1 Ready before it reposts its
	// node: a pod that became Ready after the node went Unknown stays so.
	f.clock.Step(time.Minute)
	f.server.Put(t, readyPod("web-1", "node1", f.clock.Now()))
	f.sync(t, "node1")
	f.server.ExpectActions(t)
}

// A pod status write that fails is retried by failing the sync; the node
// writes that succeeded are not repeated.
func TestFailedPodMarkIsRetried(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, healthyNode("node1", t0), nodeLease("node1", t0), readyPod("web-1", "node1", t0.Add(-time.Minute)))
	f.sync(t, "node1")
	f.clock.Step(DefaultNodeMonitorGracePeriod + time.Second)
	failing := true
	f.server.React(func(a fakeapi.Action) error {
		if failing && a.String() == "update pods/status web-1" {
			return apierrors.NewConflict(apierrors.Resource{Resource: "pods"}, "web-1", "changed")
		}
		return nil
	})
	err := f.controller.sync(t.Context(), "node1")
	if err == nil || !strings.Contains(err.Error(), "web-1") {
		t.Fatalf("sync error = %v, want the failed pod write", err)
	}
	f.server.ExpectActions(t, updateNode1Status, "update pods/status web-1", updateNode1)
	f.server.Put(t, fakeapi.Result[*api.Node](t, f.server, updateNode1))
	failing = false
	f.sync(t, "node1")
	f.server.ExpectActions(t, "update pods/status web-1")
}

// When the kubelet posts Ready=True again the taints go; taints the
// controller does not own stay.
func TestTaintsRemovedWhenNodeIsReadyAgain(t *testing.T) {
	f := newFixture(t)
	node := healthyNode("node1", t0)
	added := api.NewTime(t0.Add(-time.Minute))
	node.Spec.Taints = []api.Taint{
		{Key: "node-role.kubernetes.io/control-plane", Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute, TimeAdded: &added},
	}
	f.server.Put(t, node, nodeLease("node1", t0))
	f.sync(t, "node1")
	f.server.ExpectActions(t, updateNode1)
	got := fakeapi.Sent[*api.Node](t, f.server, updateNode1)
	if s := taintSummary(got.Spec.Taints); s != "node-role.kubernetes.io/control-plane:NoSchedule" {
		t.Errorf("taints after recovery = %q", s)
	}
	if ev := f.events(); slices.ContainsFunc(ev, func(e string) bool { return strings.Contains(e, "NodeNotReady") }) {
		t.Errorf("recovery recorded %q", ev)
	}
}

// A kubelet that reports Ready=False gets the not-ready taints; nothing
// is overdue, so no status is written and the pods are the kubelet's
// business.
func TestNotReadyNodeGetsNotReadyTaints(t *testing.T) {
	f := newFixture(t)
	node := healthyNode("node1", t0)
	ready := findCondition(&node.Status, api.NodeReady)
	ready.Status, ready.Reason = api.ConditionFalse, "KubeletNotReady"
	f.server.Put(t, node, nodeLease("node1", t0), readyPod("web-1", "node1", t0.Add(-time.Minute)))
	f.sync(t, "node1")
	f.server.ExpectActions(t, updateNode1)
	got := fakeapi.Sent[*api.Node](t, f.server, updateNode1)
	if s := taintSummary(got.Spec.Taints); s != "node.kubernetes.io/not-ready:NoSchedule node.kubernetes.io/not-ready:NoExecute" {
		t.Errorf("taints = %q", s)
	}

	// Ready=False turning Unknown swaps not-ready for unreachable.
	f.server.Put(t, fakeapi.Result[*api.Node](t, f.server, updateNode1))
	f.clock.Step(DefaultNodeMonitorGracePeriod + time.Second)
	f.sync(t, "node1")
	f.server.ExpectActions(t, updateNode1Status, "update pods/status web-1", updateNode1)
	swapped := fakeapi.Sent[*api.Node](t, f.server, updateNode1)
	if s := taintSummary(swapped.Spec.Taints); s != "node.kubernetes.io/unreachable:NoSchedule node.kubernetes.io/unreachable:NoExecute" {
		t.Errorf("taints after the node went Unknown = %q", s)
	}
}

// A node whose kubelet never posted a status is given the startup grace
// period from its creation, then gets every kubelet condition as
// NodeStatusNeverUpdated.
func TestNodeThatNeverPostedStatus(t *testing.T) {
	f := newFixture(t)
	young := &api.Node{ObjectMeta: api.ObjectMeta{Name: "young", CreationTimestamp: api.NewTime(t0.Add(-30 * time.Second))},
		Spec: api.NodeSpec{PodCIDR: "10.244.7.0/24"}}
	old := &api.Node{ObjectMeta: api.ObjectMeta{Name: "old", CreationTimestamp: api.NewTime(t0.Add(-61 * time.Second))},
		Spec: api.NodeSpec{PodCIDR: "10.244.8.0/24"}}
	f.server.Put(t, young, old)
	f.sync(t, "young")
	f.server.ExpectActions(t)
	f.sync(t, "old")
	f.server.ExpectActions(t, "update nodes/status old", "update nodes old")
	got := fakeapi.Sent[*api.Node](t, f.server, "update nodes/status old")
	const want = "Ready=Unknown(NodeStatusNeverUpdated) MemoryPressure=Unknown(NodeStatusNeverUpdated) " +
		"DiskPressure=Unknown(NodeStatusNeverUpdated) PIDPressure=Unknown(NodeStatusNeverUpdated)"
	if s := conditionSummary(got); s != want {
		t.Errorf("conditions = %s\nwant %s", s, want)
	}
	if c := findCondition(&got.Status, api.NodeReady); c.Message != "Kubelet never posted node status." || !c.LastHeartbeatTime.Time.Equal(old.CreationTimestamp.Time) {
		t.Errorf("Ready = %+v", c)
	}

	// A node that renews its Lease but never posts status counts as alive.
	f.server.Put(t, nodeLease("young", t0))
	f.clock.Step(45 * time.Second)
	f.sync(t, "young")
	f.server.ExpectActions(t)
}

// Nodes without a pod range get the lowest free 10.244.N.0/24; two synced
// before the cache shows either write get different ones.
func TestPodCIDRAssignment(t *testing.T) {
	f := newFixture(t)
	withCIDR := func(name, cidr string) *api.Node {
		n := healthyNode(name, t0)
		n.Spec.PodCIDR, n.Spec.PodCIDRs = cidr, nil
		if cidr != "" {
			n.Spec.PodCIDRs = []string{cidr}
		}
		return n
	}
	f.server.Put(t, withCIDR("control-plane", "10.244.0.0/24"), withCIDR("node1", "10.244.1.0/24"), withCIDR("node3", "10.244.3.0/24"),
		withCIDR("new-a", ""), withCIDR("new-b", ""))

	f.sync(t, "node1")
	f.server.ExpectActions(t)
	f.sync(t, "new-a")
	f.server.ExpectActions(t, "update nodes new-a")
	f.sync(t, "new-b")
	f.server.ExpectActions(t, "update nodes new-b")
	a := fakeapi.Sent[*api.Node](t, f.server, "update nodes new-a")
	b := fakeapi.Sent[*api.Node](t, f.server, "update nodes new-b")
	if a.Spec.PodCIDR != "10.244.2.0/24" || !slices.Equal(a.Spec.PodCIDRs, []string{"10.244.2.0/24"}) {
		t.Errorf("new-a got %q %q, want 10.244.2.0/24", a.Spec.PodCIDR, a.Spec.PodCIDRs)
	}
	if b.Spec.PodCIDR != "10.244.4.0/24" {
		t.Errorf("new-b got %q, want 10.244.4.0/24 (2 is new-a's, 3 is node3's)", b.Spec.PodCIDR)
	}
	controllertest.ExpectDecision(t, f.server.Decisions("new-b"), "new-b has no podCIDR → assign 10.244.4.0/24, the first free range",
		map[string]string{"podCIDR": "10.244.4.0/24"})
	controllertest.ExpectNoDecision(t, f.server.Decisions("node1"))
	if got := f.events(); slices.ContainsFunc(got, func(e string) bool { return strings.Contains(e, "CIDR") }) {
		t.Errorf("events = %q", got)
	}

	// The cache shows new-a's range; syncing it again writes nothing.
	f.server.Put(t, fakeapi.Result[*api.Node](t, f.server, "update nodes new-a"))
	f.sync(t, "new-a")
	f.server.ExpectActions(t)
}

// A full cluster CIDR is reported as upstream does, and the node's health
// is still looked after.
func TestPodCIDRRangeFull(t *testing.T) {
	f := newFixture(t)
	alloc, err := newCIDRAllocator(DefaultClusterCIDR, 17) // room for one /17 only
	if err != nil {
		t.Fatal(err)
	}
	f.controller.cidrs = alloc
	taken := healthyNode("taken", t0)
	taken.Spec.PodCIDR, taken.Spec.PodCIDRs = "10.244.0.0/17", []string{"10.244.0.0/17"}
	other := healthyNode("other", t0)
	other.Spec.PodCIDR, other.Spec.PodCIDRs = "10.244.128.0/17", []string{"10.244.128.0/17"}
	late := healthyNode("late", t0)
	late.Spec.PodCIDR, late.Spec.PodCIDRs = "", nil
	f.server.Put(t, taken, other, late)
	err = f.controller.sync(t.Context(), "late")
	if err == nil || !strings.Contains(err.Error(), "no remaining CIDRs") {
		t.Fatalf("sync error = %v, want the range to be full", err)
	}
	f.server.ExpectActions(t)
	if got := f.events(); !slices.Contains(got, "Normal CIDRNotAvailable Node late status is now: CIDRNotAvailable") {
		t.Errorf("events = %q", got)
	}
}

// A deleted node is forgotten: if it comes back it is registered again.
func TestDeletedNodeIsForgotten(t *testing.T) {
	f := newFixture(t)
	node := healthyNode("node1", t0)
	f.server.Put(t, node)
	f.sync(t, "node1")
	f.server.Uncache(t, node) // the informer saw the node's deletion
	f.sync(t, "node1")
	f.server.ExpectActions(t)
	f.server.Put(t, node)
	f.events()
	f.sync(t, "node1")
	if got := f.events(); len(got) != 1 || !strings.Contains(got[0], "RegisteredNode") {
		t.Errorf("events after the node came back = %q", got)
	}
}
