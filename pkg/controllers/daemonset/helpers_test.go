package daemonset

import (
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
)

var testNow = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

// newDS returns a DaemonSet "ds" in "default" selecting app=ds, with the
// API defaults applied (RollingUpdate, maxUnavailable 1).
func newDS(mutate ...func(*api.DaemonSet)) *api.DaemonSet {
	ds := &api.DaemonSet{
		TypeMeta:   api.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: api.ObjectMeta{Name: "ds", Namespace: "default", UID: "ds-uid", Generation: 1},
		Spec: api.DaemonSetSpec{
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "ds"}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "ds"}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx:1"}}},
			},
		},
	}
	api.SetDefaults(ds)
	for _, m := range mutate {
		m(ds)
	}
	return ds
}

// newNode returns a node with labels and taints.
func newNode(name string, labels map[string]string, taints ...api.Taint) *api.Node {
	return &api.Node{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: api.ObjectMeta{Name: name, Labels: labels, UID: "uid-" + name},
		Spec:       api.NodeSpec{Taints: taints},
	}
}

// newPod returns a pod of ds pinned to node (by affinity), created at
// testNow+age, labelled with hash, in phase and ready as given.
func newPod(ds *api.DaemonSet, name, node, hash string, created time.Duration, phase api.PodPhase, ready bool) *api.Pod {
	template := podTemplateForNode(ds, hash, node)
	yes := true
	pod := &api.Pod{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: api.ObjectMeta{
			Name: name, Namespace: ds.Namespace, UID: "uid-" + name, ResourceVersion: "1",
			Labels:            template.Labels,
			CreationTimestamp: api.NewTime(testNow.Add(created)),
			OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name,
				UID: ds.UID, Controller: &yes, BlockOwnerDeletion: &yes}},
		},
		Spec:   template.Spec,
		Status: api.PodStatus{Phase: phase},
	}
	if ready {
		pod.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue,
			LastTransitionTime: api.NewTime(testNow.Add(-time.Hour))}}
	}
	return pod
}

func noSchedule(key string) api.Taint {
	return api.Taint{Key: key, Effect: api.TaintEffectNoSchedule}
}

func noExecute(key string) api.Taint {
	return api.Taint{Key: key, Effect: api.TaintEffectNoExecute}
}

func newFakeClock() *clock.Fake { return clock.NewFake(testNow) }
