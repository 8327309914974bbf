package replicaset_test

// These tests run the controller in-process against a real apiserver on a
// temp etcd, with no scheduler and no kubelet: pods stay unscheduled, and
// the tests play the kubelet's part by writing pod status themselves.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/controllers/replicaset"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 20 * time.Second

// podName is "<owner>-" and five characters of Kubernetes' name alphabet
// (no vowels, no 0, 1, 3: nothing that spells words or looks alike).
var podName = regexp.MustCompile(`^ng-rs-[bcdfghjklmnpqrstvwxz2456789]{5}$`)

// The seed's nginx-rs keeps three pods: it creates them, replaces a deleted
// one, releases and replaces a relabelled one, and scales up and down,
// deleting the pods that are not ready first.
func TestNginxReplicaSet(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, func(cfg *client.Config) { cfg.UserAgent = "replicaset-test" })
	startController(t, c)
	ctx := context.Background()

	rs, err := c.ReplicaSets("default").Create(ctx, loadReplicaSet(t, "examples/nginx-rs.yaml"), client.CreateOptions{})
	if err != nil {
		t.Fatalf("create ng-rs: %v", err)
	}

	// Three pods, named ng-rs-xxxxx, controlled by the ReplicaSet.
	pods := waitOwnedPods(t, c, rs, 3)
	for _, p := range pods {
		if !podName.MatchString(p.Name) {
			t.Errorf("pod name %q does not look like ng-rs-<5 random chars>", p.Name)
		}
		ref := controllerutil.GetControllerOf(&p.ObjectMeta)
		if ref.Kind != "ReplicaSet" || ref.APIVersion != "apps/v1" || ref.Name != "ng-rs" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
			t.Errorf("pod %s controllerRef = %+v", p.Name, ref)
		}
	}
	waitStatus(t, c, "ng-rs", func(s api.ReplicaSetStatus, gen int64) bool {
		return s.Replicas == 3 && s.FullyLabeledReplicas == 3 && s.ReadyReplicas == 0 && s.ObservedGeneration == gen
	})
	waitEvent(t, c, "SuccessfulCreate", "Created pod: "+pods[0].Name)

	// The kubelet's part: the pods run and become ready.
	for _, p := range pods {
		controllertest.MarkPodReady(t, c, waitTimeout, "default", p.Name)
	}
	waitStatus(t, c, "ng-rs", func(s api.ReplicaSetStatus, _ int64) bool {
		return s.ReadyReplicas == 3 && s.AvailableReplicas == 3
	})

	// Delete one: a new one replaces it.
	deleted := pods[0].Name
	if err := c.Pods("default").Delete(ctx, deleted, client.DeleteOptions{}); err != nil {
		t.Fatalf("delete pod %s: %v", deleted, err)
	}
	pods = waitOwnedPodsWhere(t, c, rs, 3, func(names []string) bool { return !slices.Contains(names, deleted) })

	// Relabel one out of the selector: it is released (no controllerRef,
	// still running) and replaced.
	relabelled := pods[0].Name
	if _, err := c.Pods("default").Patch(ctx, relabelled, client.MergePatchType,
		[]byte(`{"metadata":{"labels":{"replicaset":"debug"}}}`), client.PatchOptions{}); err != nil {
		t.Fatalf("relabel pod %s: %v", relabelled, err)
	}
	pods = waitOwnedPodsWhere(t, c, rs, 3, func(names []string) bool { return !slices.Contains(names, relabelled) })
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		p, err := c.Pods("default").Get(ctx, relabelled, client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return controllerutil.GetControllerOf(&p.ObjectMeta) == nil && p.DeletionTimestamp == nil,
			fmt.Sprintf("pod %s ownerReferences %+v, deletionTimestamp %v", relabelled, p.OwnerReferences, p.DeletionTimestamp)
	})

	// Scale to 5 and back to 3. The three that were there are ready, the
	// two new ones are not: those two go.
	for _, p := range pods {
		controllertest.MarkPodReady(t, c, waitTimeout, "default", p.Name)
	}
	var before []string
	for _, p := range pods {
		before = append(before, p.Name)
	}
	scale(t, c, "ng-rs", 5)
	waitOwnedPods(t, c, rs, 5)
	waitStatus(t, c, "ng-rs", func(s api.ReplicaSetStatus, gen int64) bool {
		return s.Replicas == 5 && s.ObservedGeneration == gen
	})
	scale(t, c, "ng-rs", 3)
	pods = waitOwnedPods(t, c, rs, 3)
	var after []string
	for _, p := range pods {
		after = append(after, p.Name)
	}
	sort.Strings(before)
	if !slices.Equal(after, before) {
		t.Errorf("after scaling 5 → 3 the pods are %v, want the ready ones %v", after, before)
	}
	waitStatus(t, c, "ng-rs", func(s api.ReplicaSetStatus, gen int64) bool {
		return s.Replicas == 3 && s.ReadyReplicas == 3 && s.AvailableReplicas == 3 && s.ObservedGeneration == gen
	})
	waitEvent(t, c, "SuccessfulDelete", "Deleted pod: ")
}

