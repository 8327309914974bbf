package scheduler_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// makeClaim is a 1Gi ReadWriteOnce claim in namespace default, not bound.
func makeClaim(name string) *api.PersistentVolumeClaim {
	return &api.PersistentVolumeClaim{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.PersistentVolumeClaimSpec{
			AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			Resources:   api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: api.MustParseQuantity("1Gi")}},
		},
	}
}

// makeVolume is a 1Gi ReadWriteOnce hostPath volume; with hostname set,
// its node affinity pins it to that node, as a local volume is.
func makeVolume(name, hostname string) *api.PersistentVolume {
	pv := &api.PersistentVolume{
		ObjectMeta: api.ObjectMeta{Name: name},
		Spec: api.PersistentVolumeSpec{
			Capacity:               api.ResourceList{api.ResourceStorage: api.MustParseQuantity("1Gi")},
			AccessModes:            []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			PersistentVolumeSource: api.PersistentVolumeSource{HostPath: &api.HostPathVolumeSource{Path: "/tmp/" + name}},
		},
	}
	if hostname != "" {
		pv.Spec.NodeAffinity = &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
			MatchExpressions: []api.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: api.NodeSelectorOpIn, Values: []string{hostname}}},
		}}}}
	}
	return pv
}

func withClaim(claim string) func(*api.Pod) {
	return func(p *api.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, api.Volume{Name: "data", VolumeSource: api.VolumeSource{
			PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: claim},
		}})
	}
}

func createVolume(t *testing.T, c *client.Client, pv *api.PersistentVolume) {
	t.Helper()
	if _, err := c.PersistentVolumes().Create(context.Background(), pv, client.CreateOptions{}); err != nil {
		t.Fatalf("create volume %s: %v", pv.Name, err)
	}
}

func createClaim(t *testing.T, c *client.Client, claim *api.PersistentVolumeClaim) {
	t.Helper()
	if _, err := c.PersistentVolumeClaims(claim.Namespace).Create(context.Background(), claim, client.CreateOptions{}); err != nil {
		t.Fatalf("create claim %s: %v", claim.Name, err)
	}
}

// bindClaim does to a claim what the persistentvolume-binder does when it
// binds it to volume: spec.volumeName plus the bind-completed annotation,
// then status Bound.
func bindClaim(t *testing.T, c *client.Client, name, volume string) {
	t.Helper()
	ctx := context.Background()
	claim, err := c.PersistentVolumeClaims("default").Get(ctx, name, client.GetOptions{})
	if err != nil {
		t.Fatalf("get claim %s: %v", name, err)
	}
	claim.Spec.VolumeName = volume
	claim.Annotations = map[string]string{"pv.kubernetes.io/bind-completed": "yes"}
	if claim, err = c.PersistentVolumeClaims("default").Update(ctx, claim, client.UpdateOptions{}); err != nil {
		t.Fatalf("bind claim %s: %v", name, err)
	}
	claim.Status.Phase = api.ClaimBound
	if _, err := c.PersistentVolumeClaims("default").UpdateStatus(ctx, claim, client.UpdateOptions{}); err != nil {
		t.Fatalf("claim %s status: %v", name, err)
	}
}

// waitPending waits for pod's FailedScheduling event and PodScheduled
// condition to carry want, and checks the pod is still unbound.
func waitPending(t *testing.T, c *client.Client, pod, want string) {
	t.Helper()
	if ev := waitEvent(t, c, pod, "FailedScheduling"); ev.Message != want {
		t.Fatalf("pod %s: FailedScheduling %q, want %q", pod, ev.Message, want)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		cond := podScheduledCondition(t, c, pod)
		return cond != nil && cond.Status == api.ConditionFalse && cond.Reason == api.PodReasonUnschedulable && cond.Message == want,
			fmt.Sprintf("PodScheduled condition %+v", cond)
	})
	if n := podNodes(t, c)[pod]; n != "" {
		t.Fatalf("pod %s bound to %s, want Pending", pod, n)
	}
}

// A pod whose claim is not bound waits, with upstream's message, and is
// scheduled as soon as the claim is bound: the claim's update is the
// cluster event that moves it back to the queue (nothing else happens in
// between, and the pod would otherwise wait a minute, longer than the
// test does).
func TestUnboundClaimWaitsUntilBound(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a)
	createNodes(t, c, threeNodes()...)
	createVolume(t, c, makeVolume("pv1", ""))
	createClaim(t, c, makeClaim("data"))
	createPods(t, c, makePod("db", withClaim("data")))
	logs, _ := startScheduler(t, a, nil)

	// kube-scheduler 1.32 would add " preemption: 0/3 nodes are available:
	// 3 Preemption is not helpful for scheduling."; kplane has no
	// preemption.
	waitPending(t, c, "db", "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.")

	bindClaim(t, c, "data", "pv1")
	waitBound(t, c, "db")
	if !strings.Contains(logs.String(), "event=PersistentVolumeClaimUpdate") {
		t.Errorf("no PersistentVolumeClaimUpdate move in the log:\n%s", logs)
	}
}

// A pod naming a claim that does not exist waits with the lister's
// NotFound text, and goes once the claim exists and is bound.
func TestMissingClaimWaitsUntilCreatedAndBound(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a)
	createNodes(t, c, threeNodes()...)
	createVolume(t, c, makeVolume("pv1", ""))
	createPods(t, c, makePod("db", withClaim("data")))
	startScheduler(t, a, nil)
	waitPending(t, c, "db", `0/3 nodes are available: persistentvolumeclaim "data" not found.`)

	createClaim(t, c, makeClaim("data"))
	bindClaim(t, c, "data", "pv1")
	waitBound(t, c, "db")
}

// A bound volume pinned to one node takes its pods there; a volume pinned
// to a node that is missing leaves them Pending with upstream's reason
// counted per node.
func TestVolumeNodeAffinity(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a)
	createNodes(t, c, threeNodes()...)
	createVolume(t, c, makeVolume("on-node2", "node2"))
	createVolume(t, c, makeVolume("on-node9", "node9"))
	for _, claim := range []struct{ name, volume string }{{"near", "on-node2"}, {"far", "on-node9"}} {
		createClaim(t, c, makeClaim(claim.name))
		bindClaim(t, c, claim.name, claim.volume)
	}
	createPods(t, c, makePod("near", withClaim("near")), makePod("far", withClaim("far")))
	startScheduler(t, a, nil)

	if n := waitBound(t, c, "near")["near"]; n != "node2" {
		t.Errorf("pod near on %q, want node2 (its volume's node)", n)
	}
	waitPending(t, c, "far", "0/3 nodes are available: 3 node(s) had volume node affinity conflict.")

	// The node the volume needs joins: a node event lets the pod in.
	createNodes(t, c, nodeSpec{name: "node9"})
	if n := waitBound(t, c, "far")["far"]; n != "node9" {
		t.Errorf("pod far on %q, want node9", n)
	}
}
