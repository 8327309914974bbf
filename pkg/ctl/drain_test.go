package ctl

import (
	"errors"
	"testing"
	"time"

	"kplane/pkg/api"
)

func TestDrainFilters(t *testing.T) {
	yes := true
	owned := func(kind string) []api.OwnerReference {
		return []api.OwnerReference{{Kind: kind, Name: "owner", Controller: &yes}}
	}
	pod := func(name string, refs []api.OwnerReference, mutate func(*api.Pod)) *api.Pod {
		p := &api.Pod{}
		p.Name, p.Namespace, p.OwnerReferences = name, "default", refs
		p.Status.Phase = api.PodRunning
		if mutate != nil {
			mutate(p)
		}
		return p
	}
	emptyDir := func(p *api.Pod) {
		p.Spec.Volumes = []api.Volume{{Name: "scratch", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}}}
	}
	dsExists := func(string, string) (bool, error) { return true, nil }
	dsGone := func(string, string) (bool, error) { return false, nil }
	dsBroken := func(string, string) (bool, error) { return false, errors.New("boom") }

	tests := []struct {
		name   string
		opts   drainOptions
		pod    *api.Pod
		exists func(string, string) (bool, error)
		want   podDeleteStatus
	}{
		{"replicated", drainOptions{}, pod("a", owned("ReplicaSet"), nil), dsExists, podDeleteStatus{delete: true}},
		{"unmanaged", drainOptions{}, pod("a", nil, nil), dsExists, podDeleteStatus{reason: "error", message: unmanagedFatal}},
		{"unmanaged with --force", drainOptions{force: true}, pod("a", nil, nil), dsExists, podDeleteStatus{delete: true, reason: "warning", message: unmanagedWarning}},
		{"finished unmanaged", drainOptions{}, pod("a", nil, func(p *api.Pod) { p.Status.Phase = api.PodSucceeded }), dsExists, podDeleteStatus{delete: true}},
		{"daemon set", drainOptions{}, pod("a", owned("DaemonSet"), nil), dsExists, podDeleteStatus{reason: "error", message: daemonSetFatal}},
		{"daemon set ignored", drainOptions{ignoreDaemonSets: true}, pod("a", owned("DaemonSet"), nil), dsExists, podDeleteStatus{reason: "warning", message: daemonSetWarning}},
		{"orphaned daemon set pod", drainOptions{}, pod("a", owned("DaemonSet"), nil), dsGone, podDeleteStatus{reason: "error", message: `daemonsets.apps "owner" not found`}},
		// Deleted, and (as in kubectl) the warning is lost to the later
		// filters, which all let the pod go.
		{"orphaned daemon set pod with --force", drainOptions{force: true}, pod("a", owned("DaemonSet"), nil), dsGone, podDeleteStatus{delete: true}},
		{"daemon set lookup fails", drainOptions{ignoreDaemonSets: true}, pod("a", owned("DaemonSet"), nil), dsBroken, podDeleteStatus{reason: "error", message: "boom"}},
		{"mirror pod", drainOptions{force: true}, pod("a", nil, func(p *api.Pod) { p.Annotations = map[string]string{configMirrorAnnotation: "x"} }), dsExists, podDeleteStatus{}},
		{"emptyDir", drainOptions{}, pod("a", owned("ReplicaSet"), emptyDir), dsExists, podDeleteStatus{reason: "error", message: localStorageFatal}},
		// The last filter's verdict wins: the emptyDir warning is replaced.
		{"emptyDir allowed", drainOptions{deleteEmptyDirData: true}, pod("a", owned("ReplicaSet"), emptyDir), dsExists, podDeleteStatus{delete: true}},
		{"long terminating", drainOptions{skipWaitForDeleteAfter: 10}, pod("a", owned("ReplicaSet"), func(p *api.Pod) {
			ts := api.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
			p.DeletionTimestamp = &ts
		}), dsExists, podDeleteStatus{}},
	}
	now := time.Date(2025, 1, 1, 0, 1, 0, 0, time.UTC)
	for _, tt := range tests {
		if got := tt.opts.filterPod(tt.pod, tt.exists, now); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
