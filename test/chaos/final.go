package chaos

import (
	"fmt"
	"slices"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
)

// Workloads is a namespace's state at the end of a run, read once the
// killing has stopped.
type Workloads struct {
	Deployment  *api.Deployment
	ReplicaSets []*api.ReplicaSet
	StatefulSet *api.StatefulSet
	Pods        []*api.Pod
}

// FinalProblems says what is wrong with the end state; none means the run
// ended as declared:
//   - the Deployment's rollout is complete: its status observed the latest
//     generation and counts spec.replicas pods, all updated and available;
//   - it has exactly spec.replicas pods, none terminating, all of its newest
//     ReplicaSet (the one with spec.replicas above 0), and every other
//     ReplicaSet is scaled to 0;
//   - no orphans: every pod's controller is a live ReplicaSet or the
//     StatefulSet (same UID), every ReplicaSet's controller is the Deployment;
//   - the StatefulSet's pods are exactly <name>-0 … <name>-(n-1), all Ready,
//     and its status says so for its latest generation.
func FinalProblems(w Workloads) []string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	d, sts := w.Deployment, w.StatefulSet
	replicas := int32(1)
	if d.Spec.Replicas != nil {
		replicas = *d.Spec.Replicas
	}
	st := d.Status
	if st.ObservedGeneration < d.Generation || st.Replicas != replicas || st.UpdatedReplicas != replicas || st.AvailableReplicas != replicas {
		add("deployment %s: rollout not complete: generation %d observed %d, replicas %d updated %d available %d of %d",
			d.Name, d.Generation, st.ObservedGeneration, st.Replicas, st.UpdatedReplicas, st.AvailableReplicas, replicas)
	}

	replicaSets := map[string]*api.ReplicaSet{}
	var scaledUp []string
	for _, rs := range w.ReplicaSets {
		replicaSets[rs.UID] = rs
		if owner := controllerOf(&rs.ObjectMeta); owner == nil || owner.Kind != "Deployment" || owner.UID != d.UID {
			add("replicaset %s: orphan: its controller is not deployment %s (uid %s)", rs.Name, d.Name, d.UID)
		}
		if rs.Spec.Replicas == nil || *rs.Spec.Replicas > 0 {
			scaledUp = append(scaledUp, rs.Name)
		}
	}
	if len(scaledUp) != 1 {
		add("deployment %s: %d ReplicaSets with replicas above 0 (%v), want exactly the newest", d.Name, len(scaledUp), scaledUp)
	}

	deploymentPods, ordinals := 0, map[int]string{}
	for _, pod := range w.Pods {
		owner := controllerOf(&pod.ObjectMeta)
		switch {
		case owner == nil:
			add("pod %s: orphan: no controller", pod.Name)
		case owner.Kind == "ReplicaSet":
			rs := replicaSets[owner.UID]
			if rs == nil {
				add("pod %s: orphan: its ReplicaSet %s (uid %s) is gone", pod.Name, owner.Name, owner.UID)
				continue
			}
			deploymentPods++
			if isTerminating(pod) {
				add("pod %s: still terminating", pod.Name)
			}
			if len(scaledUp) == 1 && rs.Name != scaledUp[0] {
				add("pod %s: of the old ReplicaSet %s", pod.Name, rs.Name)
			}
		case owner.Kind == "StatefulSet" && owner.UID == sts.UID:
			ordinal, ok := ordinalOf(sts.Name, pod.Name)
			if !ok {
				add("pod %s: of statefulset %s but not named %s-<ordinal>", pod.Name, sts.Name, sts.Name)
				continue
			}
			if other, dup := ordinals[ordinal]; dup {
				add("statefulset %s: ordinal %d twice (%s and %s)", sts.Name, ordinal, other, pod.UID)
			}
			ordinals[ordinal] = pod.UID
			if isTerminating(pod) || !controllerutil.IsPodReady(pod) {
				add("pod %s: not Ready or terminating", pod.Name)
			}
		default:
			add("pod %s: orphan: its controller %s %s (uid %s) is not in the namespace", pod.Name, owner.Kind, owner.Name, owner.UID)
		}
	}
	if deploymentPods != int(replicas) {
		add("deployment %s: %d pods, want exactly %d", d.Name, deploymentPods, replicas)
	}

	want := int32(1)
	if sts.Spec.Replicas != nil {
		want = *sts.Spec.Replicas
	}
	var got []int
	for ordinal := range ordinals {
		got = append(got, ordinal)
	}
	slices.Sort(got)
	if len(got) != int(want) || (len(got) > 0 && got[len(got)-1] != int(want)-1) {
		add("statefulset %s: ordinals %v, want 0..%d", sts.Name, got, want-1)
	}
	if sts.Status.ObservedGeneration < sts.Generation || sts.Status.Replicas != want || sts.Status.ReadyReplicas != want {
		add("statefulset %s: status not settled: generation %d observed %d, replicas %d ready %d of %d",
			sts.Name, sts.Generation, sts.Status.ObservedGeneration, sts.Status.Replicas, sts.Status.ReadyReplicas, want)
	}
	return problems
}

// controllerOf returns the ownerReference marked controller, or nil.
func controllerOf(meta *api.ObjectMeta) *api.OwnerReference {
	for i := range meta.OwnerReferences {
		if ref := &meta.OwnerReferences[i]; ref.Controller != nil && *ref.Controller {
			return ref
		}
	}
	return nil
}
