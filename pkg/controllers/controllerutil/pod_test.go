package controllerutil

import (
	"testing"
	"time"

	"kplane/pkg/api"
)

func TestIsPodAvailable(t *testing.T) {
	now := time.Unix(10_000, 0)
	ready := func(since time.Duration) *api.Pod {
		return &api.Pod{Status: api.PodStatus{Conditions: []api.PodCondition{{
			Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(now.Add(-since)),
		}}}}
	}
	notReady := &api.Pod{Status: api.PodStatus{Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse}}}}
	tests := []struct {
		name            string
		pod             *api.Pod
		minReadySeconds int32
		want            bool
	}{
		{"ready, no minReadySeconds", ready(0), 0, true},
		{"not ready", notReady, 0, false},
		{"no conditions", &api.Pod{}, 0, false},
		{"ready for 5s of 10", ready(5 * time.Second), 10, false},
		{"ready for 11s of 10", ready(11 * time.Second), 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsPodAvailable(tt.pod, tt.minReadySeconds, now); got != tt.want {
				t.Errorf("IsPodAvailable = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFilterActivePods(t *testing.T) {
	deleting := api.NewTime(time.Unix(1, 0))
	pods := []*api.Pod{
		{ObjectMeta: api.ObjectMeta{Name: "running"}, Status: api.PodStatus{Phase: api.PodRunning}},
		{ObjectMeta: api.ObjectMeta{Name: "pending"}, Status: api.PodStatus{Phase: api.PodPending}},
		{ObjectMeta: api.ObjectMeta{Name: "done"}, Status: api.PodStatus{Phase: api.PodSucceeded}},
		{ObjectMeta: api.ObjectMeta{Name: "failed"}, Status: api.PodStatus{Phase: api.PodFailed}},
		{ObjectMeta: api.ObjectMeta{Name: "terminating", DeletionTimestamp: &deleting}, Status: api.PodStatus{Phase: api.PodRunning}},
	}
	var names []string
	for _, p := range FilterActivePods(pods) {
		names = append(names, p.Name)
	}
	if len(names) != 2 || names[0] != "running" || names[1] != "pending" {
		t.Fatalf("active = %v, want [running pending]", names)
	}
}
