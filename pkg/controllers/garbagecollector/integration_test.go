package garbagecollector

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

// Integration tests: a real apiserver on a temp etcd, the collector running
// in-process with its informers, and no other controller — the tests create
// the owners and dependents themselves.

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 20 * time.Second

// startCollector runs a garbage collector that logs to log against c until
// the test ends.
func startCollector(t *testing.T, c *client.Client, log *slog.Logger) {
	t.Helper()
	controllertest.RunController(t, c, "", 5, func(f *informer.SharedInformerFactory, rec events.EventRecorder, _ *slog.Logger) (*Controller, error) {
		return New(c, f, rec, Options{Logger: log})
	})
}

func startServerAndCollector(t *testing.T) (*framework.APIServer, *client.Client) {
	t.Helper()
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startCollector(t, c, controllertest.TestLogger())
	return a, c
}

func waitPodGone(t *testing.T, c *client.Client, ns, name string) {
	t.Helper()
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		pod, ok := getPod(t, c, ns, name)
		if !ok {
			return true, ""
		}
		return false, fmt.Sprintf("pod %s still exists (deletionTimestamp %v, owners %v)", name, pod.DeletionTimestamp, ownerRefUIDs(pod.ObjectMeta))
	})
}

func waitRSGone(t *testing.T, c *client.Client, ns, name string) {
	t.Helper()
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		rs, ok := getRS(t, c, ns, name)
		if !ok {
			return true, ""
		}
		return false, fmt.Sprintf("ReplicaSet %s still exists (deletionTimestamp %v, finalizers %v)", name, rs.DeletionTimestamp, rs.Finalizers)
	})
}

// The helpers below create, read and change objects through a client, as
// a user would, for the collector running with its informers to react to.

// createRS creates newReplicaSet(ns, name).
func createRS(t *testing.T, c *client.Client, ns, name string) *api.ReplicaSet {
	t.Helper()
	rs, err := c.ReplicaSets(ns).Create(context.Background(), newReplicaSet(ns, name), client.CreateOptions{})
	if err != nil {
		t.Fatalf("create ReplicaSet %s: %v", name, err)
	}
	return rs
}

// createPod creates newPod(ns, name, owners, finalizers...).
func createPod(t *testing.T, c *client.Client, ns, name string, owners []api.OwnerReference, finalizers ...string) *api.Pod {
	t.Helper()
	pod, err := c.Pods(ns).Create(context.Background(), newPod(ns, name, owners, finalizers...), client.CreateOptions{})
	if err != nil {
		t.Fatalf("create pod %s: %v", name, err)
	}
	return pod
}

func getPod(t *testing.T, c *client.Client, ns, name string) (*api.Pod, bool) {
	t.Helper()
	pod, err := c.Pods(ns).Get(context.Background(), name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		t.Fatalf("get pod %s: %v", name, err)
	}
	return pod, true
}

func getRS(t *testing.T, c *client.Client, ns, name string) (*api.ReplicaSet, bool) {
	t.Helper()
	rs, err := c.ReplicaSets(ns).Get(context.Background(), name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		t.Fatalf("get ReplicaSet %s: %v", name, err)
	}
	return rs, true
}

func deleteRS(t *testing.T, c *client.Client, ns, name string, policy api.DeletionPropagation) {
	t.Helper()
	if err := c.ReplicaSets(ns).Delete(context.Background(), name, client.DeleteOptions{PropagationPolicy: &policy}); err != nil {
		t.Fatalf("delete ReplicaSet %s (%s): %v", name, policy, err)
	}
}

// removeHold takes the test's finalizer off a pod, letting it go.
func removeHold(t *testing.T, c *client.Client, ns, name string) {
	t.Helper()
	patch := fmt.Appendf(nil, `{"metadata":{"$deleteFromPrimitiveList/finalizers":[%q]}}`, holdFinalizer)
	if _, err := c.Pods(ns).Patch(context.Background(), name, client.StrategicMergePatchType, patch, client.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("remove finalizer from pod %s: %v", name, err)
	}
}

