package nodelifecycle_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/controllers/nodelifecycle"
	"kplane/pkg/controllers/tainteviction"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const (
	waitTimeout = 20 * time.Second
	// gracePeriod is short so the test takes seconds; the test's own
	// "kubelet" renews the healthy node's Lease well inside it.
	gracePeriod   = 2 * time.Second
	monitorPeriod = 200 * time.Millisecond
	renewInterval = 300 * time.Millisecond
)

// kubeletConditions are what a healthy kubelet posts, heartbeat now.
func kubeletConditions() []api.NodeCondition {
	now := api.Now()
	return []api.NodeCondition{
		{Type: api.NodeMemoryPressure, Status: api.ConditionFalse, Reason: "KubeletHasSufficientMemory", LastHeartbeatTime: now, LastTransitionTime: now},
		{Type: api.NodeDiskPressure, Status: api.ConditionFalse, Reason: "KubeletHasNoDiskPressure", LastHeartbeatTime: now, LastTransitionTime: now},
		{Type: api.NodePIDPressure, Status: api.ConditionFalse, Reason: "KubeletHasSufficientPID", LastHeartbeatTime: now, LastTransitionTime: now},
		{Type: api.NodeReady, Status: api.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status", LastHeartbeatTime: now, LastTransitionTime: now},
	}
}

// registerNode plays a kubelet's registration: the Node with a pod range
// (empty for none) and a Ready status.
func registerNode(t *testing.T, c *client.Client, name, podCIDR string) {
	t.Helper()
	ctx := context.Background()
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.NodeSpec{PodCIDR: podCIDR}}
	if podCIDR != "" {
		node.Spec.PodCIDRs = []string{podCIDR}
	}
	created, err := c.Nodes().Create(ctx, node, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	postReady(t, c, created)
}

// postReady writes a fresh Ready status, as a kubelet does.
func postReady(t *testing.T, c *client.Client, node *api.Node) {
	t.Helper()
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		fresh, err := c.Nodes().Get(context.Background(), node.Name, client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		fresh.Status.Conditions = kubeletConditions()
		_, err = c.Nodes().UpdateStatus(context.Background(), fresh, client.UpdateOptions{})
		return err == nil, fmt.Sprint(err)
	})
}

// renewLease creates or renews node name's Lease.
func renewLease(ctx context.Context, c *client.Client, name string) error {
	leases := c.Leases(api.NamespaceNodeLease)
	now := api.MicroTime{Time: time.Now()}
	lease, err := leases.Get(ctx, name, client.GetOptions{})
	if err != nil {
		lease = &api.Lease{ObjectMeta: api.ObjectMeta{Name: name, Namespace: api.NamespaceNodeLease}, Spec: api.LeaseSpec{HolderIdentity: &name, RenewTime: &now}}
		_, err = leases.Create(ctx, lease, client.CreateOptions{})
		return err
	}
	lease.Spec.RenewTime = &now
	_, err = leases.Update(ctx, lease, client.UpdateOptions{})
	return err
}

// createBoundPod creates a pod already bound to nodeName, as a scheduler
// would leave it, and marks it Ready, as its kubelet would.
func createBoundPod(t *testing.T, c *client.Client, name, nodeName string, tolerations ...api.Toleration) {
	t.Helper()
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec: api.PodSpec{NodeName: nodeName, Tolerations: tolerations, Containers: []api.Container{{Name: "app", Image: "nginx"}}}}
	if _, err := c.Pods("default").Create(context.Background(), pod, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	controllertest.MarkPodReady(t, c, waitTimeout, "default", name)
}

