package statefulset

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
)

// pod states for the plan tables.
const (
	ready       = "ready"       // Running and Ready
	pending     = "pending"     // created, not ready yet
	terminating = "terminating" // being deleted
	failed      = "failed"      // phase Failed
)

// tpod is "web-<ordinal>" in state at revision.
func tpod(ordinal int, state, revision string) *api.Pod {
	p := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("web-%d", ordinal),
			Labels: map[string]string{api.ControllerRevisionHashLabelKey: revision}},
		Status: api.PodStatus{Phase: api.PodPending},
	}
	switch state {
	case ready:
		p.Status.Phase = api.PodRunning
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
	case terminating:
		p.Status.Phase = api.PodRunning
		now := api.NewTime(time.Now())
		p.DeletionTimestamp = &now
	case failed:
		p.Status.Phase = api.PodFailed
	}
	return p
}

// describe renders actions as "create web-0@r2, delete web-3".
func describe(actions []action) string {
	var parts []string
	for _, a := range actions {
		s := fmt.Sprintf("%s web-%d", a.Type, a.Ordinal)
		if a.Type == actionCreate {
			s += "@" + a.Revision
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name string
		in   planInput
		want string
	}{
		{"ordered: first pod", planInput{Replicas: 3, UpdateRevision: "r1"}, "create web-0@r1"},
		{"ordered: waits for web-0 to be ready",
			planInput{Replicas: 3, UpdateRevision: "r1", Pods: []*api.Pod{tpod(0, pending, "r1")}}, ""},
		{"ordered: next after web-0 is ready",
			planInput{Replicas: 3, UpdateRevision: "r1", Pods: []*api.Pod{tpod(0, ready, "r1")}}, "create web-1@r1"},
		{"ordered: fills a hole first",
			planInput{Replicas: 3, UpdateRevision: "r1", Pods: []*api.Pod{tpod(0, ready, "r1"), tpod(2, ready, "r1")}}, "create web-1@r1"},
		{"start ordinal",
			planInput{Replicas: 2, Start: 5, UpdateRevision: "r1", Pods: []*api.Pod{tpod(5, ready, "r1")}}, "create web-6@r1"},
		{"parallel: all at once", planInput{Replicas: 3, Parallel: true, UpdateRevision: "r1"},
			"create web-0@r1, create web-1@r1, create web-2@r1"},
		{"parallel: does not wait for unready",
			planInput{Replicas: 2, Parallel: true, UpdateRevision: "r1", Pods: []*api.Pod{tpod(0, pending, "r1")}}, "create web-1@r1"},
		{"failed pod is deleted",
			planInput{Replicas: 2, UpdateRevision: "r1", Pods: []*api.Pod{tpod(0, failed, "r1"), tpod(1, ready, "r1")}}, "delete web-0"},
		{"ordered scale down: highest first, one at a time",
			planInput{Replicas: 1, UpdateRevision: "r1", Pods: []*api.Pod{tpod(0, ready, "r1"), tpod(1, ready, "r1"), tpod(2, ready, "r1")}}, "delete web-2"},
		{"ordered scale down: waits for termination",
			planInput{Replicas: 1, UpdateRevision: "r1", Pods: []*api.Pod{tpod(0, ready, "r1"), tpod(1, ready, "r1"), tpod(2, terminating, "r1")}}, ""},
		{"ordered scale down: not while a replica is unready",
			planInput{Replicas: 1, UpdateRevision: "r1", Pods: []*api.Pod{tpod(0, pending, "r1"), tpod(1, ready, "r1")}}, ""},
		{"parallel scale down: all at once",
			planInput{Replicas: 1, Parallel: true, UpdateRevision: "r1", Pods: []*api.Pod{tpod(0, ready, "r1"), tpod(1, ready, "r1"), tpod(2, ready, "r1")}}, "delete web-2, delete web-1"},
		{"rolling update: highest ordinal first",
			planInput{Replicas: 3, CurrentRevision: "r1", UpdateRevision: "r2", Pods: []*api.Pod{tpod(0, ready, "r1"), tpod(1, ready, "r1"), tpod(2, ready, "r1")}}, "delete web-2"},
		{"rolling update: recreate at update revision",
			planInput{Replicas: 3, CurrentRevision: "r1", UpdateRevision: "r2", Pods: []*api.Pod{tpod(0, ready, "r1"), tpod(1, ready, "r1")}}, "create web-2@r2"},
		{"rolling update: waits for the updated pod",
			planInput{Replicas: 3, CurrentRevision: "r1", UpdateRevision: "r2", Pods: []*api.Pod{tpod(0, ready, "r1"), tpod(1, ready, "r1"), tpod(2, pending, "r2")}}, ""},
		{"rolling update: then the next lower",
			planInput{Replicas: 3, CurrentRevision: "r1", UpdateRevision: "r2", Pods: []*api.Pod{tpod(0, ready, "r1"), tpod(1, ready, "r1"), tpod(2, ready, "r2")}}, "delete web-1"},
		{"rolling update: parallel still one at a time",
			planInput{Replicas: 3, Parallel: true, CurrentRevision: "r1", UpdateRevision: "r2", Pods: []*api.Pod{tpod(0, ready, "r1"), tpod(1, ready, "r1"), tpod(2, pending, "r2")}}, ""},
		{"partition 2: only web-2",
			planInput{Replicas: 3, Partition: 2, CurrentRevision: "r1", UpdateRevision: "r2", Pods: []*api.Pod{tpod(0, ready, "r1"), tpod(1, ready, "r1"), tpod(2, ready, "r2")}}, ""},
		{"partition 2: web-2 updated first",
			planInput{Replicas: 3, Partition: 2, CurrentRevision: "r1", UpdateRevision: "r2", Pods: []*api.Pod{tpod(0, ready, "r1"), tpod(1, ready, "r1"), tpod(2, ready, "r1")}}, "delete web-2"},
		{"partition: a deleted pod below it comes back at the current revision",
			planInput{Replicas: 3, Partition: 2, CurrentRevision: "r1", UpdateRevision: "r2", Pods: []*api.Pod{tpod(0, ready, "r1"), tpod(2, ready, "r2")}}, "create web-1@r1"},
		{"partition beyond replicas: nothing updates",
			planInput{Replicas: 2, Partition: 5, CurrentRevision: "r1", UpdateRevision: "r2", Pods: []*api.Pod{tpod(0, ready, "r1"), tpod(1, ready, "r1")}}, ""},
		{"on delete: old pods stay",
			planInput{Replicas: 2, OnDelete: true, CurrentRevision: "r1", UpdateRevision: "r2", Pods: []*api.Pod{tpod(0, ready, "r1"), tpod(1, ready, "r1")}}, ""},
		{"on delete: a deleted pod comes back updated",
			planInput{Replicas: 2, OnDelete: true, CurrentRevision: "r1", UpdateRevision: "r2", Pods: []*api.Pod{tpod(0, ready, "r1")}}, "create web-1@r2"},
		{"pods without ordinals are ignored",
			planInput{Replicas: 1, UpdateRevision: "r1", Pods: []*api.Pod{{ObjectMeta: api.ObjectMeta{Name: "web"}}}}, "create web-0@r1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describe(plan(tt.in)); got != tt.want {
				t.Errorf("plan = %q, want %q", got, tt.want)
			}
		})
	}
}

