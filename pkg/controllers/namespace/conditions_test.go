package namespace

import (
	"errors"
	"testing"
	"time"

	"kplane/pkg/api"
)

var (
	t0 = api.NewTime(time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC))
	t1 = api.NewTime(t0.Add(time.Minute))
)

func TestFailingConditions(t *testing.T) {
	tests := []struct {
		name   string
		totals contentTotals
		want   map[api.NamespaceConditionType]string // type → message
	}{
		{
			name:   "nothing left",
			totals: newContentTotals(),
			want:   map[api.NamespaceConditionType]string{},
		},
		{
			name: "pods remain, upstream's wording",
			totals: contentTotals{
				remaining:  map[string]int{"pods.": 2},
				finalizers: map[string]int{},
			},
			want: map[api.NamespaceConditionType]string{
				api.NamespaceContentRemaining: "Some resources are remaining: pods. has 2 resource instances",
			},
		},
		{
			name: "several resources sorted, zero counts left out",
			totals: contentTotals{
				remaining:  map[string]int{"pods.": 1, "deployments.apps": 3, "configmaps.": 0},
				finalizers: map[string]int{"orphan": 2, "example.com/hold": 1},
			},
			want: map[api.NamespaceConditionType]string{
				api.NamespaceContentRemaining:    "Some resources are remaining: deployments.apps has 3 resource instances, pods. has 1 resource instances",
				api.NamespaceFinalizersRemaining: "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances, orphan in 2 resource instances",
			},
		},
		{
			name: "delete errors",
			totals: contentTotals{
				remaining:    map[string]int{},
				finalizers:   map[string]int{},
				deleteErrors: []error{errors.New("b failed"), errors.New("a failed")},
			},
			want: map[api.NamespaceConditionType]string{
				api.NamespaceDeletionContentFailure: "Failed to delete all resource types, 2 remaining: a failed, b failed",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := failingConditions(tc.totals, t0)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d conditions %+v, want %d", len(got), got, len(tc.want))
			}
			for _, c := range got {
				if c.Status != api.ConditionTrue {
					t.Errorf("%s status = %s, want True", c.Type, c.Status)
				}
				if want, ok := tc.want[c.Type]; !ok || c.Message != want {
					t.Errorf("%s message = %q, want %q", c.Type, c.Message, want)
				}
			}
		})
	}
}

func TestUpdateConditions(t *testing.T) {
	remaining := api.NamespaceCondition{Type: api.NamespaceContentRemaining, Status: api.ConditionTrue,
		Reason: "SomeResourcesRemain", Message: "Some resources are remaining: pods. has 1 resource instances", LastTransitionTime: t0}

	t.Run("empty status gets all five, False when fine", func(t *testing.T) {
		var status api.NamespaceStatus
		if !updateConditions(&status, nil, t0) {
			t.Fatal("changed = false, want true")
		}
		if len(status.Conditions) != len(conditionTypes) {
			t.Fatalf("got %d conditions, want %d", len(status.Conditions), len(conditionTypes))
		}
		for i, c := range status.Conditions {
			if c.Type != conditionTypes[i] || c.Status != api.ConditionFalse || c.Reason != okReasons[c.Type] || c.Message != okMessages[c.Type] {
				t.Errorf("condition %d = %+v", i, c)
			}
		}
		if updateConditions(&status, nil, t1) {
			t.Error("second identical update reported a change")
		}
		if got := status.Conditions[0].LastTransitionTime; !got.Equal(t0.Time) {
			t.Errorf("unchanged condition's transition time moved to %v", got)
		}
	})

	t.Run("flip to True and back moves the transition time", func(t *testing.T) {
		var status api.NamespaceStatus
		updateConditions(&status, nil, t0)
		if !updateConditions(&status, []api.NamespaceCondition{remaining}, t1) {
			t.Fatal("changed = false, want true")
		}
		c := findCondition(status.Conditions, api.NamespaceContentRemaining)
		if c.Status != api.ConditionTrue || c.Message != remaining.Message || !c.LastTransitionTime.Equal(t1.Time) {
			t.Fatalf("ContentRemaining = %+v", c)
		}
		if len(status.Conditions) != len(conditionTypes) {
			t.Fatalf("got %d conditions, want %d (no duplicates)", len(status.Conditions), len(conditionTypes))
		}
		// A new message with the same status keeps the transition time.
		more := remaining
		more.Message = "Some resources are remaining: pods. has 2 resource instances"
		t2 := api.NewTime(t1.Add(time.Minute))
		if !updateConditions(&status, []api.NamespaceCondition{more}, t2) {
			t.Fatal("message change not reported")
		}
		c = findCondition(status.Conditions, api.NamespaceContentRemaining)
		if c.Message != more.Message || !c.LastTransitionTime.Equal(t1.Time) {
			t.Fatalf("after message change: %+v", c)
		}
		updateConditions(&status, nil, t2)
		c = findCondition(status.Conditions, api.NamespaceContentRemaining)
		if c.Status != api.ConditionFalse || c.Reason != "ContentRemoved" || !c.LastTransitionTime.Equal(t2.Time) {
			t.Fatalf("after content gone: %+v", c)
		}
	})
}
