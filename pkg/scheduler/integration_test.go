package scheduler_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/scheduler"
	"kplane/test/framework"
)

// controlPlaneTaint is the taint a control-plane node carries.
var controlPlaneTaint = api.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: api.TaintEffectNoSchedule}

func threeNodes() []nodeSpec {
	return []nodeSpec{{name: "node1"}, {name: "node2"}, {name: "node3"}}
}

// Thirty pods without requests on three equal nodes end ten to a node:
// LeastAllocated counts each as 100m/200Mi, and assumed pods count at once.
func TestBarePodsSpreadEvenly(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a)
	createNodes(t, c, threeNodes()...)
	var names []string
	for i := range 30 {
		name := fmt.Sprintf("pod-%02d", i)
		names = append(names, name)
		createPods(t, c, makePod(name))
	}
	startScheduler(t, a, nil)

	nodes := waitBound(t, c, names...)
	counts := countPerNode(nodes)
	if counts["node1"] != 10 || counts["node2"] != 10 || counts["node3"] != 10 {
		t.Fatalf("pods per node = %v, want 10 on each of node1, node2, node3", counts)
	}
	ev := waitEvent(t, c, "pod-00", "Scheduled")
	want := "Successfully assigned default/pod-00 to " + nodes["pod-00"]
	if ev.Message != want || ev.Type != api.EventTypeNormal || ev.ReportingController != "default-scheduler" || ev.Action != "Binding" {
		t.Fatalf("Scheduled event = %q (type %s, reportingController %q, action %q), want %q (Normal, default-scheduler, Binding)", ev.Message, ev.Type, ev.ReportingController, ev.Action, want)
	}
	if cond := podScheduledCondition(t, c, "pod-00"); cond == nil || cond.Status != api.ConditionTrue {
		t.Fatalf("PodScheduled condition = %+v, want True", cond)
	}
}

// A pod asking for more CPU than any node has stays Pending with
// upstream's message, and is placed as soon as a node with room appears.
func TestInsufficientCPUThenFittingNodeAppears(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a)
	createNodes(t, c, threeNodes()...)
	createPods(t, c, makePod("big", withRequests("8", "")))
	startScheduler(t, a, nil)

	// This is exactly what kube-scheduler 1.32 prints when no PostFilter
	// plugin adds a sentence; with its default preemption plugin it would
	// append " preemption: 0/3 nodes are available: 3 No preemption
	// victims found for incoming pod." — kplane has no preemption.
	const want = "0/3 nodes are available: 3 Insufficient cpu."
	ev := waitEvent(t, c, "big", "FailedScheduling")
	if ev.Message != want || ev.Type != api.EventTypeWarning || ev.ReportingController != "default-scheduler" || ev.Action != "Scheduling" {
		t.Fatalf("FailedScheduling event = %q (type %s, reportingController %q, action %q), want %q (Warning, default-scheduler, Scheduling)", ev.Message, ev.Type, ev.ReportingController, ev.Action, want)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		cond := podScheduledCondition(t, c, "big")
		return cond != nil && cond.Status == api.ConditionFalse && cond.Reason == api.PodReasonUnschedulable && cond.Message == want,
			fmt.Sprintf("PodScheduled condition %+v", cond)
	})
	if n := podNodes(t, c)["big"]; n != "" {
		t.Fatalf("pod big bound to %s, want Pending", n)
	}

	createNodes(t, c, nodeSpec{name: "node4", cpu: "16"})
	if n := waitBound(t, c, "big")["big"]; n != "node4" {
		t.Fatalf("pod big bound to %s, want node4", n)
	}
}

