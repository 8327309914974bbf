package ctl

import (
	"testing"
	"time"

	"kplane/pkg/api"
)

func TestSortPodsForLogging(t *testing.T) {
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := func(name, node string, phase api.PodPhase, readySince time.Duration, restarts int32, age time.Duration) *api.Pod {
		p := &api.Pod{}
		p.Name, p.Spec.NodeName, p.Status.Phase = name, node, phase
		p.CreationTimestamp = api.NewTime(base.Add(-age))
		if readySince > 0 {
			p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(base.Add(-readySince))}}
		}
		p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "c", RestartCount: restarts}}
		return p
	}
	pods := []*api.Pod{
		pod("unscheduled", "", api.PodPending, 0, 0, time.Hour),
		pod("pending", "n1", api.PodPending, 0, 0, time.Hour),
		pod("running-not-ready", "n1", api.PodRunning, 0, 5, time.Hour),
		pod("ready-recently", "n1", api.PodRunning, time.Minute, 0, time.Hour),
		pod("ready-long-young", "n1", api.PodRunning, time.Hour, 0, time.Hour),
		pod("ready-long-old", "n1", api.PodRunning, time.Hour, 0, 2*time.Hour),
		pod("ready-long-restarted", "n1", api.PodRunning, time.Hour, 3, time.Minute),
	}
	sortPodsForLogging(pods)
	want := []string{"ready-long-restarted", "ready-long-old", "ready-long-young", "ready-recently", "running-not-ready", "pending", "unscheduled"}
	for i, p := range pods {
		if p.Name != want[i] {
			var got []string
			for _, p := range pods {
				got = append(got, p.Name)
			}
			t.Fatalf("order = %v, want %v", got, want)
		}
	}
}

func TestPodSelectorOf(t *testing.T) {
	deploy := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "spec": map[string]any{
		"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}}}}
	if got, err := podSelectorOf("apps", "Deployment", deploy); err != nil || got != "app=web" {
		t.Errorf("deployment = %q, %v", got, err)
	}
	svc := map[string]any{"apiVersion": "v1", "kind": "Service", "spec": map[string]any{"selector": map[string]any{"app": "web"}}}
	if got, err := podSelectorOf("", "Service", svc); err != nil || got != "app=web" {
		t.Errorf("service = %q, %v", got, err)
	}
	node := map[string]any{"apiVersion": "v1", "kind": "Node"}
	if _, err := podSelectorOf("", "Node", node); err == nil || err.Error() != "cannot get the logs from *v1.Node: selector for *v1.Node not implemented" {
		t.Errorf("node: err = %v", err)
	}
}
