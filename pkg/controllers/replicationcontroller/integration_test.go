package replicationcontroller_test

// The ReplicationController controller in-process against a real apiserver
// on a temp etcd (no scheduler, no kubelet: the test writes pod status).

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"sort"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/controllers/replicationcontroller"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 20 * time.Second

var podName = regexp.MustCompile(`^nginx-rc-[bcdfghjklmnpqrstvwxz2456789]{5}$`)

// An RC keeps its pods like a ReplicaSet: three created, a deleted one
// replaced, a relabelled one released and replaced, scaled down to one
// (keeping the ready pod), with status counts and events.
func TestReplicationController(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, func(cfg *client.Config) { cfg.UserAgent = "replicationcontroller-test" })
	startController(t, c)
	ctx := context.Background()

	replicas := int32(3)
	rc, err := c.ReplicationControllers("default").Create(ctx, &api.ReplicationController{
		ObjectMeta: api.ObjectMeta{Name: "nginx-rc", Namespace: "default"},
		Spec: api.ReplicationControllerSpec{
			Replicas: &replicas,
			// No selector: the apiserver defaults it to the template's labels.
			Template: &api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "nginx-rc"}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx"}}},
			},
		},
	}, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create nginx-rc: %v", err)
	}

	pods := waitOwnedPods(t, c, rc, 3, nil)
	for _, p := range pods {
		ref := controllerutil.GetControllerOf(&p.ObjectMeta)
		if !podName.MatchString(p.Name) || ref.Kind != "ReplicationController" || ref.APIVersion != "v1" {
			t.Errorf("pod %s, controllerRef %+v", p.Name, ref)
		}
	}
	waitEvent(t, c, "SuccessfulCreate", "Created pod: "+pods[0].Name)
	controllertest.MarkPodReady(t, c, waitTimeout, "default", pods[0].Name)
	waitStatus(t, c, func(s api.ReplicationControllerStatus, gen int64) bool {
		return s.Replicas == 3 && s.FullyLabeledReplicas == 3 && s.ReadyReplicas == 1 && s.AvailableReplicas == 1 && s.ObservedGeneration == gen
	})

	// Delete a pod that is not ready: replaced.
	deleted := pods[1].Name
	if err := c.Pods("default").Delete(ctx, deleted, client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitOwnedPods(t, c, rc, 3, func(names []string) bool { return !slices.Contains(names, deleted) })

	// Relabel another not-ready one: released and replaced.
	relabelled := pods[2].Name
	if _, err := c.Pods("default").Patch(ctx, relabelled, client.MergePatchType,
		[]byte(`{"metadata":{"labels":{"app":"debug"}}}`), client.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitOwnedPods(t, c, rc, 3, func(names []string) bool { return !slices.Contains(names, relabelled) })
	released, err := c.Pods("default").Get(ctx, relabelled, client.GetOptions{})
	if err != nil || controllerutil.GetControllerOf(&released.ObjectMeta) != nil {
		t.Fatalf("relabelled pod: err %v, ownerReferences %+v; want it kept without a controller", err, released.OwnerReferences)
	}

	// Scale to 1: the ready pod stays.
	if _, err := c.ReplicationControllers("default").Patch(ctx, "nginx-rc", client.MergePatchType,
		[]byte(`{"spec":{"replicas":1}}`), client.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	left := waitOwnedPods(t, c, rc, 1, nil)
	if left[0].Name != pods[0].Name {
		t.Errorf("after scaling to 1 the pod left is %s, want the ready one %s", left[0].Name, pods[0].Name)
	}
	waitStatus(t, c, func(s api.ReplicationControllerStatus, gen int64) bool {
		return s.Replicas == 1 && s.ReadyReplicas == 1 && s.ObservedGeneration == gen
	})
	waitEvent(t, c, "SuccessfulDelete", "Deleted pod: ")
}

// startController runs a ReplicationController controller on c until the
// test ends.
func startController(t *testing.T, c *client.Client) {
	t.Helper()
	controllertest.RunController(t, c, "replication-controller", 2, func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*replicationcontroller.Controller, error) {
		return replicationcontroller.New(c, f, rec, replicationcontroller.Options{Logger: logger})
	})
}

// waitOwnedPods waits until rc controls exactly n active pods whose names
// satisfy ok (nil: any), and returns them sorted by name.
func waitOwnedPods(t *testing.T, c *client.Client, rc *api.ReplicationController, n int, ok func([]string) bool) []*api.Pod {
	t.Helper()
	var owned []*api.Pod
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		list, err := c.Pods("default").List(context.Background(), client.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		owned = nil
		var names []string
		for _, p := range list.Items {
			if controllerutil.IsPodActive(p) && controllerutil.IsControlledBy(&p.ObjectMeta, rc.UID) {
				owned = append(owned, p)
				names = append(names, p.Name)
			}
		}
		sort.Slice(owned, func(i, j int) bool { return owned[i].Name < owned[j].Name })
		return len(owned) == n && (ok == nil || ok(names)), fmt.Sprintf("%d owned pods: %v", len(owned), names)
	})
	return owned
}

func waitStatus(t *testing.T, c *client.Client, ok func(api.ReplicationControllerStatus, int64) bool) {
	t.Helper()
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		rc, err := c.ReplicationControllers("default").Get(context.Background(), "nginx-rc", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return ok(rc.Status, rc.Generation), fmt.Sprintf("generation %d, status %+v", rc.Generation, rc.Status)
	})
}

// waitEvent waits for an event about nginx-rc with reason and a message
// starting with prefix, from the replication-controller.
func waitEvent(t *testing.T, c *client.Client, reason, prefix string) {
	t.Helper()
	controllertest.WaitForEvent(t, c, waitTimeout, controllertest.EventMatch{Namespace: "default", Component: "replication-controller",
		Kind: "ReplicationController", Name: "nginx-rc", Reason: reason, MessagePrefix: prefix})
}