// Each filter keeps pods where Kubernetes keeps them.
func TestFilters(t *testing.T) {
	zoneAffinity := func(zone string) func(*api.Pod) {
		return func(p *api.Pod) {
			p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
					MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{zone}}},
				}}},
			}}
		}
	}
	tolerateControlPlane := func(p *api.Pod) {
		p.Spec.Tolerations = []api.Toleration{{Key: controlPlaneTaint.Key, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}}
		p.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": "control-plane"}
	}
	tests := []struct {
		name  string
		nodes []nodeSpec
		pods  []*api.Pod
		// wantNodes: pod → node it must be bound to ("*" any node).
		wantNodes map[string]string
		// wantPending: pod → its exact FailedScheduling message.
		wantPending map[string]string
	}{
		{
			name:  "nodeSelector",
			nodes: []nodeSpec{{name: "node1"}, {name: "node2", labels: map[string]string{"disktype": "ssd"}}, {name: "node3"}},
			pods: []*api.Pod{
				makePod("ssd-1", func(p *api.Pod) { p.Spec.NodeSelector = map[string]string{"disktype": "ssd"} }),
				makePod("ssd-2", func(p *api.Pod) { p.Spec.NodeSelector = map[string]string{"disktype": "ssd"} }),
				makePod("nvme", func(p *api.Pod) { p.Spec.NodeSelector = map[string]string{"disktype": "nvme"} }),
			},
			wantNodes:   map[string]string{"ssd-1": "node2", "ssd-2": "node2"},
			wantPending: map[string]string{"nvme": "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."},
		},
		{
			name: "required node affinity",
			nodes: []nodeSpec{
				{name: "node1", labels: map[string]string{"zone": "a"}},
				{name: "node2", labels: map[string]string{"zone": "b"}},
				{name: "node3", labels: map[string]string{"zone": "b"}},
			},
			pods: []*api.Pod{
				makePod("in-a", zoneAffinity("a")),
				makePod("in-a-2", zoneAffinity("a")),
				makePod("in-c", zoneAffinity("c")),
			},
			wantNodes:   map[string]string{"in-a": "node1", "in-a-2": "node1"},
			wantPending: map[string]string{"in-c": "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."},
		},
		{
			name:  "control-plane taint",
			nodes: []nodeSpec{{name: "control-plane", taints: []api.Taint{controlPlaneTaint}}, {name: "node1", cpu: "1"}},
			pods: []*api.Pod{
				makePod("web-1"), makePod("web-2"), makePod("web-3"),
				makePod("tolerating", tolerateControlPlane),
				makePod("too-big", withRequests("2", "")),
			},
			wantNodes: map[string]string{"web-1": "node1", "web-2": "node1", "web-3": "node1", "tolerating": "control-plane"},
			wantPending: map[string]string{
				"too-big": "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }.",
			},
		},
		{
			name:  "host ports",
			nodes: []nodeSpec{{name: "node1"}, {name: "node2"}},
			pods: []*api.Pod{
				makePod("port-1", withHostPort(8080)),
				makePod("port-2", withHostPort(8080)),
				makePod("port-3", withHostPort(8080)),
				makePod("other-port", withHostPort(9090)),
			},
			wantNodes:   map[string]string{"other-port": "*"},
			wantPending: map[string]string{"*": "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports."},
		},
		{
			name:      "cordoned node",
			nodes:     []nodeSpec{{name: "node1", unschedulable: true}, {name: "node2"}},
			pods:      []*api.Pod{makePod("a"), makePod("b"), makePod("c"), makePod("d")},
			wantNodes: map[string]string{"a": "node2", "b": "node2", "c": "node2", "d": "node2"},
		},
		{
			name:        "cordoned cluster",
			nodes:       []nodeSpec{{name: "node1", unschedulable: true}},
			pods:        []*api.Pod{makePod("a")},
			wantPending: map[string]string{"a": "0/1 nodes are available: 1 node(s) were unschedulable."},
		},
		{
			name:        "too many pods and memory",
			nodes:       []nodeSpec{{name: "node1", pods: "1"}, {name: "node2", memory: "1Gi"}},
			pods:        []*api.Pod{makePod("first", func(p *api.Pod) { p.Spec.NodeName = "node1" }), makePod("hungry", withRequests("", "2Gi"))},
			wantPending: map[string]string{"hungry": "0/2 nodes are available: 1 Insufficient memory, 1 Too many pods."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := framework.StartAPIServer(t)
			c := newClient(t, a)
			createNodes(t, c, tt.nodes...)
			createPods(t, c, tt.pods...)
			startScheduler(t, a, nil)

			var bound []string
			for pod := range tt.wantNodes {
				bound = append(bound, pod)
			}
			nodes := waitBound(t, c, bound...)
			for pod, want := range tt.wantNodes {
				if want != "*" && nodes[pod] != want {
					t.Errorf("pod %s on %q, want %q", pod, nodes[pod], want)
				}
			}
			if tt.wantPending["*"] != "" {
				// Host ports: two of the three contenders fit, one per
				// node; the third must stay pending with the message.
				var pending []string
				framework.Eventually(t, waitTimeout, func() (bool, string) {
					nodes = podNodes(t, c)
					pending = nil
					for _, p := range []string{"port-1", "port-2", "port-3"} {
						if nodes[p] == "" {
							pending = append(pending, p)
						}
					}
					return len(pending) == 1 && nodes["port-1"] != nodes["port-2"] && nodes["port-2"] != nodes["port-3"] && nodes["port-1"] != nodes["port-3"],
						fmt.Sprintf("nodes %v", nodes)
				})
				tt.wantPending = map[string]string{pending[0]: tt.wantPending["*"]}
			}
			for pod, want := range tt.wantPending {
				ev := waitEvent(t, c, pod, "FailedScheduling")
				if ev.Message != want {
					t.Errorf("pod %s: FailedScheduling %q, want %q", pod, ev.Message, want)
				}
				if n := podNodes(t, c)[pod]; n != "" {
					t.Errorf("pod %s bound to %s, want Pending", pod, n)
				}
			}
		})
	}
}

