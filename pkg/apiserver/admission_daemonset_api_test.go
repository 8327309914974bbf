package apiserver_test

import (
	"context"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// TestDaemonSetTemplateGeneration: a DaemonSet is created with
// deprecated.daemonset.template.generation "1"; an update that changes the
// template bumps it, one that changes only other fields does not, and a
// value the client sends is not taken.
func TestDaemonSetTemplateGeneration(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	dss := c.DaemonSets("default")
	ds := &api.DaemonSet{ObjectMeta: api.ObjectMeta{Name: "agent", Annotations: map[string]string{"deprecated.daemonset.template.generation": "7"}},
		Spec: api.DaemonSetSpec{
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "agent", Image: "agent:1"}}}},
		}}
	ds, err := dss.Create(ctx, ds, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	generation := func(step string, ds *api.DaemonSet, want string) {
		t.Helper()
		if got := ds.Annotations["deprecated.daemonset.template.generation"]; got != want {
			t.Errorf("%s: template generation = %q, want %q", step, got, want)
		}
	}
	generation("create", ds, "1")

	limit := int32(3)
	ds.Spec.RevisionHistoryLimit = &limit
	if ds, err = dss.Update(ctx, ds, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	generation("update outside the template", ds, "1")

	ds.Spec.Template.Spec.Containers[0].Image = "agent:2"
	if ds, err = dss.Update(ctx, ds, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	generation("new image", ds, "2")
}
