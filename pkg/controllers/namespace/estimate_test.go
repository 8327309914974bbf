package namespace

import (
	"slices"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

func podWithGrace(grace int64, phase api.PodPhase) *api.Pod {
	return &api.Pod{Spec: api.PodSpec{TerminationGracePeriodSeconds: &grace}, Status: api.PodStatus{Phase: phase}}
}

func TestPodTerminationEstimate(t *testing.T) {
	deleted := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		pods  []*api.Pod
		since time.Duration
		want  int64
	}{
		{"no pods", nil, 0, 0},
		{"longest grace wins", []*api.Pod{podWithGrace(10, api.PodRunning), podWithGrace(30, api.PodPending)}, time.Second, 30},
		{"finished pods do not count", []*api.Pod{podWithGrace(60, api.PodSucceeded), podWithGrace(90, api.PodFailed), podWithGrace(5, api.PodRunning)}, 0, 5},
		{"no grace period set", []*api.Pod{{Status: api.PodStatus{Phase: api.PodRunning}}}, 0, 0},
		{"estimate used up", []*api.Pod{podWithGrace(30, api.PodRunning)}, 30 * time.Second, 0},
		{"estimate nearly used up", []*api.Pod{podWithGrace(30, api.PodRunning)}, 29 * time.Second, 30},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := podTerminationEstimate(tc.pods, deleted, deleted.Add(tc.since)); got != tc.want {
				t.Errorf("estimate = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestRecheckDelay(t *testing.T) {
	tests := []struct {
		estimate int64
		max      time.Duration
		want     time.Duration
	}{
		{30, 0, 16 * time.Second}, // upstream: estimate/2 + 1
		{15, 0, 8 * time.Second},
		{1, 0, time.Second},
		{30, 2 * time.Second, 2 * time.Second},
		{1, 2 * time.Second, time.Second},
	}
	for _, tc := range tests {
		if got := recheckDelay(tc.estimate, tc.max); got != tc.want {
			t.Errorf("recheckDelay(%d, %v) = %v, want %v", tc.estimate, tc.max, got, tc.want)
		}
	}
}

func TestWithoutFinalizer(t *testing.T) {
	got := withoutFinalizer([]string{"z/x", "kubernetes", "a/b", "z/x"}, api.FinalizerKubernetes)
	if want := []string{"a/b", "z/x"}; !slices.Equal(got, want) {
		t.Errorf("withoutFinalizer = %v, want %v", got, want)
	}
	if got := withoutFinalizer([]string{"kubernetes"}, api.FinalizerKubernetes); got == nil || len(got) != 0 {
		t.Errorf("withoutFinalizer = %#v, want an empty, non-nil list", got)
	}
}

func TestNamespacedResources(t *testing.T) {
	res := namespacedResources(nil)
	if res[len(res)-1] != client.EventsResource {
		t.Errorf("last resource = %s, want events", res[len(res)-1])
	}
	seen := map[string]bool{}
	for _, r := range res {
		if !r.Namespaced {
			t.Errorf("cluster-scoped %s in the list", r)
		}
		if seen[r.String()] {
			t.Errorf("%s listed twice", r)
		}
		seen[r.String()] = true
	}
	for _, want := range []client.Resource{client.PodsResource, client.DeploymentsResource, client.ConfigMapsResource, client.ServicesResource} {
		if !seen[want.String()] {
			t.Errorf("%s missing", want)
		}
	}
}
