package ctl

import (
	"context"
	"maps"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/kubelet/simload"
	"kplane/test/framework"
)

// TestLoad runs `ctl load` against an in-process apiserver with a
// Deployment, its ReplicaSet and their pods written by the test (there are
// no controllers): the Deployment and every pod it owns through its
// ReplicaSet get the load, a pod of another owner that the selector also
// matches does not, per-container figures are replaced, and --clear
// removes it all.
func TestLoad(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	yes := true
	deploy, err := c.Deployments("default").Create(ctx, testDeployment("web", 2), client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web-1", Labels: map[string]string{"app": "web"},
		OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: deploy.UID, Controller: &yes}}},
		Spec: api.ReplicaSetSpec{Selector: deploy.Spec.Selector, Template: deploy.Spec.Template}}
	if rs, err = c.ReplicaSets("default").Create(ctx, rs, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	newPod := func(name, ownerKind, ownerName, ownerUID string, annotations map[string]string) {
		t.Helper()
		pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}, Annotations: annotations},
			Spec: deploy.Spec.Template.Spec}
		if ownerKind != "" {
			pod.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: ownerKind, Name: ownerName, UID: ownerUID, Controller: &yes}}
		}
		if _, err := c.Pods("default").Create(ctx, pod, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	newPod("web-1-a", "ReplicaSet", "web-1", rs.UID, map[string]string{simload.CPUAnnotation + ".web": "5m"})
	newPod("web-1-b", "ReplicaSet", "web-1", rs.UID, nil)
	newPod("stray", "", "", "", nil)

	check(t, a, []ctlCase{
		{[]string{"load", "deploy/web", "--cpu", "300m", "--noise", "0"}, 0,
			"deployment.apps/web load set: cpu=300m, noise=0\nreplicaset.apps/web-1 load set: cpu=300m, noise=0\npod/web-1-a load set: cpu=300m, noise=0\npod/web-1-b load set: cpu=300m, noise=0\n", ""},
		{[]string{"load", "po", "stray", "--memory", "64Mi"}, 0, "pod/stray load set: memory=64Mi\n", ""},
		{[]string{"load", "svc/web", "--cpu", "1"}, 1, "",
			"error: ctl load works on deployments, replicasets, statefulsets, daemonsets, replicationcontrollers, jobs and pods, not \"svc\"\n"},
		{[]string{"load", "deploy/web"}, 1, "", "error: at least one of --cpu, --memory, --noise or --clear is required\n"},
		{[]string{"load", "deploy/web", "--cpu", "lots"}, 1, "", "error: invalid --cpu: \"lots\" is not a quantity: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'\n"},
		{[]string{"load", "deploy/web", "--cpu", "1", "--clear"}, 1, "", "error: --clear cannot be combined with --cpu, --memory or --noise\n"},
		{[]string{"load", "deploy/nope", "--cpu", "1"}, 1, "", "Error from server (NotFound): deployments.apps \"nope\" not found\n"},
	})
	want := map[string]string{simload.CPUAnnotation: "300m", simload.NoiseAnnotation: "0"}
	loadOf := func(get func() (*api.ObjectMeta, error)) map[string]string {
		t.Helper()
		meta, err := get()
		if err != nil {
			t.Fatal(err)
		}
		return simload.LoadAnnotations(meta.Annotations)
	}
	podLoad := func(name string) map[string]string {
		return loadOf(func() (*api.ObjectMeta, error) {
			p, err := c.Pods("default").Get(ctx, name, client.GetOptions{})
			if err != nil {
				return nil, err
			}
			return &p.ObjectMeta, nil
		})
	}
	deployLoad := loadOf(func() (*api.ObjectMeta, error) {
		d, err := c.Deployments("default").Get(ctx, "web", client.GetOptions{})
		if err != nil {
			return nil, err
		}
		if d.Generation != 1 {
			t.Errorf("the Deployment's generation is %d: ctl load must not touch its template", d.Generation)
		}
		return &d.ObjectMeta, nil
	})
	for name, got := range map[string]map[string]string{"deployment": deployLoad, "web-1-a": podLoad("web-1-a"), "web-1-b": podLoad("web-1-b")} {
		if !maps.Equal(got, want) {
			t.Errorf("%s's load = %v, want %v (per-container figures replaced)", name, got, want)
		}
	}
	if got := podLoad("stray"); !maps.Equal(got, map[string]string{simload.MemoryAnnotation: "64Mi"}) {
		t.Errorf("a pod the Deployment does not own got %v", got)
	}

	check(t, a, []ctlCase{{[]string{"load", "deployment", "web", "--clear"}, 0,
		"deployment.apps/web load cleared\nreplicaset.apps/web-1 load cleared\npod/web-1-a load cleared\npod/web-1-b load cleared\n", ""}})
	if got := podLoad("web-1-a"); got != nil {
		t.Errorf("after --clear web-1-a has load %v", got)
	}
	// The ReplicaSet, which the deployment controller gives the
	// Deployment's annotations but never takes them back, is cleared too.
	rs, err = c.ReplicaSets("default").Get(ctx, "web-1", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := simload.LoadAnnotations(rs.Annotations); got != nil {
		t.Errorf("after --clear the ReplicaSet has load %v", got)
	}
}
