package deployment_test

// These tests run the Deployment controller and the ReplicaSet controller
// in-process against a real apiserver on a temp etcd. There is no
// scheduler and no kubelet: a small loop (controllertest.MarkPodsReady) plays
// the kubelet's part by marking every pod Running and Ready, so the whole
// chain — Deployment → ReplicaSet → pods → ReplicaSet status → Deployment
// status — is the real one.

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/controllers/deployment"
	"kplane/pkg/controllers/replicaset"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 30 * time.Second

// stuckLabel on a pod template keeps the fake kubelet away from its pods:
// they never become ready, as with a bad image.
const stuckLabel = "test.kplane.io/never-ready"

// startControllers runs the deployment and replicaset controllers on one
// informer factory, and the fake kubelet, until the test ends.
func startControllers(t *testing.T, c *client.Client) {
	t.Helper()
	h := controllertest.NewControllers(t, c)
	dc, err := deployment.New(c, h.Factory, h.Recorder("deployment-controller"), deployment.Options{Logger: h.Logger})
	if err != nil {
		t.Fatalf("deployment.New: %v", err)
	}
	rsc, err := replicaset.New(c, h.Factory, h.Recorder("replicaset-controller"), replicaset.Options{Logger: h.Logger})
	if err != nil {
		t.Fatalf("replicaset.New: %v", err)
	}
	h.Run(2, dc, rsc)
	// The kubelet's part: every pod becomes Running and Ready, except
	// those labelled stuckLabel.
	h.Go(func(ctx context.Context) { controllertest.MarkPodsReady(ctx, c, "default", "!"+stuckLabel) })
}

// newDeployment is Deployment "web" with replicas pods of image.
func newDeployment(replicas int32, image string) *api.Deployment {
	return &api.Deployment{
		TypeMeta:   api.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.DeploymentSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: image}}},
			},
		},
	}
}

func create(t *testing.T, c *client.Client, d *api.Deployment) *api.Deployment {
	t.Helper()
	created, err := c.Deployments("default").Create(context.Background(), d, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create deployment: %v", err)
	}
	return created
}

// setImage changes the template's image, retrying conflicts with the
// controller's own writes.
func setImage(t *testing.T, c *client.Client, image string) {
	t.Helper()
	mutate(t, c, func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = image })
}

// mutate applies change to the Deployment with Get + Update, retrying conflicts.
func mutate(t *testing.T, c *client.Client, change func(*api.Deployment)) {
	t.Helper()
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		d, err := c.Deployments("default").Get(context.Background(), "web", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		change(d)
		_, err = c.Deployments("default").Update(context.Background(), d, client.UpdateOptions{})
		if apierrors.IsConflict(err) {
			return false, err.Error()
		}
		if err != nil {
			t.Fatalf("update deployment: %v", err)
		}
		return true, ""
	})
}

// replicaSets lists web's ReplicaSets, oldest revision first.
func replicaSets(t *testing.T, c *client.Client) []*api.ReplicaSet {
	t.Helper()
	list, err := c.ReplicaSets("default").List(context.Background(), client.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatalf("list replica sets: %v", err)
	}
	rss := list.Items
	revision := func(rs *api.ReplicaSet) int {
		n, _ := strconv.Atoi(rs.Annotations[api.DeploymentRevisionAnnotation])
		return n
	}
	sort.Slice(rss, func(i, j int) bool { return revision(rss[i]) < revision(rss[j]) })
	return rss
}

func describeRS(rss []*api.ReplicaSet) string {
	var parts []string
	for _, rs := range rss {
		parts = append(parts, fmt.Sprintf("%s(rev %s, image %s, spec %d, status %d/%d available)", rs.Name,
			rs.Annotations[api.DeploymentRevisionAnnotation], rs.Spec.Template.Spec.Containers[0].Image,
			*rs.Spec.Replicas, rs.Status.AvailableReplicas, rs.Status.Replicas))
	}
	return strings.Join(parts, ", ")
}

// waitReplicaSets waits until web's ReplicaSets satisfy ok.
func waitReplicaSets(t *testing.T, c *client.Client, ok func([]*api.ReplicaSet) bool) []*api.ReplicaSet {
	t.Helper()
	var rss []*api.ReplicaSet
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		rss = replicaSets(t, c)
		return ok(rss), "replica sets: " + describeRS(rss)
	})
	return rss
}