// availableReplicas counts a ready pod only once it has been ready for
// minReadySeconds; no event marks that moment, so the controller must come
// back by itself.
func TestAvailableAfterMinReadySeconds(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, func(cfg *client.Config) { cfg.UserAgent = "replicaset-test" })
	startController(t, c)
	ctx := context.Background()

	rs := loadReplicaSet(t, "examples/nginx-rs.yaml")
	rs.Spec.Replicas = ptr(int32(2))
	rs.Spec.MinReadySeconds = 2
	rs, err := c.ReplicaSets("default").Create(ctx, rs, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	for _, p := range waitOwnedPods(t, c, rs, 2) {
		controllertest.MarkPodReady(t, c, waitTimeout, "default", p.Name)
	}
	got := waitStatus(t, c, "ng-rs", func(s api.ReplicaSetStatus, _ int64) bool { return s.ReadyReplicas == 2 })
	if got.AvailableReplicas == 2 {
		t.Logf("pods already available when first seen ready; the requeue was not exercised")
	}
	waitStatus(t, c, "ng-rs", func(s api.ReplicaSetStatus, _ int64) bool {
		return s.ReadyReplicas == 2 && s.AvailableReplicas == 2
	})
}

// An orphan pod that matches the selector is adopted instead of a new pod
// being created.
func TestAdoptsOrphan(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, func(cfg *client.Config) { cfg.UserAgent = "replicaset-test" })
	ctx := context.Background()
	orphan := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "orphan", Namespace: "default", Labels: map[string]string{"replicaset": "test"}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}},
	}
	if _, err := c.Pods("default").Create(ctx, orphan, client.CreateOptions{}); err != nil {
		t.Fatalf("create orphan: %v", err)
	}
	startController(t, c)
	rs, err := c.ReplicaSets("default").Create(ctx, loadReplicaSet(t, "examples/nginx-rs.yaml"), client.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	pods := waitOwnedPods(t, c, rs, 3)
	if !slices.ContainsFunc(pods, func(p *api.Pod) bool { return p.Name == "orphan" }) {
		t.Fatalf("the orphan was not adopted; owned pods: %v", names(pods))
	}
}

// startController runs a ReplicaSet controller on c until the test ends.
func startController(t *testing.T, c *client.Client) {
	t.Helper()
	controllertest.RunController(t, c, "replicaset-controller", 2, func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*replicaset.Controller[*api.ReplicaSet], error) {
		return replicaset.New(c, f, rec, replicaset.Options{Logger: logger})
	})
}

// loadReplicaSet reads a ReplicaSet manifest from the repository.
func loadReplicaSet(t *testing.T, path string) *api.ReplicaSet {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(framework.RepoRoot(t), path))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	js, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var rs api.ReplicaSet
	if err := json.Unmarshal(js, &rs); err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	rs.Namespace = "default"
	return &rs
}

// waitOwnedPods waits until rs controls exactly n active pods and returns
// them sorted by name.
func waitOwnedPods(t *testing.T, c *client.Client, rs *api.ReplicaSet, n int) []*api.Pod {
	t.Helper()
	return waitOwnedPodsWhere(t, c, rs, n, func([]string) bool { return true })
}

// waitOwnedPodsWhere waits until rs controls exactly n active pods whose
// names satisfy ok.
func waitOwnedPodsWhere(t *testing.T, c *client.Client, rs *api.ReplicaSet, n int, ok func(names []string) bool) []*api.Pod {
	t.Helper()
	var owned []*api.Pod
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		list, err := c.Pods(rs.Namespace).List(context.Background(), client.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		owned = owned[:0]
		for _, p := range list.Items {
			if controllerutil.IsPodActive(p) && controllerutil.IsControlledBy(&p.ObjectMeta, rs.UID) {
				owned = append(owned, p)
			}
		}
		sort.Slice(owned, func(i, j int) bool { return owned[i].Name < owned[j].Name })
		return len(owned) == n && ok(names(owned)), fmt.Sprintf("%d active pods owned by %s: %v", len(owned), rs.Name, names(owned))
	})
	return owned
}

// waitStatus waits until the ReplicaSet's status satisfies ok (given its
// generation) and returns it.
func waitStatus(t *testing.T, c *client.Client, name string, ok func(api.ReplicaSetStatus, int64) bool) api.ReplicaSetStatus {
	t.Helper()
	var status api.ReplicaSetStatus
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		rs, err := c.ReplicaSets("default").Get(context.Background(), name, client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		status = rs.Status
		return ok(rs.Status, rs.Generation), fmt.Sprintf("generation %d, status %+v", rs.Generation, rs.Status)
	})
	return status
}

// waitEvent waits for an event about ng-rs with reason and a message
// starting with prefix, from the replicaset-controller.
func waitEvent(t *testing.T, c *client.Client, reason, prefix string) {
	t.Helper()
	controllertest.WaitForEvent(t, c, waitTimeout, controllertest.EventMatch{Namespace: "default", Component: "replicaset-controller",
		Kind: "ReplicaSet", Name: "ng-rs", Reason: reason, MessagePrefix: prefix})
}

// scale sets spec.replicas with a merge patch.
func scale(t *testing.T, c *client.Client, name string, replicas int) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"replicas":%d}}`, replicas)
	if _, err := c.ReplicaSets("default").Patch(context.Background(), name, client.MergePatchType, []byte(patch), client.PatchOptions{}); err != nil {
		t.Fatalf("scale %s to %d: %v", name, replicas, err)
	}
}

func names(pods []*api.Pod) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

func ptr[T any](v T) *T { return &v }