// Uncordoning a node is a node update that lets a waiting pod in.
func TestUncordonSchedulesWaitingPod(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a)
	createNodes(t, c, nodeSpec{name: "node1", unschedulable: true})
	createPods(t, c, makePod("waiting"))
	startScheduler(t, a, nil)
	waitEvent(t, c, "waiting", "FailedScheduling")

	ctx := context.Background()
	patch := []byte(`{"spec":{"unschedulable":false}}`)
	if _, err := c.Nodes().Patch(ctx, "node1", client.MergePatchType, patch, client.PatchOptions{}); err != nil {
		t.Fatalf("uncordon: %v", err)
	}
	if n := waitBound(t, c, "waiting")["waiting"]; n != "node1" {
		t.Fatalf("pod on %q, want node1", n)
	}
}

// Deleting a bound pod frees its room for a waiting one.
func TestDeletedPodFreesRoom(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a)
	createNodes(t, c, nodeSpec{name: "node1", cpu: "1"})
	createPods(t, c, makePod("first", withRequests("600m", "")))
	startScheduler(t, a, nil)
	waitBound(t, c, "first")
	createPods(t, c, makePod("second", withRequests("600m", "")))
	ev := waitEvent(t, c, "second", "FailedScheduling")
	if ev.Message != "0/1 nodes are available: 1 Insufficient cpu." {
		t.Fatalf("FailedScheduling %q", ev.Message)
	}
	// Without a kubelet a graceful delete would leave the pod terminating
	// (and still counted, as upstream counts it); delete it at once.
	zero := int64(0)
	if err := c.Pods("default").Delete(context.Background(), "first", client.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	waitBound(t, c, "second")
}

