package daemonset_test

// These tests run the controller in-process against a real apiserver on a
// temp etcd, with no scheduler and no kubelet: the tests create the Node
// objects, read where each pod is pinned from its node affinity, and play
// the kubelet's part by writing pod status themselves.

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/daemonset"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 20 * time.Second

func TestDaemonSetFollowsNodes(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startController(t, c)
	ctx := context.Background()

	createNode(t, c, "n1", map[string]string{"role": "worker"})
	createNode(t, c, "n2", nil)
	createNode(t, c, "master", nil, api.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: api.TaintEffectNoSchedule})

	ds := &api.DaemonSet{
		ObjectMeta: api.ObjectMeta{Name: "nginx-ds", Namespace: "default"},
		Spec: api.DaemonSetSpec{
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx:1.27.0"}}},
			},
		},
	}
	if _, err := c.DaemonSets("default").Create(ctx, ds, client.CreateOptions{}); err != nil {
		t.Fatalf("create daemonset: %v", err)
	}

	// One pod on each untainted node, pinned by node affinity (no
	// nodeName: a scheduler binds it), none on the tainted master.
	pods := waitPodsOn(t, c, "n1", "n2")
	for _, p := range pods {
		if p.Spec.NodeName != "" || !strings.HasPrefix(p.Name, "nginx-ds-") {
			t.Errorf("pod %s has nodeName %q; want generateName nginx-ds- and no nodeName", p.Name, p.Spec.NodeName)
		}
	}
	waitEvent(t, c, "SuccessfulCreate", "Created pod: "+pods[0].Name)
	markAllReady(t, c)
	waitStatus(t, c, func(s api.DaemonSetStatus, gen int64) bool {
		return s.DesiredNumberScheduled == 2 && s.CurrentNumberScheduled == 2 && s.NumberReady == 2 &&
			s.NumberAvailable == 2 && s.UpdatedNumberScheduled == 2 && s.NumberMisscheduled == 0 && s.ObservedGeneration == gen
	})
	waitRevisions(t, c, 1)

	// A new node gets a pod; a deleted node's pod goes.
	createNode(t, c, "n3", map[string]string{"role": "worker"})
	waitPodsOn(t, c, "n1", "n2", "n3")
	if err := c.Nodes().Delete(ctx, "n2", client.DeleteOptions{}); err != nil {
		t.Fatalf("delete node n2: %v", err)
	}
	waitPodsOn(t, c, "n1", "n3")
	waitEvent(t, c, "SuccessfulDelete", "Deleted pod: ")

	// A nodeSelector change moves the pods: only role=worker nodes keep one.
	if err := c.Nodes().Delete(ctx, "n3", client.DeleteOptions{}); err != nil {
		t.Fatalf("delete node n3: %v", err)
	}
	createNode(t, c, "n4", nil)
	waitPodsOn(t, c, "n1", "n4")
	patchDS(t, c, `{"spec":{"template":{"spec":{"nodeSelector":{"role":"worker"}}}}}`)
	waitPodsOn(t, c, "n1")
	createNode(t, c, "n5", map[string]string{"role": "worker"})
	markAllReady(t, c)
	waitPodsOn(t, c, "n1", "n5")

	// A rolling update replaces every pod with the new image.
	markAllReady(t, c)
	patchDS(t, c, `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28.0"}]}}}}`)
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		markAllReady(t, c) // the kubelet's part, so the rollout can go on
		pods := listPods(t, c)
		var images []string
		for _, p := range pods {
			images = append(images, p.Spec.Containers[0].Image)
		}
		return len(pods) == 2 && images[0] == "nginx:1.28.0" && images[1] == "nginx:1.28.0",
			fmt.Sprintf("pods %s", describe(pods))
	})
	waitPodsOn(t, c, "n1", "n5")
	// The last new pod may have been created after the loop above last
	// marked pods ready: keep playing the kubelet while waiting.
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		markAllReady(t, c)
		ds, err := c.DaemonSets("default").Get(context.Background(), "nginx-ds", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		s := ds.Status
		return s.DesiredNumberScheduled == 2 && s.UpdatedNumberScheduled == 2 && s.NumberAvailable == 2 && s.ObservedGeneration == ds.Generation,
			fmt.Sprintf("generation %d status %+v", ds.Generation, s)
	})
	waitRevisions(t, c, 3)
}

