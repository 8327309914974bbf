package deployment

import (
	"testing"

	"kplane/pkg/api"
)

// Issue 17's report: a rolling update of 10 replicas at maxSurge 1, polled
// with `kubectl get pods`, once showed 12 pods that were not Terminating.
// These two fixtures replay the moment it happened, step by step, and pin
// what the controller does there.
//
// The rollout from nginx:1.27 to 1.28 is one step in: the old ReplicaSet
// was scaled 10 → 9, and the ReplicaSet controller deleted one old pod.
// The kubelet has stopped that pod's container and written its final
// status (phase Succeeded) but not yet deleted the object: for a moment it
// is being deleted and finished, and kubectl prints it "Completed", not
// "Terminating". The new ReplicaSet has 1 pod, available.

// surgeStep is that moment: d at 10 replicas, maxSurge 1, the default
// maxUnavailable (25%: 2), old at 9 with oldStatusReplicas pods counted in
// its status, new at 1 available.
func surgeStep(oldStatusReplicas int32) (d *api.Deployment, old, newRS *api.ReplicaSet) {
	d = newDeployment(10, "1", "25%", "nginx:1.28")
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: "2"}
	old = rsFor(d, "nginx:1.27", 9, 9, 1, 0)
	old.Status.Replicas = oldStatusReplicas
	newRS = rsFor(d, "nginx:1.28", 1, 1, 2, 10)
	return d, old, newRS
}

// Once the ReplicaSet controller has counted the deletion (old status 9:
// a pod being deleted is not active), there is room for one more new pod:
// 9 old + 2 new = 11 pods without a deletionTimestamp, replicas+maxSurge.
// The finished old pod is the twelfth line `kubectl get pods` prints
// without "Terminating", until the kubelet deletes it. Upstream counts the
// same way (NewRSNewReplicas sums spec.replicas; its ReplicaSet status
// leaves out pods being deleted), and its kubectl prints such a pod the
// same way.
func TestSyncSurgeDoesNotCountAPodBeingDeleted(t *testing.T) {
	d, old, newRS := surgeStep(9)
	f := newFixture(t, d, old, newRS)
	f.mustSync()

	grown := specAfterSync(t, f, newRS)
	if grown != 2 {
		t.Fatalf("new ReplicaSet scaled to %d, want 2: 9 old + 2 new = replicas+maxSurge", grown)
	}
	if oldSize := specAfterSync(t, f, old); oldSize+grown > 11 {
		t.Fatalf("old %d + new %d pods asked for, more than replicas+maxSurge = 11", oldSize, grown)
	}
}

// One step earlier the old ReplicaSet's status still counted the deleted
// pod (its controller had deleted it but not yet written the status):
// 10 old pods counted + 1 new = 11, no room. Counting status.replicas as
// well as spec.replicas is what keeps the new ReplicaSet from growing
// before the old pod is really on its way out.
func TestSyncSurgeWaitsForTheOldStatusToCountTheDeletion(t *testing.T) {
	d, old, newRS := surgeStep(10)
	f := newFixture(t, d, old, newRS)
	f.mustSync()

	if grown := specAfterSync(t, f, newRS); grown != 1 {
		t.Fatalf("new ReplicaSet scaled to %d before the old one's status showed the deletion, want it to stay at 1", grown)
	}
}

// specAfterSync is rs's spec.replicas as the server holds it after the
// sync.
func specAfterSync(t *testing.T, f *fixture, rs *api.ReplicaSet) int32 {
	t.Helper()
	f.deliver()
	stored, err := f.c.replicaSets.Namespace(rs.Namespace).Get(rs.Name)
	if err != nil {
		t.Fatalf("get replica set %s: %v", rs.Name, err)
	}
	return specReplicas(stored)
}