// waitComplete waits until web's status says the rollout of the current
// generation finished with replicas pods of image, and returns it.
func waitComplete(t *testing.T, c *client.Client, replicas int32, image string) *api.Deployment {
	t.Helper()
	return waitCompleteWithin(t, c, waitTimeout, replicas, image)
}

// waitCompleteWithin is waitComplete with its own deadline.
func waitCompleteWithin(t *testing.T, c *client.Client, timeout time.Duration, replicas int32, image string) *api.Deployment {
	t.Helper()
	var d *api.Deployment
	framework.Eventually(t, timeout, func() (bool, string) {
		var err error
		d, err = c.Deployments("default").Get(context.Background(), "web", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		s := d.Status
		p := condition(d, api.DeploymentProgressing)
		done := d.Spec.Template.Spec.Containers[0].Image == image && s.ObservedGeneration == d.Generation &&
			s.Replicas == replicas && s.UpdatedReplicas == replicas && s.ReadyReplicas == replicas &&
			s.AvailableReplicas == replicas && s.UnavailableReplicas == 0 &&
			p != nil && p.Reason == "NewReplicaSetAvailable"
		js, _ := json.Marshal(s)
		return done, fmt.Sprintf("generation %d status %s; replica sets: %s", d.Generation, js, describeRS(replicaSets(t, c)))
	})
	return d
}

func condition(d *api.Deployment, t api.DeploymentConditionType) *api.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == t {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}

// waitEvent waits for an event about web from the deployment controller
// with reason and message.
func waitEvent(t *testing.T, c *client.Client, reason, message string) {
	t.Helper()
	controllertest.WaitForEvent(t, c, waitTimeout, controllertest.EventMatch{Namespace: "default", Component: "deployment-controller",
		Kind: "Deployment", Name: "web", Reason: reason, Message: message})
}

// A Deployment's life through the API alone: created (revision 1), its
// image changed (revision 2, the old ReplicaSet emptied), rolled back by
// patching the template back the way kubectl's undo does (the old
// ReplicaSet becomes revision 3).
func TestDeploymentCreateUpdateRollback(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startControllers(t, c)
	d := create(t, c, newDeployment(4, "nginx:1.27"))

	// Revision 1: one ReplicaSet web-<hash>, owned by the Deployment.
	rss := waitReplicaSets(t, c, func(rss []*api.ReplicaSet) bool { return len(rss) == 1 && *rss[0].Spec.Replicas == 4 })
	first := rss[0]
	hash := first.Labels[api.DefaultDeploymentUniqueLabelKey]
	if first.Name != "web-"+hash || first.Spec.Selector.MatchLabels[api.DefaultDeploymentUniqueLabelKey] != hash ||
		first.Spec.Template.Labels[api.DefaultDeploymentUniqueLabelKey] != hash {
		t.Fatalf("ReplicaSet %s: hash label %q must name it and be in its selector and template", first.Name, hash)
	}
	if !controllerutil.IsControlledBy(&first.ObjectMeta, d.UID) {
		t.Fatalf("ReplicaSet %s ownerReferences %+v, want controller web", first.Name, first.OwnerReferences)
	}
	if first.Annotations[api.DeploymentRevisionAnnotation] != "1" {
		t.Fatalf("first ReplicaSet revision %q, want 1", first.Annotations[api.DeploymentRevisionAnnotation])
	}
	done := waitComplete(t, c, 4, "nginx:1.27")
	if done.Annotations[api.DeploymentRevisionAnnotation] != "1" {
		t.Errorf("deployment revision annotation %q, want 1", done.Annotations[api.DeploymentRevisionAnnotation])
	}
	if av := condition(done, api.DeploymentAvailable); av == nil || av.Status != api.ConditionTrue || av.Message != "Deployment has minimum availability." {
		t.Errorf("Available condition %+v, want True with minimum availability", av)
	}
	if p := condition(done, api.DeploymentProgressing); p.Message != fmt.Sprintf("ReplicaSet %q has successfully progressed.", first.Name) {
		t.Errorf("Progressing message %q", p.Message)
	}
	waitEvent(t, c, "ScalingReplicaSet", "Scaled up replica set "+first.Name+" from 0 to 4")

	// Revision 2: new image; the old ReplicaSet ends at 0.
	setImage(t, c, "nginx:1.28")
	done = waitComplete(t, c, 4, "nginx:1.28")
	rss = waitReplicaSets(t, c, func(rss []*api.ReplicaSet) bool {
		return len(rss) == 2 && *rss[0].Spec.Replicas == 0 && *rss[1].Spec.Replicas == 4
	})
	second := rss[1]
	if rss[0].Name != first.Name || second.Annotations[api.DeploymentRevisionAnnotation] != "2" {
		t.Fatalf("after the image change: %s, want %s at revision 1 and a new ReplicaSet at revision 2", describeRS(rss), first.Name)
	}
	if done.Annotations[api.DeploymentRevisionAnnotation] != "2" {
		t.Errorf("deployment revision annotation %q, want 2", done.Annotations[api.DeploymentRevisionAnnotation])
	}
	// 4 replicas at 25%/25%: surge 1, unavailable 1, so the new one starts at 1.
	waitEvent(t, c, "ScalingReplicaSet", "Scaled up replica set "+second.Name+" from 0 to 1")
	waitEvent(t, c, "ScalingReplicaSet", "Scaled down replica set "+first.Name+" from 4 to 3")

	// Roll back as `kubectl rollout undo` does: revision 1's template,
	// without its pod-template-hash label, patched into the Deployment.
	template := api.DeepCopyValue(first.Spec.Template)
	delete(template.Labels, api.DefaultDeploymentUniqueLabelKey)
	patch, _ := json.Marshal([]map[string]any{{"op": "replace", "path": "/spec/template", "value": template}})
	if _, err := c.Deployments("default").Patch(context.Background(), "web", client.JSONPatchType, patch, client.PatchOptions{}); err != nil {
		t.Fatalf("roll back: %v", err)
	}
	done = waitComplete(t, c, 4, "nginx:1.27")
	rss = waitReplicaSets(t, c, func(rss []*api.ReplicaSet) bool {
		return len(rss) == 2 && rss[1].Name == first.Name && rss[1].Annotations[api.DeploymentRevisionAnnotation] == "3" && *rss[0].Spec.Replicas == 0
	})
	if h := rss[1].Annotations["deployment.kubernetes.io/revision-history"]; h != "1" {
		t.Errorf("rolled-back ReplicaSet revision-history %q, want 1", h)
	}
	if done.Annotations[api.DeploymentRevisionAnnotation] != "3" {
		t.Errorf("deployment revision annotation %q after rollback, want 3", done.Annotations[api.DeploymentRevisionAnnotation])
	}
}

// revisionHistoryLimit 2: after five templates, the current ReplicaSet and
// the two newest old ones remain.
func TestDeploymentRevisionHistoryLimit(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startControllers(t, c)
	d := newDeployment(2, "app:v1")
	limit := int32(2)
	d.Spec.RevisionHistoryLimit = &limit
	create(t, c, d)
	waitComplete(t, c, 2, "app:v1")
	for v := 2; v <= 5; v++ {
		image := fmt.Sprintf("app:v%d", v)
		setImage(t, c, image)
		waitComplete(t, c, 2, image)
	}
	waitReplicaSets(t, c, func(rss []*api.ReplicaSet) bool {
		var revs []string
		for _, rs := range rss {
			revs = append(revs, rs.Annotations[api.DeploymentRevisionAnnotation])
		}
		return strings.Join(revs, " ") == "3 4 5"
	})
}

// Paused: a template change is recorded (observedGeneration) but not
// rolled out, and Progressing says DeploymentPaused; resuming rolls out.
func TestDeploymentPauseAndResume(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startControllers(t, c)
	create(t, c, newDeployment(2, "nginx:1.27"))
	waitComplete(t, c, 2, "nginx:1.27")

	mutate(t, c, func(d *api.Deployment) {
		d.Spec.Paused = true
		d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
	})
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		d, err := c.Deployments("default").Get(context.Background(), "web", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		p := condition(d, api.DeploymentProgressing)
		return d.Status.ObservedGeneration == d.Generation && p != nil && p.Reason == "DeploymentPaused" && p.Status == api.ConditionUnknown,
			fmt.Sprintf("generation %d observed %d, Progressing %+v", d.Generation, d.Status.ObservedGeneration, p)
	})
	if rss := replicaSets(t, c); len(rss) != 1 {
		t.Fatalf("a paused deployment rolled out: %s", describeRS(rss))
	}

	mutate(t, c, func(d *api.Deployment) { d.Spec.Paused = false })
	waitComplete(t, c, 2, "nginx:1.28")
}

