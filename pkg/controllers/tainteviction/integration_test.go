package tainteviction_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/controllers/tainteviction"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 20 * time.Second

var dedicated = api.Taint{Key: "dedicated", Value: "batch", Effect: api.TaintEffectNoExecute}

func createBoundPod(t *testing.T, c *client.Client, name, nodeName string, tolerations ...api.Toleration) {
	t.Helper()
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec: api.PodSpec{NodeName: nodeName, Tolerations: tolerations, Containers: []api.Container{{Name: "app", Image: "nginx"}}}}
	if _, err := c.Pods("default").Create(context.Background(), pod, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// setTaints replaces node name's taints, as `kubectl taint` does.
func setTaints(t *testing.T, c *client.Client, name string, taints ...api.Taint) {
	t.Helper()
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		node, err := c.Nodes().Get(context.Background(), name, client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		node.Spec.Taints = taints
		_, err = c.Nodes().Update(context.Background(), node, client.UpdateOptions{})
		return err == nil, fmt.Sprint(err)
	})
}

// deleting reports whether pod name has been marked for deletion (it stays
// Terminating: no kubelet confirms) or is gone.
func deleting(c *client.Client, name string) (bool, string) {
	pod, err := c.Pods("default").Get(context.Background(), name, client.GetOptions{})
	if err != nil {
		return true, ""
	}
	return pod.DeletionTimestamp != nil, fmt.Sprintf("pod %s is not being deleted", name)
}

// `kubectl taint node node1 dedicated=batch:NoExecute` against a real
// apiserver: a pod that does not tolerate it is deleted at once; one that
// tolerates it for 1 s about a second later; one that tolerates it for
// ever stays; and a pod whose eviction is pending when the taint is
// removed stays, with a "Cancelling deletion" event. A PodDisruptionBudget
// that allows no disruption at all does not hold the deletions back: as
// upstream, the taint manager deletes pods, it does not ask pods/eviction
// (a NoExecute taint is not a voluntary disruption).
func TestNoExecuteTaintEvictsPods(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, func(cfg *client.Config) { cfg.UserAgent = "tainteviction-test" })
	ctx := context.Background()
	for _, n := range []string{"node1", "node2"} {
		if _, err := c.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: n}}, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	tolerate := func(seconds *int64) api.Toleration {
		return api.Toleration{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "batch", Effect: api.TaintEffectNoExecute, TolerationSeconds: seconds}
	}
	createBoundPod(t, c, "plain", "node1")
	createBoundPod(t, c, "brief", "node1", tolerate(new(int64(1))))
	createBoundPod(t, c, "batch", "node1", tolerate(nil))
	createBoundPod(t, c, "patient", "node2", tolerate(new(int64(60))))
	everyPod := api.FromInt(4)
	if _, err := c.PodDisruptionBudgets("default").Create(ctx, &api.PodDisruptionBudget{ObjectMeta: api.ObjectMeta{Name: "all"},
		Spec: api.PodDisruptionBudgetSpec{MinAvailable: &everyPod, Selector: &api.LabelSelector{}}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	controllertest.RunController(t, c, tainteviction.Name, 2, func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*tainteviction.Controller, error) {
		return tainteviction.New(c, f, rec, tainteviction.Options{Logger: logger})
	})

	setTaints(t, c, "node1", dedicated)
	setTaints(t, c, "node2", dedicated)
	tainted := time.Now()
	framework.Eventually(t, waitTimeout, func() (bool, string) { return deleting(c, "plain") })
	if ok, _ := deleting(c, "brief"); ok && time.Since(tainted) < 500*time.Millisecond {
		t.Errorf("brief was deleted right away, before its 1 s toleration")
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) { return deleting(c, "brief") })
	if waited := time.Since(tainted); waited < 900*time.Millisecond {
		t.Errorf("brief deleted %v after the taint, want about 1 s", waited)
	}
	framework.Eventually(t, waitTimeout, controllertest.EventSeen(c, controllertest.EventMatch{Namespace: "default",
		Component: tainteviction.Name, Kind: "Pod", Name: "plain", Reason: "TaintManagerEviction", Message: "Marking for deletion Pod default/plain"}))

	// node2's taint goes long before patient's 60 s are up.
	setTaints(t, c, "node2")
	framework.Eventually(t, waitTimeout, controllertest.EventSeen(c, controllertest.EventMatch{Namespace: "default",
		Component: tainteviction.Name, Kind: "Pod", Name: "patient", Reason: "TaintManagerEviction", Message: "Cancelling deletion of Pod default/patient"}))

	for _, name := range []string{"batch", "patient"} {
		if ok, _ := deleting(c, name); ok {
			t.Errorf("pod %s was deleted, want it kept", name)
		}
	}
	pod, err := c.Pods("default").Get(ctx, "plain", client.GetOptions{})
	if err == nil {
		found := false
		for _, cond := range pod.Status.Conditions {
			found = found || cond.Type == api.DisruptionTarget && cond.Reason == "DeletionByTaintManager"
		}
		if !found {
			t.Errorf("plain's conditions = %+v, want DisruptionTarget (DeletionByTaintManager)", pod.Status.Conditions)
		}
	}
}
