package apiserver_test

import (
	"context"
	"fmt"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// tolerationSummary is "key:Effect op for Ns" per toleration, in order.
func tolerationSummary(ts []api.Toleration) []string {
	var out []string
	for _, t := range ts {
		s := fmt.Sprintf("%s:%s %s", t.Key, t.Effect, t.Operator)
		if t.TolerationSeconds != nil {
			s += fmt.Sprintf(" for %ds", *t.TolerationSeconds)
		}
		out = append(out, s)
	}
	return out
}

// A pod created through the API gets the not-ready and unreachable
// tolerations for 300 s unless it has its own; a replace that drops them
// gets them back, and a status write leaves the spec alone.
func TestDefaultTolerationSecondsAdmission(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	pods := c.Pods("default")
	container := []api.Container{{Name: "app", Image: "nginx"}}

	plain, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "plain"}, Spec: api.PodSpec{Containers: container}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"node.kubernetes.io/not-ready:NoExecute Exists for 300s", "node.kubernetes.io/unreachable:NoExecute Exists for 300s"}
	if got := tolerationSummary(plain.Spec.Tolerations); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("created pod's tolerations = %q, want %q", got, want)
	}

	five := int64(5)
	own, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "own"}, Spec: api.PodSpec{Containers: container,
		Tolerations: []api.Toleration{{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: &five}}}},
		client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"node.kubernetes.io/unreachable:NoExecute Exists for 5s", "node.kubernetes.io/not-ready:NoExecute Exists for 300s"}
	if got := tolerationSummary(own.Spec.Tolerations); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("pod with its own toleration got %q, want %q", got, want)
	}

	// kubectl replace of the original manifest: no tolerations in the body.
	replaced := api.DeepCopy(plain)
	replaced.Spec.Tolerations = nil
	replaced, err = pods.Update(ctx, replaced, client.UpdateOptions{})
	if err != nil {
		t.Fatalf("replace without the default tolerations: %v", err)
	}
	if got := len(replaced.Spec.Tolerations); got != 2 {
		t.Fatalf("after a replace the pod has %d tolerations, want the 2 defaults back: %q", got, tolerationSummary(replaced.Spec.Tolerations))
	}

	status := api.DeepCopy(replaced)
	status.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse}}
	updated, err := pods.UpdateStatus(ctx, status, client.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tolerationSummary(updated.Spec.Tolerations); fmt.Sprint(got) != fmt.Sprint(tolerationSummary(replaced.Spec.Tolerations)) {
		t.Fatalf("a status write changed the tolerations to %q", got)
	}
}
