package statefulset_test

// These tests run the controller in-process against a real apiserver on a
// temp etcd, with no scheduler and no kubelet: the tests play the
// kubelet's part by marking pods Running and Ready themselves, by hand
// where the order matters and with a small loop elsewhere.

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/controllers/statefulset"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 20 * time.Second

// startController runs the StatefulSet controller on c until the test
// ends; with autoReady, a fake kubelet also marks every pod Running and
// Ready every 20 ms.
func startController(t *testing.T, c *client.Client, autoReady bool) {
	t.Helper()
	h := controllertest.NewControllers(t, c)
	ctrl, err := statefulset.New(c, h.Factory, h.Recorder("statefulset-controller"), statefulset.Options{Logger: h.Logger})
	if err != nil {
		t.Fatalf("statefulset.New: %v", err)
	}
	h.Run(2, ctrl)
	if autoReady {
		h.Go(func(ctx context.Context) { controllertest.MarkPodsReady(ctx, c, "default", "") })
	}
}

// markReady plays the kubelet for one pod.
func markReady(t *testing.T, c *client.Client, name string) {
	t.Helper()
	controllertest.MarkPodReady(t, c, waitTimeout, "default", name)
}

// podLog records, in order, the pods created and deleted in "default"
// from now on, as "+web-0" and "-web-2".
type podLog struct {
	mu      sync.Mutex
	entries []string
}

func watchPods(t *testing.T, c *client.Client) *podLog {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	list, err := c.Pods("default").List(ctx, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.Pods("default").Watch(ctx, client.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	l := &podLog{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			pod, ok := ev.Object.(*api.Pod)
			if !ok {
				continue
			}
			l.mu.Lock()
			switch ev.Type {
			case client.Added:
				l.entries = append(l.entries, "+"+pod.Name)
			case client.Deleted:
				l.entries = append(l.entries, "-"+pod.Name)
			}
			l.mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); w.Stop(); <-done })
	return l
}

// waitFor waits until the log has want (in order) among its entries
// starting with prefix.
func (l *podLog) waitFor(t *testing.T, prefix string, want ...string) {
	t.Helper()
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		var got []string
		for _, e := range l.entries {
			if strings.HasPrefix(e, prefix) {
				got = append(got, e)
			}
		}
		return slices.Equal(got, want), fmt.Sprintf("pod log %v, want %v", l.entries, want)
	})
}

func newSet(name string, replicas int32, image string) *api.StatefulSet {
	return &api.StatefulSet{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec: api.StatefulSetSpec{
			Replicas:    &replicas,
			ServiceName: "nginx",
			Selector:    &api.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: image,
					VolumeMounts: []api.VolumeMount{{Name: "www", MountPath: "/usr/share/nginx/html"}}}}},
			},
			VolumeClaimTemplates: []api.PersistentVolumeClaim{{
				ObjectMeta: api.ObjectMeta{Name: "www"},
				Spec: api.PersistentVolumeClaimSpec{
					AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
					Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{
						api.ResourceStorage: api.MustParseQuantity("1Gi")}},
				},
			}},
		},
	}
}

func create(t *testing.T, c *client.Client, set *api.StatefulSet) *api.StatefulSet {
	t.Helper()
	created, err := c.StatefulSets("default").Create(context.Background(), set, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create statefulset %s: %v", set.Name, err)
	}
	return created
}

// mutate changes the set with a read-modify-write, retrying conflicts.
func mutate(t *testing.T, c *client.Client, name string, change func(*api.StatefulSet)) {
	t.Helper()
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		set, err := c.StatefulSets("default").Get(context.Background(), name, client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		change(set)
		if _, err := c.StatefulSets("default").Update(context.Background(), set, client.UpdateOptions{}); err != nil {
			if apierrors.IsConflict(err) {
				return false, err.Error()
			}
			t.Fatalf("update statefulset %s: %v", name, err)
		}
		return true, ""
	})
}

