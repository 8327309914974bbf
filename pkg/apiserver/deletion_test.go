package apiserver

import (
	"slices"
	"testing"

	"kplane/pkg/api"
)

func TestMarkForDeletion(t *testing.T) {
	reg := newRegistry(builtinResources())
	grace := func(n int64) *int64 { return &n }
	policy := func(p api.DeletionPropagation) *api.DeletionPropagation { return &p }
	cases := []struct {
		name       string
		obj        api.Object
		opts       api.DeleteOptions
		mark       bool
		finalizers []string
	}{
		{"plain object is removed", &api.ConfigMap{}, api.DeleteOptions{}, false, nil},
		{"finalizers hold it", &api.ConfigMap{ObjectMeta: api.ObjectMeta{Finalizers: []string{"x/y"}}}, api.DeleteOptions{}, true, []string{"x/y"}},
		{"foreground adds its finalizer", &api.Deployment{}, api.DeleteOptions{PropagationPolicy: policy(api.DeletePropagationForeground)}, true, []string{"foregroundDeletion"}},
		{"orphan adds its finalizer", &api.ReplicaSet{}, api.DeleteOptions{PropagationPolicy: policy(api.DeletePropagationOrphan)}, true, []string{"orphan"}},
		{"unscheduled pod goes at once", &api.Pod{}, api.DeleteOptions{}, false, nil},
		{"running pod is deleted gracefully", &api.Pod{Spec: api.PodSpec{NodeName: "node1"}}, api.DeleteOptions{}, true, nil},
		{"grace 0 removes a running pod", &api.Pod{Spec: api.PodSpec{NodeName: "node1"}}, api.DeleteOptions{GracePeriodSeconds: grace(0)}, false, nil},
		{"namespace turns Terminating", &api.Namespace{Spec: api.NamespaceSpec{Finalizers: []string{"kubernetes"}}}, api.DeleteOptions{}, true, nil},
		{"finalized namespace goes", &api.Namespace{}, api.DeleteOptions{}, false, nil},
	}
	for _, tc := range cases {
		mark := markForDeletion(reg.forObject(tc.obj), tc.obj, tc.opts, api.Now())
		meta := tc.obj.GetObjectMeta()
		if mark != tc.mark {
			t.Errorf("%s: mark = %v, want %v", tc.name, mark, tc.mark)
			continue
		}
		if mark && meta.DeletionTimestamp == nil {
			t.Errorf("%s: marked without a deletionTimestamp", tc.name)
		}
		if !slices.Equal(meta.Finalizers, tc.finalizers) {
			t.Errorf("%s: finalizers %v, want %v", tc.name, meta.Finalizers, tc.finalizers)
		}
	}
	pod := &api.Pod{Spec: api.PodSpec{NodeName: "node1", TerminationGracePeriodSeconds: grace(45)}}
	markForDeletion(reg.forObject(pod), pod, api.DeleteOptions{}, api.Now())
	if *pod.DeletionGracePeriodSeconds != 45 {
		t.Errorf("grace period %d, want the pod's 45", *pod.DeletionGracePeriodSeconds)
	}
	ns := &api.Namespace{Spec: api.NamespaceSpec{Finalizers: []string{"kubernetes"}}}
	markForDeletion(reg.forObject(ns), ns, api.DeleteOptions{}, api.Now())
	if ns.Status.Phase != api.NamespaceTerminating {
		t.Errorf("namespace phase %q", ns.Status.Phase)
	}
}
