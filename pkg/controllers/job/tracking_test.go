package job

import (
	"fmt"
	"slices"
	"testing"

	"kplane/pkg/api"
)

func TestOutcomeOf(t *testing.T) {
	tests := []struct {
		pod  *api.Pod
		want podOutcome
	}{
		{jobPod("a", api.PodPending), outcomeNone},
		{jobPod("a", api.PodRunning), outcomeNone},
		{jobPod("a", api.PodSucceeded), outcomeSucceeded},
		{jobPod("a", api.PodFailed), outcomeFailed},
		{deleting(jobPod("a", api.PodRunning)), outcomeFailed},
		{deleting(jobPod("a", api.PodPending)), outcomeFailed},
		{deleting(jobPod("a", api.PodSucceeded)), outcomeSucceeded},
	}
	for _, tt := range tests {
		if got := outcomeOf(tt.pod); got != tt.want {
			t.Errorf("pod %s deleting=%v: outcome %d, want %d", tt.pod.Status.Phase, tt.pod.DeletionTimestamp != nil, got, tt.want)
		}
	}
}

// manyUIDs is n made-up UIDs, to fill uncountedTerminatedPods.
func manyUIDs(n int) []string {
	uids := make([]string, n)
	for i := range uids {
		uids[i] = fmt.Sprintf("uid-old-%d", i)
	}
	return uids
}

func TestPlanTracking(t *testing.T) {
	tests := []struct {
		name         string
		uncounted    *api.UncountedTerminatedPods
		pods         []*api.Pod
		pending      map[string]bool
		releaseAll   bool
		wantRecorded string // "succeeded [...] failed [...]" after the plan
		wantRelease  []string
	}{
		{name: "a running pod stays tracked", pods: []*api.Pod{jobPod("a", api.PodRunning)},
			wantRecorded: "succeeded [] failed []"},
		{name: "finished pods are recorded and released",
			pods:         []*api.Pod{jobPod("a", api.PodSucceeded), jobPod("b", api.PodFailed), deleting(jobPod("c", api.PodRunning))},
			wantRecorded: "succeeded [uid-a] failed [uid-b uid-c]", wantRelease: []string{"a", "b", "c"}},
		{name: "without the finalizer: counted already", pods: []*api.Pod{withoutFinalizer(jobPod("a", api.PodSucceeded))},
			wantRecorded: "succeeded [] failed []"},
		{name: "a removal on its way: treated as released", pods: []*api.Pod{jobPod("a", api.PodSucceeded)},
			pending: map[string]bool{"uid-a": true}, wantRecorded: "succeeded [] failed []"},
		{name: "recorded before, not released: released, not recorded twice",
			uncounted: &api.UncountedTerminatedPods{Failed: []string{"uid-a"}},
			pods:      []*api.Pod{jobPod("a", api.PodSucceeded)}, wantRecorded: "succeeded [] failed [uid-a]", wantRelease: []string{"a"}},
		{name: "a Job being deleted lets every pod go, counting the finished ones",
			pods: []*api.Pod{jobPod("a", api.PodRunning), jobPod("b", api.PodSucceeded)}, releaseAll: true,
			wantRecorded: "succeeded [uid-b] failed []", wantRelease: []string{"a", "b"}},
		{name: "no room: new ones wait, recorded ones are released",
			uncounted:    &api.UncountedTerminatedPods{Succeeded: append(manyUIDs(MaxUncountedPods-1), "uid-b")},
			pods:         []*api.Pod{jobPod("a", api.PodSucceeded), jobPod("b", api.PodSucceeded)},
			wantRecorded: fmt.Sprintf("succeeded %v failed []", append(manyUIDs(MaxUncountedPods-1), "uid-b")), wantRelease: []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := planTracking(api.JobStatus{UncountedTerminatedPods: tt.uncounted}, tt.pods, tt.pending, tt.releaseAll)
			if got := uncounted(plan.status); got != tt.wantRecorded {
				t.Errorf("uncounted %s, want %s", got, tt.wantRecorded)
			}
			var released []string
			for _, p := range plan.release {
				released = append(released, p.Name)
			}
			if !slices.Equal(released, tt.wantRelease) {
				t.Errorf("released %v, want %v", released, tt.wantRelease)
			}
			before := 0
			if tt.uncounted != nil {
				before = len(tt.uncounted.Succeeded) + len(tt.uncounted.Failed)
			}
			after := len(plan.status.UncountedTerminatedPods.Succeeded) + len(plan.status.UncountedTerminatedPods.Failed)
			if plan.recorded != after-before {
				t.Errorf("recorded = %d, but %d UIDs were added", plan.recorded, after-before)
			}
		})
	}
}

func TestCountReleased(t *testing.T) {
	status := api.JobStatus{Succeeded: 2, Failed: 1, UncountedTerminatedPods: &api.UncountedTerminatedPods{
		Succeeded: []string{"uid-a", "uid-b"}, Failed: []string{"uid-c", "uid-d"}}}
	countReleased(&status, map[string]bool{"uid-b": true, "uid-d": true})
	if status.Succeeded != 3 || status.Failed != 2 || uncounted(status) != "succeeded [uid-b] failed [uid-d]" {
		t.Errorf("succeeded %d, failed %d, uncounted %s; want 3, 2, b and d left", status.Succeeded, status.Failed, uncounted(status))
	}
	countReleased(&status, nil)
	if status.Succeeded != 4 || status.Failed != 3 || uncounted(status) != "succeeded [] failed []" {
		t.Errorf("succeeded %d, failed %d, uncounted %s; want 4, 3, none", status.Succeeded, status.Failed, uncounted(status))
	}
	empty := api.JobStatus{}
	countReleased(&empty, nil)
	if empty.UncountedTerminatedPods == nil {
		t.Error("uncountedTerminatedPods left nil, want {} as upstream shows it")
	}
}