// A rolling update driven to its end by repeatedly applying the plan
// visits web-2, web-1, web-0 in that order.
func TestPlanRollingUpdateOrder(t *testing.T) {
	pods := map[int]*api.Pod{0: tpod(0, ready, "r1"), 1: tpod(1, ready, "r1"), 2: tpod(2, ready, "r1")}
	var deleted []string
	for step := 0; step < 20; step++ {
		var list []*api.Pod
		for _, p := range pods {
			list = append(list, p)
		}
		actions := plan(planInput{Replicas: 3, CurrentRevision: "r1", UpdateRevision: "r2", Pods: list})
		if len(actions) == 0 {
			break
		}
		for _, a := range actions {
			switch a.Type {
			case actionDelete:
				deleted = append(deleted, a.Pod.Name)
				delete(pods, a.Ordinal)
			case actionCreate:
				pods[a.Ordinal] = tpod(a.Ordinal, ready, a.Revision) // the kubelet is instant here
			}
		}
	}
	if got := strings.Join(deleted, ","); got != "web-2,web-1,web-0" {
		t.Errorf("deleted %s, want web-2,web-1,web-0", got)
	}
	for _, p := range pods {
		if revisionOf(p) != "r2" {
			t.Errorf("%s still at %s", p.Name, revisionOf(p))
		}
	}
}

func TestComputeStatus(t *testing.T) {
	set := testSet()
	set.Generation = 4
	pods := []*api.Pod{tpod(0, ready, "r1"), tpod(1, ready, "r2"), tpod(2, pending, "r2"), tpod(3, terminating, "r1")}
	s := computeStatus(set, pods, "r1", "r2", 0, time.Now())
	if s.Replicas != 4 || s.ReadyReplicas != 2 || s.AvailableReplicas != 2 || s.CurrentReplicas != 1 || s.UpdatedReplicas != 2 ||
		s.CurrentRevision != "r1" || s.UpdateRevision != "r2" || s.ObservedGeneration != 4 {
		t.Errorf("status %+v", s)
	}
	done := computeStatus(set, []*api.Pod{tpod(0, ready, "r2"), tpod(1, ready, "r2")}, "r1", "r2", 0, time.Now())
	if done.CurrentRevision != "r2" || done.CurrentReplicas != 2 {
		t.Errorf("a finished update should make r2 current: %+v", done)
	}
}