// startController runs a DaemonSet controller on c until the test ends.
func startController(t *testing.T, c *client.Client) {
	t.Helper()
	controllertest.RunController(t, c, "daemonset-controller", 2, func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*daemonset.Controller, error) {
		return daemonset.New(c, f, rec, daemonset.Options{Logger: logger})
	})
}

func createNode(t *testing.T, c *client.Client, name string, labels map[string]string, taints ...api.Taint) {
	t.Helper()
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: name, Labels: labels}, Spec: api.NodeSpec{Taints: taints}}
	if _, err := c.Nodes().Create(context.Background(), node, client.CreateOptions{}); err != nil {
		t.Fatalf("create node %s: %v", name, err)
	}
}

func patchDS(t *testing.T, c *client.Client, patch string) {
	t.Helper()
	if _, err := c.DaemonSets("default").Patch(context.Background(), "nginx-ds", client.StrategicMergePatchType, []byte(patch), client.PatchOptions{}); err != nil {
		t.Fatalf("patch daemonset: %v", err)
	}
}

func listPods(t *testing.T, c *client.Client) []*api.Pod {
	t.Helper()
	list, err := c.Pods("default").List(context.Background(), client.ListOptions{LabelSelector: "app=nginx"})
	if err != nil {
		t.Fatalf("list pods: %v", err)
	}
	pods := list.Items
	sort.Slice(pods, func(i, j int) bool { return pinnedTo(pods[i]) < pinnedTo(pods[j]) })
	return pods
}

// pinnedTo reads the node a pod's required node affinity names.
func pinnedTo(p *api.Pod) string {
	if p.Spec.Affinity == nil || p.Spec.Affinity.NodeAffinity == nil || p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, term := range p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range term.MatchFields {
			if f.Key == "metadata.name" && f.Operator == api.NodeSelectorOpIn && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}

func describe(pods []*api.Pod) string {
	var parts []string
	for _, p := range pods {
		parts = append(parts, fmt.Sprintf("%s@%s(%s,deleting=%v)", p.Name, pinnedTo(p), p.Spec.Containers[0].Image, p.DeletionTimestamp != nil))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// waitPodsOn waits until the DaemonSet has exactly one pod on each of
// nodes and none elsewhere.
func waitPodsOn(t *testing.T, c *client.Client, nodes ...string) []*api.Pod {
	t.Helper()
	var pods []*api.Pod
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		pods = listPods(t, c)
		var on []string
		for _, p := range pods {
			on = append(on, pinnedTo(p))
		}
		return slices.Equal(on, nodes), fmt.Sprintf("want one pod on each of %v, have %s", nodes, describe(pods))
	})
	return pods
}

// markAllReady plays the kubelet: every pod runs and is ready.
func markAllReady(t *testing.T, c *client.Client) {
	t.Helper()
	for _, p := range listPods(t, c) {
		if p.Status.Phase == api.PodRunning || p.DeletionTimestamp != nil {
			continue
		}
		p.Status.Phase = api.PodRunning
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.Now()}}
		_, err := c.Pods("default").UpdateStatus(context.Background(), p, client.UpdateOptions{})
		if err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			t.Fatalf("update status of pod %s: %v", p.Name, err)
		}
	}
}

func waitStatus(t *testing.T, c *client.Client, ok func(api.DaemonSetStatus, int64) bool) {
	t.Helper()
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		ds, err := c.DaemonSets("default").Get(context.Background(), "nginx-ds", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return ok(ds.Status, ds.Generation), fmt.Sprintf("generation %d status %+v", ds.Generation, ds.Status)
	})
}

// waitEvent waits for an event from the daemonset-controller with reason
// and a message starting with messagePrefix.
func waitEvent(t *testing.T, c *client.Client, reason, messagePrefix string) {
	t.Helper()
	controllertest.WaitForEvent(t, c, waitTimeout, controllertest.EventMatch{Namespace: "default", Component: "daemonset-controller",
		Reason: reason, MessagePrefix: messagePrefix})
}

func waitRevisions(t *testing.T, c *client.Client, n int) {
	t.Helper()
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		list, err := c.ControllerRevisions("default").List(context.Background(), client.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		var names []string
		var highest int64
		for _, r := range list.Items {
			names = append(names, fmt.Sprintf("%s#%d", r.Name, r.Revision))
			highest = max(highest, r.Revision)
		}
		return len(list.Items) == n && highest == int64(n), fmt.Sprintf("revisions %v, want %d numbered up to %d", names, n, n)
	})
}