// Background (the default): the owner goes at once and the collector
// deletes its pods — those that existed before the collector started and
// one created after.
func TestBackgroundDeletionCollectsDependents(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	rs := createRS(t, c, "default", "web")
	for i := range 3 {
		createPod(t, c, "default", fmt.Sprintf("web-%d", i), []api.OwnerReference{refTo(rs, true)})
	}
	startCollector(t, c, controllertest.TestLogger())
	createPod(t, c, "default", "web-late", []api.OwnerReference{refTo(rs, true)})
	unrelated := createPod(t, c, "default", "unrelated", nil)

	deleteRS(t, c, "default", "web", api.DeletePropagationBackground)
	for _, name := range []string{"web-0", "web-1", "web-2", "web-late"} {
		waitPodGone(t, c, "default", name)
	}
	if got, ok := getPod(t, c, "default", "unrelated"); !ok || got.ResourceVersion != unrelated.ResourceVersion {
		t.Fatalf("a pod without owners was touched (exists %v)", ok)
	}
}

// Orphan: the owner goes, its pods stay without the ownerReference.
func TestOrphanDeletionKeepsDependents(t *testing.T) {
	_, c := startServerAndCollector(t)
	rs := createRS(t, c, "default", "web")
	other := createRS(t, c, "default", "other")
	createPod(t, c, "default", "web-0", []api.OwnerReference{refTo(rs, true)})
	createPod(t, c, "default", "web-1", []api.OwnerReference{refTo(rs, true), plainRef(other, false)})

	deleteRS(t, c, "default", "web", api.DeletePropagationOrphan)
	waitRSGone(t, c, "default", "web")
	want := map[string][]string{"web-0": nil, "web-1": {other.UID}}
	for name, owners := range want {
		pod, ok := getPod(t, c, "default", name)
		if !ok {
			t.Fatalf("pod %s was deleted; an orphan delete keeps it", name)
		}
		if got := ownerRefUIDs(pod.ObjectMeta); !slices.Equal(got, owners) {
			t.Fatalf("pod %s ownerReferences = %v, want %v", name, got, owners)
		}
	}
	// The pods are not collected later either: give the collector a
	// moment to act on the owner's deletion event, then look again.
	time.Sleep(300 * time.Millisecond)
	for name := range want {
		if _, ok := getPod(t, c, "default", name); !ok {
			t.Fatalf("orphaned pod %s was collected after its owner went", name)
		}
	}
}

// Foreground: the owner stays (deletionTimestamp and the foregroundDeletion
// finalizer) while a blocking dependent exists, and goes after it.
func TestForegroundDeletionWaitsForBlockingDependent(t *testing.T) {
	_, c := startServerAndCollector(t)
	rs := createRS(t, c, "default", "web")
	createPod(t, c, "default", "held", []api.OwnerReference{refTo(rs, true)}, holdFinalizer)
	createPod(t, c, "default", "free", []api.OwnerReference{refTo(rs, false)})

	deleteRS(t, c, "default", "web", api.DeletePropagationForeground)
	waitPodGone(t, c, "default", "free")
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		pod, ok := getPod(t, c, "default", "held")
		return ok && pod.DeletionTimestamp != nil, fmt.Sprintf("pod held exists %v: %+v", ok, pod)
	})
	// The collector has acted on the held pod; the owner must still wait.
	rsNow, ok := getRS(t, c, "default", "web")
	if !ok || rsNow.DeletionTimestamp == nil || !slices.Contains(rsNow.Finalizers, api.FinalizerDeleteDependents) {
		t.Fatalf("ReplicaSet = %+v (exists %v); want it waiting with deletionTimestamp and foregroundDeletion", rsNow, ok)
	}

	removeHold(t, c, "default", "held")
	waitPodGone(t, c, "default", "held")
	waitRSGone(t, c, "default", "web")
}

