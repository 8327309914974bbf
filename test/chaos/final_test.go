package chaos

import (
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
)

// settled is a namespace where everything ended as declared: a Deployment
// of 2 replicas on its newest ReplicaSet (the old one at 0) and a
// StatefulSet db of 2.
func settled() Workloads {
	yes := true
	two, zero := int32(2), int32(0)
	d := &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "web", UID: "d", Generation: 3},
		Spec:   api.DeploymentSpec{Replicas: &two},
		Status: api.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2}}
	owned := func(kind, name, uid string) []api.OwnerReference {
		return []api.OwnerReference{{Kind: kind, Name: name, UID: uid, Controller: &yes}}
	}
	newRS := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web-new", UID: "rs2", OwnerReferences: owned("Deployment", "web", "d")}, Spec: api.ReplicaSetSpec{Replicas: &two}}
	oldRS := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web-old", UID: "rs1", OwnerReferences: owned("Deployment", "web", "d")}, Spec: api.ReplicaSetSpec{Replicas: &zero}}
	sts := &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "db", UID: "s", Generation: 2},
		Spec: api.StatefulSetSpec{Replicas: &two}, Status: api.StatefulSetStatus{ObservedGeneration: 2, Replicas: 2, ReadyReplicas: 2}}
	ready := time.Now()
	pod := func(name, uid, kind, owner, ownerUID string) *api.Pod {
		p := testPod(name, uid, "x", ready, false)
		p.OwnerReferences = owned(kind, owner, ownerUID)
		return p
	}
	return Workloads{Deployment: d, ReplicaSets: []*api.ReplicaSet{oldRS, newRS}, StatefulSet: sts, Pods: []*api.Pod{
		pod("web-new-a", "p1", "ReplicaSet", "web-new", "rs2"), pod("web-new-b", "p2", "ReplicaSet", "web-new", "rs2"),
		pod("db-0", "p3", "StatefulSet", "db", "s"), pod("db-1", "p4", "StatefulSet", "db", "s"),
	}}
}

func TestFinalProblemsAcceptsASettledNamespace(t *testing.T) {
	if problems := FinalProblems(settled()); len(problems) != 0 {
		t.Fatalf("settled namespace has problems:\n%s", strings.Join(problems, "\n"))
	}
}

func TestFinalProblemsFindsEachKindOfWrongEnd(t *testing.T) {
	tests := []struct {
		name   string
		breakW func(w *Workloads)
		want   string
	}{
		{"rollout not observed", func(w *Workloads) { w.Deployment.Generation = 4 }, "rollout not complete"},
		{"an extra pod", func(w *Workloads) {
			extra := *w.Pods[0]
			extra.Name, extra.UID = "web-new-c", "p9"
			w.Pods = append(w.Pods, &extra)
		}, "3 pods, want exactly 2"},
		{"a pod of the old ReplicaSet", func(w *Workloads) {
			w.Pods[0].OwnerReferences[0].Name, w.Pods[0].OwnerReferences[0].UID = "web-old", "rs1"
		}, "of the old ReplicaSet web-old"},
		{"a pod whose ReplicaSet is gone", func(w *Workloads) { w.Pods[1].OwnerReferences[0].UID = "rs0" }, "orphan: its ReplicaSet"},
		{"a pod without a controller", func(w *Workloads) { w.Pods[1].OwnerReferences = nil }, "orphan: no controller"},
		{"a ReplicaSet without its Deployment", func(w *Workloads) { w.ReplicaSets[0].OwnerReferences = nil }, "replicaset web-old: orphan"},
		{"two scaled-up ReplicaSets", func(w *Workloads) { w.ReplicaSets[0].Spec.Replicas = w.ReplicaSets[1].Spec.Replicas }, "2 ReplicaSets with replicas above 0"},
		{"a terminating pod left", func(w *Workloads) {
			ts := api.NewTime(time.Now())
			w.Pods[0].DeletionTimestamp = &ts
		}, "still terminating"},
		{"an ordinal gap", func(w *Workloads) { w.Pods[3].Name = "db-2" }, "ordinals [0 2], want 0..1"},
		{"a StatefulSet pod not Ready", func(w *Workloads) { w.Pods[2].Status.Conditions = nil }, "pod db-0: not Ready"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := settled()
			tt.breakW(&w)
			problems := strings.Join(FinalProblems(w), "\n")
			if !strings.Contains(problems, tt.want) {
				t.Errorf("problems %q do not mention %q", problems, tt.want)
			}
		})
	}
}
