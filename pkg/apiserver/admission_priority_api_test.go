package apiserver_test

import (
	"context"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// expectRefused fails the test unless err is the Status check accepts
// with exactly message.
func expectRefused(t *testing.T, what string, err error, check func(error) bool, message string) {
	t.Helper()
	if !check(err) || err.Error() != message {
		t.Errorf("%s: err = %v (reason %s)\nwant: %s", what, err, apierrors.ReasonOf(err), message)
	}
}

// The apiserver creates the two system classes with upstream's values,
// descriptions and policy; a single DELETE of either is refused; a start
// on the same data leaves them as they are and creates again one that a
// deletecollection removed (which, as upstream's, the guard does not stop).
func TestPrioritySystemClassesBootstrappedAndKept(t *testing.T) {
	dir := t.TempDir()
	a := framework.StartAPIServerIn(t, dir)
	c := a.Client(t, nil)
	ctx := context.Background()
	classes := c.PriorityClasses()

	stored := map[string]*api.PriorityClass{}
	for _, want := range api.SystemPriorityClasses() {
		got, err := classes.Get(ctx, want.Name, client.GetOptions{})
		if err != nil {
			t.Fatalf("system class %s: %v", want.Name, err)
		}
		if got.Value != want.Value || got.GlobalDefault || got.Description != want.Description ||
			got.PreemptionPolicy == nil || *got.PreemptionPolicy != api.PreemptLowerPriority || got.Generation != 1 {
			t.Errorf("%s = value %d, default %t, description %q, policy %v, generation %d; want %d, false, %q, PreemptLowerPriority, 1",
				want.Name, got.Value, got.GlobalDefault, got.Description, got.PreemptionPolicy, got.Generation, want.Value, want.Description)
		}
		stored[want.Name] = got
		err = classes.Delete(ctx, want.Name, client.DeleteOptions{})
		expectRefused(t, "delete "+want.Name, err, apierrors.IsForbidden,
			`priorityclasses.scheduling.k8s.io "`+want.Name+`" is forbidden: this is a system priority class and cannot be deleted`)
	}
	if got, want := stored[api.SystemNodeCritical].Value, int32(2000001000); got != want {
		t.Errorf("system-node-critical value %d, want %d", got, want)
	}

	if err := classes.DeleteCollection(ctx, client.DeleteOptions{}, client.ListOptions{FieldSelector: "metadata.name=" + api.SystemClusterCritical}); err != nil {
		t.Fatal(err)
	}
	if _, err := classes.Get(ctx, api.SystemClusterCritical, client.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("system-cluster-critical after deletecollection: err = %v, want NotFound", err)
	}

	a.Stop()
	a = framework.StartAPIServerIn(t, dir)
	c = a.Client(t, nil)
	node, err := c.PriorityClasses().Get(ctx, api.SystemNodeCritical, client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if node.ResourceVersion != stored[api.SystemNodeCritical].ResourceVersion {
		t.Errorf("system-node-critical was rewritten at restart: resourceVersion %s → %s",
			stored[api.SystemNodeCritical].ResourceVersion, node.ResourceVersion)
	}
	cluster, err := c.PriorityClasses().Get(ctx, api.SystemClusterCritical, client.GetOptions{})
	if err != nil {
		t.Fatalf("system-cluster-critical was not created again at restart: %v", err)
	}
	if cluster.Value != 2000000000 {
		t.Errorf("recreated system-cluster-critical has value %d", cluster.Value)
	}
}

// Creates and updates are validated with upstream's messages: user values
// stop at 1000000000, system- names are the system's, value and policy
// never change; the description may.
func TestPriorityClassValidation(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	classes := c.PriorityClasses()

	high, err := classes.Create(ctx, &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: "high"}, Value: 1000000}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if high.PreemptionPolicy == nil || *high.PreemptionPolicy != api.PreemptLowerPriority || high.Generation != 1 {
		t.Errorf("new class: policy %v, generation %d; want PreemptLowerPriority, 1", high.PreemptionPolicy, high.Generation)
	}

	_, err = classes.Create(ctx, &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: "too-high"}, Value: 1000000001}, client.CreateOptions{})
	expectRefused(t, "value above the user maximum", err, apierrors.IsInvalid,
		`PriorityClass.scheduling.k8s.io "too-high" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000`)
	_, err = classes.Create(ctx, &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: "system-mine"}, Value: 10}, client.CreateOptions{})
	expectRefused(t, "system- name", err, apierrors.IsInvalid,
		`PriorityClass.scheduling.k8s.io "system-mine" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class`)

	changed := api.DeepCopy(high)
	changed.Value = 5
	_, err = classes.Update(ctx, changed, client.UpdateOptions{})
	expectRefused(t, "value changed", err, apierrors.IsInvalid,
		`PriorityClass.scheduling.k8s.io "high" is invalid: value: Forbidden: may not be changed in an update.`)
	never := api.PreemptNever
	changed = api.DeepCopy(high)
	changed.PreemptionPolicy = &never
	if _, err := classes.Update(ctx, changed, client.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("preemptionPolicy changed: err = %v, want Invalid", err)
	}
	changed = api.DeepCopy(high)
	changed.Description = "Customer-facing services."
	updated, err := classes.Update(ctx, changed, client.UpdateOptions{})
	if err != nil {
		t.Fatalf("description changed: %v", err)
	}
	if updated.Description != "Customer-facing services." || updated.Generation != 1 {
		t.Errorf("after a description change: %q, generation %d; want the new description, generation 1", updated.Description, updated.Generation)
	}
}