// A second scheduler places the pods that name it, and only those; the
// default scheduler never touches them.
func TestTwoSchedulers(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a)
	createNodes(t, c, threeNodes()...)
	createPods(t, c,
		makePod("mine", withSchedulerName("my-scheduler")),
		makePod("default-1"),
	)
	defaultLog, _ := startScheduler(t, a, nil)
	waitBound(t, c, "default-1")
	// The default scheduler has handled the whole initial list by now.
	if n := podNodes(t, c)["mine"]; n != "" {
		t.Fatalf("pod mine bound to %s before my-scheduler ran", n)
	}
	if evs := append(podEvents(t, c, "mine", "Scheduled"), podEvents(t, c, "mine", "FailedScheduling")...); len(evs) != 0 {
		t.Fatalf("events about pod mine before my-scheduler ran: %+v", evs)
	}

	myLog, _ := startScheduler(t, a, func(o *scheduler.Options) { o.SchedulerName = "my-scheduler" })
	createPods(t, c, makePod("mine-2", withSchedulerName("my-scheduler")), makePod("default-2"))
	waitBound(t, c, "mine", "mine-2", "default-2")

	for pod, wantSource := range map[string]string{"mine": "my-scheduler", "mine-2": "my-scheduler", "default-1": "default-scheduler", "default-2": "default-scheduler"} {
		ev := waitEvent(t, c, pod, "Scheduled")
		// events.k8s.io/v1 events, as upstream's scheduler writes: the
		// reporter is reportingController; the core/v1 source stays empty.
		if ev.Source.Component != "" || ev.ReportingController != wantSource {
			t.Errorf("pod %s: Scheduled with source %q, reportingComponent %q; want no source, %q", pod, ev.Source.Component, ev.ReportingController, wantSource)
		}
		if evs := podEvents(t, c, pod, "Scheduled"); len(evs) != 1 {
			t.Errorf("pod %s: %d Scheduled events, want 1", pod, len(evs))
		}
	}
	if strings.Contains(defaultLog.String(), "pod=default/mine") {
		t.Errorf("default scheduler logged about my-scheduler's pods:\n%s", defaultLog)
	}
	if strings.Contains(myLog.String(), "pod=default/default-") {
		t.Errorf("my-scheduler logged about default-scheduler's pods:\n%s", myLog)
	}
}

// Two schedulers with leader election on one apiserver: only the holder
// of the kube-system/kube-scheduler Lease binds; when it stops, the other
// takes over.
func TestLeaderElection(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a)
	createNodes(t, c, threeNodes()...)
	elect := func(o *scheduler.Options) {
		o.LeaderElect = true
		o.LeaseDuration, o.RenewDeadline, o.RetryPeriod = 6*time.Second, 4*time.Second, 300*time.Millisecond
	}
	logA, stopA := startScheduler(t, a, elect)
	logB, stopB := startScheduler(t, a, elect)

	var names []string
	for i := range 10 {
		names = append(names, fmt.Sprintf("pod-%d", i))
		createPods(t, c, makePod(names[i]))
	}
	waitBound(t, c, names...)
	// The log line follows the binding's answer; wait for all ten.
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		n := strings.Count(logA.String(), "bound pod to node") + strings.Count(logB.String(), "bound pod to node")
		return n == 10, fmt.Sprintf("%d bindings logged", n)
	})

	leader, leaderLog, standbyLog, stopLeader := "A", logA, logB, stopA
	if strings.Count(logB.String(), "bound pod to node") > 0 {
		leader, leaderLog, standbyLog, stopLeader = "B", logB, logA, stopB
	}
	if n := strings.Count(leaderLog.String(), "bound pod to node"); n != 10 {
		t.Fatalf("leader %s bound %d pods, want 10", leader, n)
	}
	if n := strings.Count(standbyLog.String(), "bound pod to node"); n != 0 {
		t.Fatalf("standby bound %d pods, want 0", n)
	}
	if !strings.Contains(leaderLog.String(), "started leading") || strings.Contains(standbyLog.String(), "started leading") {
		t.Fatalf("leadership is not where the bindings are:\nleader:\n%s\nstandby:\n%s", leaderLog, standbyLog)
	}
	lease, err := c.Leases("kube-system").Get(context.Background(), "kube-scheduler", client.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Fatalf("lease kube-system/kube-scheduler = %+v, %v; want a holder", lease, err)
	}

	// The leader releases the Lease on shutdown; the standby takes over.
	stopLeader()
	createPods(t, c, makePod("after-failover"))
	waitBound(t, c, "after-failover")
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		return strings.Contains(standbyLog.String(), "pod=default/after-failover"), "standby has not bound after-failover"
	})
}