func getNode(t *testing.T, c *client.Client, name string) *api.Node {
	t.Helper()
	node, err := c.Nodes().Get(context.Background(), name, client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return node
}

func readyOf(node *api.Node) string {
	for _, c := range node.Status.Conditions {
		if c.Type == api.NodeReady {
			return string(c.Status) + "/" + c.Reason
		}
	}
	return "none"
}

func taintsOf(node *api.Node) string {
	var parts []string
	for _, t := range node.Spec.Taints {
		parts = append(parts, t.Key+":"+string(t.Effect))
	}
	return strings.Join(parts, ",")
}

// The node lifecycle and taint-eviction controllers together, against a
// real apiserver, with a stand-in kubelet that heartbeats one node and not
// the other:
//   - the silent node turns Ready=Unknown (NodeStatusUnknown) and gets the
//     unreachable taints; the heartbeating one stays Ready and untainted;
//   - its pods turn not Ready; the one that tolerates unreachable for 2 s
//     is deleted about then, the one with the default 300 s is not;
//   - a node registered without a pod range gets 10.244.N.0/24;
//   - when the silent node posts Ready again its taints go.
func TestNodeLifecycleAndTaintEviction(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, func(cfg *client.Config) { cfg.UserAgent = "nodelifecycle-test" })
	ctx := context.Background()

	registerNode(t, c, "healthy", "10.244.1.0/24")
	registerNode(t, c, "silent", "10.244.2.0/24")
	registerNode(t, c, "no-range", "")
	for _, n := range []string{"healthy", "silent", "no-range"} {
		if err := renewLease(ctx, c, n); err != nil {
			t.Fatal(err)
		}
	}
	createBoundPod(t, c, "fast", "silent", api.Toleration{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists,
		Effect: api.TaintEffectNoExecute, TolerationSeconds: new(int64(2))})
	createBoundPod(t, c, "plain", "silent")
	createBoundPod(t, c, "elsewhere", "healthy")

	h := controllertest.NewControllers(t, c)
	lifecycle, err := nodelifecycle.New(c, h.Factory, h.Recorder(nodelifecycle.EventSource), nodelifecycle.Options{
		Logger: h.Logger, NodeMonitorGracePeriod: gracePeriod, NodeMonitorPeriod: monitorPeriod})
	if err != nil {
		t.Fatal(err)
	}
	eviction, err := tainteviction.New(c, h.Factory, h.Recorder(tainteviction.Name), tainteviction.Options{Logger: h.Logger})
	if err != nil {
		t.Fatal(err)
	}
	var silentIsBack atomic.Bool
	h.Go(func(ctx context.Context) { // the kubelets that heartbeat
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(renewInterval):
			}
			_ = renewLease(ctx, c, "healthy")
			_ = renewLease(ctx, c, "no-range")
			if silentIsBack.Load() {
				_ = renewLease(ctx, c, "silent")
			}
		}
	})
	h.Run(2, lifecycle, eviction)

	framework.Eventually(t, waitTimeout, func() (bool, string) {
		node := getNode(t, c, "silent")
		return readyOf(node) == "Unknown/NodeStatusUnknown" &&
				taintsOf(node) == "node.kubernetes.io/unreachable:NoSchedule,node.kubernetes.io/unreachable:NoExecute",
			fmt.Sprintf("silent: Ready %s, taints %q", readyOf(node), taintsOf(node))
	})
	taintedAt := time.Now()
	framework.Eventually(t, waitTimeout, controllertest.EventSeen(c, controllertest.EventMatch{Namespace: "default",
		Component: "node-controller", Kind: "Node", Name: "silent", Reason: "NodeNotReady", Message: "Node silent status is now: NodeNotReady"}))
	framework.Eventually(t, waitTimeout, controllertest.EventSeen(c, controllertest.EventMatch{Namespace: "default",
		Component: "node-controller", Kind: "Pod", Name: "plain", Reason: "NodeNotReady", Message: "Node is not ready"}))

	framework.Eventually(t, waitTimeout, func() (bool, string) {
		pod, err := c.Pods("default").Get(ctx, "plain", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return !controllerutil.IsPodReady(pod), "plain is still Ready"
	})

	// "fast" tolerates the taint for 2 s: it is deleted (it stays
	// Terminating, as its kubelet is gone) about 2 s after the taint.
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		pod, err := c.Pods("default").Get(ctx, "fast", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return pod.DeletionTimestamp != nil, "fast has no deletionTimestamp yet"
	})
	if waited := time.Since(taintedAt); waited < time.Second {
		t.Errorf("fast was deleted %v after the taint was seen, before its 2 s toleration", waited)
	}
	framework.Eventually(t, waitTimeout, controllertest.EventSeen(c, controllertest.EventMatch{Namespace: "default",
		Component: "taint-eviction-controller", Kind: "Pod", Name: "fast", Reason: "TaintManagerEviction", Message: "Marking for deletion Pod default/fast"}))

	for _, name := range []string{"plain", "elsewhere"} {
		pod, err := c.Pods("default").Get(ctx, name, client.GetOptions{})
		if err != nil || pod.DeletionTimestamp != nil {
			t.Errorf("pod %s: deleted (%v, err %v), want it kept", name, pod.DeletionTimestamp, err)
		}
	}
	if node := getNode(t, c, "healthy"); readyOf(node) != "True/KubeletReady" || taintsOf(node) != "" {
		t.Errorf("healthy: Ready %s, taints %q", readyOf(node), taintsOf(node))
	}
	if node := getNode(t, c, "no-range"); !strings.HasPrefix(node.Spec.PodCIDR, "10.244.") || node.Spec.PodCIDR == "10.244.1.0/24" || node.Spec.PodCIDR == "10.244.2.0/24" {
		t.Errorf("no-range got podCIDR %q, want a free 10.244.N.0/24", node.Spec.PodCIDR)
	} else if node.Spec.PodCIDR != "10.244.0.0/24" {
		t.Errorf("no-range got %q, want the lowest free block 10.244.0.0/24", node.Spec.PodCIDR)
	}

	// The kubelet comes back: it renews its Lease and posts Ready.
	silentIsBack.Store(true)
	if err := renewLease(ctx, c, "silent"); err != nil {
		t.Fatal(err)
	}
	postReady(t, c, getNode(t, c, "silent"))
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		node := getNode(t, c, "silent")
		return readyOf(node) == "True/KubeletReady" && taintsOf(node) == "", fmt.Sprintf("silent: Ready %s, taints %q", readyOf(node), taintsOf(node))
	})
}