// Foreground through two levels: Deployment → ReplicaSet → pod. The
// ReplicaSet has dependents, so it is deleted in the foreground too, and
// the Deployment waits for the whole chain.
func TestForegroundDeletionCascadesThroughLevels(t *testing.T) {
	_, c := startServerAndCollector(t)
	ctx := context.Background()
	replicas := int32(0)
	dep, err := c.Deployments("default").Create(ctx, &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.DeploymentSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: labelsFor("web")},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: labelsFor("web")},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create Deployment: %v", err)
	}
	yes := true
	rs, err := c.ReplicaSets("default").Create(ctx, &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: "web-abc", Namespace: "default", OwnerReferences: []api.OwnerReference{
			{APIVersion: "apps/v1", Kind: "Deployment", Name: dep.Name, UID: dep.UID, Controller: &yes, BlockOwnerDeletion: &yes}}},
		Spec: api.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: labelsFor("web")},
			Template: dep.Spec.Template,
		},
	}, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create ReplicaSet: %v", err)
	}
	createPod(t, c, "default", "web-abc-1", []api.OwnerReference{refTo(rs, true)}, holdFinalizer)

	policy := api.DeletePropagationForeground
	if err := c.Deployments("default").Delete(ctx, "web", client.DeleteOptions{PropagationPolicy: &policy}); err != nil {
		t.Fatalf("delete Deployment: %v", err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		rs, ok := getRS(t, c, "default", "web-abc")
		return ok && slices.Contains(rs.Finalizers, api.FinalizerDeleteDependents),
			fmt.Sprintf("ReplicaSet exists %v: %+v", ok, rs)
	})
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		pod, ok := getPod(t, c, "default", "web-abc-1")
		return ok && pod.DeletionTimestamp != nil, fmt.Sprintf("pod exists %v: %+v", ok, pod)
	})
	if d, err := c.Deployments("default").Get(ctx, "web", client.GetOptions{}); err != nil || d.DeletionTimestamp == nil {
		t.Fatalf("Deployment = %+v, %v; want it waiting for the chain", d, err)
	}

	removeHold(t, c, "default", "web-abc-1")
	waitRSGone(t, c, "default", "web-abc")
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		d, err := c.Deployments("default").Get(ctx, "web", client.GetOptions{})
		if err != nil {
			return true, ""
		}
		return false, fmt.Sprintf("Deployment still exists, finalizers %v", d.Finalizers)
	})
}

// A dependent with two owners outlives the one that is deleted, keeping the
// reference to the other.
func TestDependentWithTwoOwnersKeepsTheLiveOne(t *testing.T) {
	_, c := startServerAndCollector(t)
	gone := createRS(t, c, "default", "gone")
	live := createRS(t, c, "default", "live")
	createPod(t, c, "default", "shared", []api.OwnerReference{refTo(gone, true), plainRef(live, false)})

	deleteRS(t, c, "default", "gone", api.DeletePropagationBackground)
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		pod, ok := getPod(t, c, "default", "shared")
		if !ok {
			t.Fatalf("pod with a live owner was deleted")
		}
		owners := ownerRefUIDs(pod.ObjectMeta)
		return slices.Equal(owners, []string{live.UID}), fmt.Sprintf("owners %v, want [%s]", owners, live.UID)
	})
}

// A pod whose owner uid never existed is collected.
func TestPodWithNonexistentOwnerIsCollected(t *testing.T) {
	_, c := startServerAndCollector(t)
	live := createRS(t, c, "default", "live")
	createPod(t, c, "default", "stray", []api.OwnerReference{ghostRef("ghost", "00000000-0000-0000-0000-00000000dead")})
	// Same name as a live ReplicaSet but not its uid: still absent.
	createPod(t, c, "default", "impostor", []api.OwnerReference{ghostRef("live", "00000000-0000-0000-0000-00000000beef")})
	waitPodGone(t, c, "default", "stray")
	waitPodGone(t, c, "default", "impostor")
	if _, ok := getRS(t, c, "default", live.Name); !ok {
		t.Fatalf("the live ReplicaSet was deleted")
	}
}