// A rollout whose pods never become ready fails after
// progressDeadlineSeconds: Progressing turns False, ProgressDeadlineExceeded.
// Nothing changes after the first steps, so only the controller's own
// delayed requeue can notice.
func TestDeploymentProgressDeadlineExceeded(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startControllers(t, c)
	d := newDeployment(2, "nginx:broken")
	d.Spec.Template.Labels[stuckLabel] = "yes"
	deadline := int32(2)
	d.Spec.ProgressDeadlineSeconds = &deadline
	create(t, c, d)

	rss := waitReplicaSets(t, c, func(rss []*api.ReplicaSet) bool { return len(rss) == 1 })
	want := fmt.Sprintf("ReplicaSet %q has timed out progressing.", rss[0].Name)
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		d, err := c.Deployments("default").Get(context.Background(), "web", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		p := condition(d, api.DeploymentProgressing)
		return p != nil && p.Status == api.ConditionFalse && p.Reason == "ProgressDeadlineExceeded" && p.Message == want,
			fmt.Sprintf("Progressing %+v", p)
	})
}

// What kubectl users do, with the real kubectl: rollout status, history
// with CHANGE-CAUSE, undo (to the previous revision, which becomes the
// newest), restart.
func TestDeploymentWithKubectl(t *testing.T) {
	framework.RequireKubectl(t)
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startControllers(t, c)
	d := newDeployment(3, "nginx:1.27")
	d.Annotations = map[string]string{"kubernetes.io/change-cause": "first version"}
	create(t, c, d)

	status := func() string {
		t.Helper()
		return a.MustKubectl(t, "rollout", "status", "deployment/web", "--timeout=30s")
	}
	if out := status(); !strings.Contains(out, `deployment "web" successfully rolled out`) {
		t.Fatalf("kubectl rollout status printed %q", out)
	}

	a.MustKubectl(t, "set", "image", "deployment/web", "nginx=nginx:1.28")
	a.MustKubectl(t, "annotate", "deployment/web", "kubernetes.io/change-cause=to 1.28", "--overwrite")
	status()
	waitComplete(t, c, 3, "nginx:1.28")
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		out := a.MustKubectl(t, "rollout", "history", "deployment/web")
		return historyHas(out, "1", "first version") && historyHas(out, "2", "to 1.28"), out
	})

	// Undo: revision 1's template comes back as revision 3.
	if out := a.MustKubectl(t, "rollout", "undo", "deployment/web"); !strings.Contains(out, "rolled back") {
		t.Fatalf("kubectl rollout undo printed %q", out)
	}
	status()
	waitComplete(t, c, 3, "nginx:1.27")
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		out := a.MustKubectl(t, "rollout", "history", "deployment/web")
		return historyHas(out, "2", "to 1.28") && historyHas(out, "3", "first version") && !historyHas(out, "1", ""), out
	})

	// Restart: a template annotation, so a new ReplicaSet at revision 4.
	a.MustKubectl(t, "rollout", "restart", "deployment/web")
	status()
	waitReplicaSets(t, c, func(rss []*api.ReplicaSet) bool {
		last := rss[len(rss)-1]
		return len(rss) == 3 && last.Annotations[api.DeploymentRevisionAnnotation] == "4" &&
			last.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] != "" && *last.Spec.Replicas == 3
	})
}

// historyHas reports whether `kubectl rollout history` lists revision rev
// with a CHANGE-CAUSE starting with cause.
func historyHas(out, rev, cause string) bool {
	for _, line := range strings.Split(out, "\n") {
		fields := strings.Fields(line)
		if len(fields) > 0 && fields[0] == rev && strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), rev)), cause) {
			return true
		}
	}
	return false
}