// pods returns the active pods of set, by name.
func pods(t *testing.T, c *client.Client, set *api.StatefulSet) map[string]*api.Pod {
	t.Helper()
	list, err := c.Pods("default").List(context.Background(), client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*api.Pod{}
	for _, p := range list.Items {
		if controllerutil.IsControlledBy(&p.ObjectMeta, set.UID) && p.DeletionTimestamp == nil {
			out[p.Name] = p
		}
	}
	return out
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// waitPods waits until set's pods are exactly names and returns them.
func waitPods(t *testing.T, c *client.Client, set *api.StatefulSet, names ...string) map[string]*api.Pod {
	t.Helper()
	var got map[string]*api.Pod
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		got = pods(t, c, set)
		return slices.Equal(sortedNames(got), names), fmt.Sprintf("pods %v, want %v", sortedNames(got), names)
	})
	return got
}

// waitStatus waits until the set's status satisfies ok.
func waitStatus(t *testing.T, c *client.Client, name string, ok func(s api.StatefulSetStatus, generation int64) bool) api.StatefulSetStatus {
	t.Helper()
	var status api.StatefulSetStatus
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		set, err := c.StatefulSets("default").Get(context.Background(), name, client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		status = set.Status
		return ok(set.Status, set.Generation), fmt.Sprintf("generation %d, status %+v", set.Generation, set.Status)
	})
	return status
}