// kubectl delete --cascade=orphan|foreground|background reaches the
// collector through the propagationPolicy kubectl sends; kubectl waits for
// the owner to be gone, which only happens if the collector finishes.
func TestKubectlCascade(t *testing.T) {
	framework.RequireKubectl(t)
	a, c := startServerAndCollector(t)
	for _, cascade := range []string{"orphan", "foreground", "background"} {
		rs := createRS(t, c, "default", "web-"+cascade)
		pod := "pod-" + cascade
		createPod(t, c, "default", pod, []api.OwnerReference{refTo(rs, true)})
		out := a.MustKubectl(t, "delete", "replicaset", rs.Name, "--cascade="+cascade, "--timeout=20s")
		if !strings.Contains(out, "deleted") {
			t.Fatalf("kubectl delete --cascade=%s printed %q", cascade, out)
		}
		if _, ok := getRS(t, c, "default", rs.Name); ok && cascade != "background" {
			t.Fatalf("--cascade=%s: ReplicaSet still exists after kubectl returned", cascade)
		}
		switch cascade {
		case "orphan":
			got, ok := getPod(t, c, "default", pod)
			if !ok || len(got.OwnerReferences) != 0 {
				t.Fatalf("--cascade=orphan: pod = %+v (exists %v), want kept without ownerReferences", got, ok)
			}
		case "foreground":
			// The owner went last, so its pod was already gone.
			if _, ok := getPod(t, c, "default", pod); ok {
				t.Fatalf("--cascade=foreground: pod still exists after its owner went")
			}
		default:
			waitPodGone(t, c, "default", pod)
		}
	}
}

// logRecorder keeps the messages of the records logged at or above Info.
type logRecorder struct {
	mu       sync.Mutex
	messages []string
}

func (r *logRecorder) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", rec.Level, rec.Message)
	rec.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	r.mu.Lock()
	r.messages = append(r.messages, b.String())
	r.mu.Unlock()
	return nil
}

func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *logRecorder) WithGroup(string) slog.Handler      { return r }

func (r *logRecorder) failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, m := range r.messages {
		if strings.Contains(m, "sync failed") || strings.HasPrefix(m, "WARN") || strings.HasPrefix(m, "ERROR") {
			out = append(out, m)
		}
	}
	return out
}

// Two collectors at once (two controller-managers overlapping as leaders):
// every policy still completes, and the collector that loses a race does
// not report it as a failure.
func TestTwoCollectorsAtOnce(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	logs := &logRecorder{}
	startCollector(t, c, slog.New(logs))
	startCollector(t, a.Client(t, nil), slog.New(logs))

	policies := []api.DeletionPropagation{api.DeletePropagationBackground, api.DeletePropagationOrphan, api.DeletePropagationForeground}
	for _, policy := range policies {
		rs := createRS(t, c, "default", strings.ToLower(string(policy)))
		for i := range 10 {
			createPod(t, c, "default", fmt.Sprintf("%s-%d", rs.Name, i), []api.OwnerReference{refTo(rs, true)})
		}
	}
	for _, policy := range policies {
		deleteRS(t, c, "default", strings.ToLower(string(policy)), policy)
	}
	for _, policy := range policies {
		name := strings.ToLower(string(policy))
		waitRSGone(t, c, "default", name)
		for i := range 10 {
			pod := fmt.Sprintf("%s-%d", name, i)
			if policy == api.DeletePropagationOrphan {
				if got, ok := getPod(t, c, "default", pod); !ok || len(got.OwnerReferences) != 0 {
					t.Fatalf("orphaned pod %s = %+v (exists %v)", pod, got, ok)
				}
				continue
			}
			waitPodGone(t, c, "default", pod)
		}
	}
	if failures := logs.failures(); len(failures) > 0 {
		t.Fatalf("collectors logged failures while racing each other:\n%s", strings.Join(failures, "\n"))
	}
}
