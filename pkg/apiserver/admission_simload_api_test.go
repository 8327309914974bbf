package apiserver_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/kubelet/simload"
	"kplane/test/framework"
)

// TestPodsInheritTheirWorkloadsLoad: a pod created for a ReplicaSet gets
// the load annotations of the ReplicaSet or, when it has none, of the
// ReplicaSet's Deployment (what `ctl load deploy/web` sets); a pod with a
// load of its own keeps it, and an ownerReference whose UID is not the
// cached object's inherits nothing.
func TestPodsInheritTheirWorkloadsLoad(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	yes := true
	labels := map[string]string{"app": "web"}
	template := api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: labels},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}}}

	deployLoad := map[string]string{simload.CPUAnnotation: "300m", simload.NoiseAnnotation: "0"}
	deploy, err := c.Deployments("default").Create(ctx, &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: "web", Annotations: maps.Clone(deployLoad)},
		Spec:       api.DeploymentSpec{Selector: &api.LabelSelector{MatchLabels: labels}, Template: template},
	}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	newRS := func(name string, annotations map[string]string) *api.ReplicaSet {
		rs, err := c.ReplicaSets("default").Create(ctx, &api.ReplicaSet{
			ObjectMeta: api.ObjectMeta{Name: name, Labels: labels, Annotations: annotations, OwnerReferences: []api.OwnerReference{{
				APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: deploy.UID, Controller: &yes}}},
			Spec: api.ReplicaSetSpec{Selector: &api.LabelSelector{MatchLabels: labels}, Template: template},
		}, client.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	plainRS := newRS("web-plain", nil)
	loadedRS := newRS("web-loaded", map[string]string{simload.MemoryAnnotation: "64Mi"})

	pod := func(owner *api.ReplicaSet, uid string, annotations map[string]string) *api.Pod {
		return &api.Pod{
			ObjectMeta: api.ObjectMeta{GenerateName: owner.Name + "-", Labels: labels, Annotations: annotations,
				OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: owner.Name, UID: uid, Controller: &yes}}},
			Spec: template.Spec,
		}
	}
	create := func(p *api.Pod) map[string]string {
		t.Helper()
		got, err := c.Pods("default").Create(ctx, p, client.CreateOptions{DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		return simload.LoadAnnotations(got.Annotations)
	}

	// Admission reads the watch cache, as a controller reads its
	// informer's: wait until both ReplicaSets show there.
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		got := create(pod(loadedRS, loadedRS.UID, nil))
		return maps.Equal(got, map[string]string{simload.MemoryAnnotation: "64Mi"}), "the loaded ReplicaSet's pod has load " + fmtMap(got)
	})
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		got := create(pod(plainRS, plainRS.UID, nil))
		return maps.Equal(got, deployLoad), "the plain ReplicaSet's pod has load " + fmtMap(got)
	})

	own := map[string]string{simload.CPUAnnotation + ".app": "5m"}
	if got := create(pod(plainRS, plainRS.UID, maps.Clone(own))); !maps.Equal(got, own) {
		t.Errorf("a pod with its own load got %v, want it kept as %v", got, own)
	}
	if got := create(pod(plainRS, "not-the-uid", nil)); got != nil {
		t.Errorf("a pod whose owner's UID does not match got load %v", got)
	}
	// Updates never inherit: only a pod's creation does.
	stored, err := c.Pods("default").Create(ctx, pod(plainRS, plainRS.UID, nil), client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored.Annotations = nil
	updated, err := c.Pods("default").Update(ctx, stored, client.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := simload.LoadAnnotations(updated.Annotations); got != nil {
		t.Errorf("an update that removed the load got it back: %v", got)
	}
}

func fmtMap(m map[string]string) string {
	if m == nil {
		return "none"
	}
	out := ""
	for k, v := range m {
		out += k + "=" + v + " "
	}
	return out
}