// Only one class is the global default: a second one is refused, whether
// created so or marked so by an update, while the default itself may be
// updated.
func TestPriorityClassSingleGlobalDefault(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	classes := c.PriorityClasses()

	normal, err := classes.Create(ctx, &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: "normal"}, Value: 10, GlobalDefault: true}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	high, err := classes.Create(ctx, &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: "high"}, Value: 1000}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	_, err = classes.Create(ctx, &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: "other"}, Value: 20, GlobalDefault: true}, client.CreateOptions{})
	expectRefused(t, "a second default created", err, apierrors.IsForbidden,
		`priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass normal is already marked as default. Only one default can exist`)
	high.GlobalDefault = true
	_, err = classes.Update(ctx, high, client.UpdateOptions{})
	expectRefused(t, "a second default by update", err, apierrors.IsForbidden,
		`priorityclasses.scheduling.k8s.io "high" is forbidden: PriorityClass normal is already marked as default. Only one default can exist`)

	normal.Description = "What pods get unless they say otherwise."
	if _, err := classes.Update(ctx, normal, client.UpdateOptions{}); err != nil {
		t.Errorf("updating the default itself: %v", err)
	}
}

// A new pod gets its class's value and policy, or the global default's
// (name included), or priority 0; an unknown class and a priority that
// differs from the class's are refused with upstream's messages; a replace
// without them keeps the stored ones; pod templates are left alone.
func TestPodPriorityAdmission(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	pods := c.Pods("default")
	container := []api.Container{{Name: "app", Image: "nginx"}}
	newPod := func(name, class string) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.PodSpec{PriorityClassName: class, Containers: container}}
	}
	expectPriority := func(pod *api.Pod, class string, value int32, policy api.PreemptionPolicy) {
		t.Helper()
		if pod.Spec.PriorityClassName != class || pod.Spec.Priority == nil || *pod.Spec.Priority != value ||
			pod.Spec.PreemptionPolicy == nil || *pod.Spec.PreemptionPolicy != policy {
			t.Errorf("pod %s: class %q priority %v policy %v; want %q %d %s",
				pod.Name, pod.Spec.PriorityClassName, pod.Spec.Priority, pod.Spec.PreemptionPolicy, class, value, policy)
		}
	}

	plain, err := pods.Create(ctx, newPod("plain", ""), client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	expectPriority(plain, "", 0, api.PreemptLowerPriority)

	critical, err := pods.Create(ctx, newPod("critical", api.SystemNodeCritical), client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	expectPriority(critical, api.SystemNodeCritical, 2000001000, api.PreemptLowerPriority)

	never := api.PreemptNever
	if _, err := c.PriorityClasses().Create(ctx, &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: "batch"}, Value: 1000,
		PreemptionPolicy: &never}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	batch, err := pods.Create(ctx, newPod("batch", "batch"), client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	expectPriority(batch, "batch", 1000, api.PreemptNever)

	_, err = pods.Create(ctx, newPod("ghost", "missing"), client.CreateOptions{})
	expectRefused(t, "unknown class", err, apierrors.IsForbidden,
		`pods "ghost" is forbidden: no PriorityClass with name missing was found`)
	own := newPod("own", "batch")
	five := int32(5)
	own.Spec.Priority = &five
	_, err = pods.Create(ctx, own, client.CreateOptions{})
	expectRefused(t, "a priority of its own", err, apierrors.IsForbidden,
		`pods "own" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name`)
	// The pod's own manifest read back (priority included) is admitted again.
	copied := api.DeepCopy(batch)
	copied.ObjectMeta = api.ObjectMeta{Name: "copied"}
	copied.Spec.NodeName = ""
	if _, err := pods.Create(ctx, copied, client.CreateOptions{}); err != nil {
		t.Errorf("a copy of an admitted pod: %v", err)
	}

	// kubectl replace of the original manifest: no priority in the body.
	replaced := api.DeepCopy(batch)
	replaced.Spec.Priority, replaced.Spec.PreemptionPolicy = nil, nil
	replaced, err = pods.Update(ctx, replaced, client.UpdateOptions{})
	if err != nil {
		t.Fatalf("replace without priority: %v", err)
	}
	expectPriority(replaced, "batch", 1000, api.PreemptNever)

	if _, err := c.PriorityClasses().Create(ctx, &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: "normal"}, Value: 10,
		GlobalDefault: true}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The plugin reads the watch cache as it is, as upstream reads an
	// informer's; a list at the latest revision waits until the cache has
	// the new default.
	if _, err := c.PriorityClasses().List(ctx, client.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	defaulted, err := pods.Create(ctx, newPod("defaulted", ""), client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	expectPriority(defaulted, "normal", 10, api.PreemptLowerPriority)

	// A template is not a pod: its class is resolved when its pods are made.
	replicas := int32(0)
	deploy, err := c.Deployments("default").Create(ctx, &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "web"}, Spec: api.DeploymentSpec{
		Replicas: &replicas,
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: api.PodSpec{PriorityClassName: "missing", Containers: container}},
	}}, client.CreateOptions{})
	if err != nil {
		t.Fatalf("deployment naming a missing class: %v", err)
	}
	if spec := deploy.Spec.Template.Spec; spec.Priority != nil || spec.PreemptionPolicy != nil || spec.PriorityClassName != "missing" {
		t.Errorf("template: class %q priority %v policy %v; want missing, unset, unset", spec.PriorityClassName, spec.Priority, spec.PreemptionPolicy)
	}
}