// claims returns the names of the claims in "default".
func claims(t *testing.T, c *client.Client) []string {
	t.Helper()
	list, err := c.PersistentVolumeClaims("default").List(context.Background(), client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, pvc := range list.Items {
		names = append(names, pvc.Name)
	}
	sort.Strings(names)
	return names
}

// waitEvent waits for an event about the set with reason and message.
func waitEvent(t *testing.T, c *client.Client, reason, message string) {
	t.Helper()
	controllertest.WaitForEvent(t, c, waitTimeout, controllertest.EventMatch{Namespace: "default", Component: "statefulset-controller",
		Kind: "StatefulSet", Reason: reason, Message: message})
}

// OrderedReady: web-0, then web-1 once web-0 is ready, then web-2; each
// with its identity and claim. Scaling 3 → 1 removes web-2, then web-1,
// and keeps every claim.
func TestOrderedReadyCreateAndScaleDown(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startController(t, c, false)
	set := create(t, c, newSet("web", 3, "nginx:1"))

	got := waitPods(t, c, set, "web-0")
	web0 := got["web-0"]
	if web0.Spec.Hostname != "web-0" || web0.Spec.Subdomain != "nginx" ||
		web0.Labels[api.StatefulSetPodNameLabel] != "web-0" || web0.Labels[api.PodIndexLabel] != "0" || web0.Labels[api.ControllerRevisionHashLabelKey] == "" {
		t.Errorf("web-0 identity: hostname %q subdomain %q labels %v", web0.Spec.Hostname, web0.Spec.Subdomain, web0.Labels)
	}
	// The claim's volume, then the token volume ServiceAccount admission adds.
	if v := web0.Spec.Volumes; len(v) != 2 || v[0].PersistentVolumeClaim == nil || v[0].PersistentVolumeClaim.ClaimName != "www-web-0" ||
		!strings.HasPrefix(v[1].Name, "kube-api-access-") {
		t.Errorf("web-0 volumes %+v", v)
	}
	if got := claims(t, c); !slices.Equal(got, []string{"www-web-0"}) {
		t.Errorf("claims %v", got)
	}
	waitEvent(t, c, "SuccessfulCreate", "create Claim www-web-0 Pod web-0 in StatefulSet web success")
	waitEvent(t, c, "SuccessfulCreate", "create Pod web-0 in StatefulSet web successful")

	// Until web-0 is ready there is no web-1; web-2 waits for web-1.
	markReady(t, c, "web-0")
	waitPods(t, c, set, "web-0", "web-1")
	markReady(t, c, "web-1")
	waitPods(t, c, set, "web-0", "web-1", "web-2")
	markReady(t, c, "web-2")
	status := waitStatus(t, c, "web", func(s api.StatefulSetStatus, gen int64) bool {
		return s.ReadyReplicas == 3 && s.ObservedGeneration == gen
	})
	if status.Replicas != 3 || status.CurrentReplicas != 3 || status.UpdatedReplicas != 3 || status.AvailableReplicas != 3 ||
		status.CurrentRevision == "" || status.CurrentRevision != status.UpdateRevision {
		t.Errorf("status %+v", status)
	}
	if status.CurrentRevision != web0.Labels[api.ControllerRevisionHashLabelKey] {
		t.Errorf("currentRevision %q, pod revision %q", status.CurrentRevision, web0.Labels[api.ControllerRevisionHashLabelKey])
	}
	rev, err := c.ControllerRevisions("default").Get(context.Background(), status.CurrentRevision, client.GetOptions{})
	if err != nil {
		t.Fatalf("get revision %s: %v", status.CurrentRevision, err)
	}
	if rev.Revision != 1 || !controllerutil.IsControlledBy(&rev.ObjectMeta, set.UID) || !strings.Contains(string(rev.Data), `"$patch":"replace"`) {
		t.Errorf("revision %s: number %d owners %+v data %s", rev.Name, rev.Revision, rev.OwnerReferences, rev.Data)
	}

	log := watchPods(t, c)
	mutate(t, c, "web", func(s *api.StatefulSet) { s.Spec.Replicas = ptr(int32(1)) })
	log.waitFor(t, "-", "-web-2", "-web-1")
	waitPods(t, c, set, "web-0")
	waitStatus(t, c, "web", func(s api.StatefulSetStatus, gen int64) bool { return s.Replicas == 1 && s.ObservedGeneration == gen })
	if got := claims(t, c); !slices.Equal(got, []string{"www-web-0", "www-web-1", "www-web-2"}) {
		t.Errorf("claims after scale down %v, want all three kept", got)
	}
	waitEvent(t, c, "SuccessfulDelete", "delete Pod web-2 in StatefulSet web successful")
}

// RollingUpdate recreates web-2, web-1, web-0 in that order; then a
// partition of 2 updates only web-2.
func TestRollingUpdateAndPartition(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startController(t, c, true)
	set := create(t, c, newSet("web", 3, "nginx:1"))
	first := waitStatus(t, c, "web", func(s api.StatefulSetStatus, _ int64) bool { return s.ReadyReplicas == 3 })

	log := watchPods(t, c)
	mutate(t, c, "web", func(s *api.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	log.waitFor(t, "-", "-web-2", "-web-1", "-web-0")
	second := waitStatus(t, c, "web", func(s api.StatefulSetStatus, gen int64) bool {
		return s.ObservedGeneration == gen && s.UpdatedReplicas == 3 && s.ReadyReplicas == 3 && s.CurrentRevision == s.UpdateRevision
	})
	if second.UpdateRevision == first.UpdateRevision {
		t.Fatalf("update revision did not change: %s", second.UpdateRevision)
	}
	for name, p := range pods(t, c, set) {
		if p.Spec.Containers[0].Image != "nginx:2" || p.Labels[api.ControllerRevisionHashLabelKey] != second.UpdateRevision {
			t.Errorf("%s: image %s revision %s", name, p.Spec.Containers[0].Image, p.Labels[api.ControllerRevisionHashLabelKey])
		}
	}

	// Partition 2: only web-2 moves to nginx:3.
	log = watchPods(t, c)
	mutate(t, c, "web", func(s *api.StatefulSet) {
		s.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateStatefulSetStrategy{Partition: ptr(int32(2))}
		s.Spec.Template.Spec.Containers[0].Image = "nginx:3"
	})
	third := waitStatus(t, c, "web", func(s api.StatefulSetStatus, gen int64) bool {
		return s.ObservedGeneration == gen && s.UpdatedReplicas == 1 && s.ReadyReplicas == 3
	})
	if third.CurrentRevision != second.UpdateRevision || third.UpdateRevision == second.UpdateRevision || third.CurrentReplicas != 2 {
		t.Errorf("partitioned status %+v", third)
	}
	got := pods(t, c, set)
	for name, want := range map[string]string{"web-0": "nginx:2", "web-1": "nginx:2", "web-2": "nginx:3"} {
		if p := got[name]; p == nil || p.Spec.Containers[0].Image != want {
			t.Errorf("%s: %+v, want image %s", name, p, want)
		}
	}
	log.waitFor(t, "-", "-web-2")

	// Going back to nginx:2 reuses its revision with a new number: a
	// rollback, no new ControllerRevision.
	mutate(t, c, "web", func(s *api.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	back := waitStatus(t, c, "web", func(s api.StatefulSetStatus, gen int64) bool {
		return s.ObservedGeneration == gen && s.UpdatedReplicas == 3 && s.ReadyReplicas == 3
	})
	if back.UpdateRevision != second.UpdateRevision {
		t.Errorf("rollback update revision %s, want the old %s", back.UpdateRevision, second.UpdateRevision)
	}
	rev, err := c.ControllerRevisions("default").Get(context.Background(), back.UpdateRevision, client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rev.Revision != 4 {
		t.Errorf("rolled-back revision number %d, want 4", rev.Revision)
	}
}

// Parallel creates every pod at once, without waiting for readiness.
func TestParallel(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startController(t, c, false) // nothing ever becomes ready
	s := newSet("par", 3, "nginx:1")
	s.Spec.PodManagementPolicy = api.ParallelPodManagement
	set := create(t, c, s)
	waitPods(t, c, set, "par-0", "par-1", "par-2")
	waitStatus(t, c, "par", func(s api.StatefulSetStatus, _ int64) bool { return s.Replicas == 3 && s.ReadyReplicas == 0 })
}

// OnDelete leaves old pods alone; a pod the user deletes comes back at
// the update revision.
func TestOnDelete(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startController(t, c, true)
	s := newSet("web", 2, "nginx:1")
	s.Spec.UpdateStrategy = api.StatefulSetUpdateStrategy{Type: api.OnDeleteStatefulSetStrategyType}
	set := create(t, c, s)
	waitStatus(t, c, "web", func(s api.StatefulSetStatus, _ int64) bool { return s.ReadyReplicas == 2 })
	mutate(t, c, "web", func(s *api.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	waitStatus(t, c, "web", func(s api.StatefulSetStatus, gen int64) bool {
		return s.ObservedGeneration == gen && s.UpdatedReplicas == 0 && s.CurrentRevision != s.UpdateRevision
	})
	old := pods(t, c, set)["web-1"]
	if err := c.Pods("default").Delete(context.Background(), "web-1", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		p := pods(t, c, set)["web-1"]
		return p != nil && p.UID != old.UID && p.Spec.Containers[0].Image == "nginx:2", fmt.Sprintf("web-1 %+v", p)
	})
	if p := pods(t, c, set)["web-0"]; p == nil || p.Spec.Containers[0].Image != "nginx:1" {
		t.Errorf("web-0 should stay at nginx:1: %+v", p)
	}
}

// An orphan pod named like a member and matching the selector is adopted,
// not replaced.
func TestAdoptsOrphan(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	orphan := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "web-0", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx:1"}}},
	}
	created, err := c.Pods("default").Create(context.Background(), orphan, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	startController(t, c, false)
	set := create(t, c, newSet("web", 1, "nginx:1"))
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		p := pods(t, c, set)["web-0"]
		return p != nil && p.UID == created.UID, fmt.Sprintf("web-0 %+v", p)
	})
}

func ptr[T any](v T) *T { return &v }
