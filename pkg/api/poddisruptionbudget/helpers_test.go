package poddisruptionbudget

import (
	"testing"
	"time"

	"kplane/pkg/api"
)

func TestSelects(t *testing.T) {
	web := map[string]string{"app": "web"}
	tests := []struct {
		name     string
		selector *api.LabelSelector
		want     bool
	}{
		{"matching labels", &api.LabelSelector{MatchLabels: web}, true},
		{"other labels", &api.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, false},
		{"empty selector: every pod (policy/v1)", &api.LabelSelector{}, true},
		{"null selector: none", nil, false},
		{"broken selector: none", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}, false},
	}
	for _, tt := range tests {
		budget := &api.PodDisruptionBudget{Spec: api.PodDisruptionBudgetSpec{Selector: tt.selector}}
		if got := Selects(budget, web); got != tt.want {
			t.Errorf("%s: Selects = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The condition follows disruptionsAllowed; its transition time moves only
// when its status changes.
func TestDisruptionAllowedCondition(t *testing.T) {
	t1, t2 := api.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), api.NewTime(time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC))
	budget := &api.PodDisruptionBudget{ObjectMeta: api.ObjectMeta{Generation: 2}}
	budget.Status.ObservedGeneration = 2
	if ConditionsAreUpToDate(budget) {
		t.Error("a budget without the condition is up to date")
	}
	budget.Status.DisruptionsAllowed = 1
	UpdateDisruptionAllowedCondition(budget, t1)
	c := budget.Status.Conditions[0]
	if c.Status != "True" || c.Reason != api.SufficientPodsReason || !c.LastTransitionTime.Equal(t1.Time) || !ConditionsAreUpToDate(budget) {
		t.Errorf("with 1 allowed: %+v", c)
	}
	UpdateDisruptionAllowedCondition(budget, t2)
	if !budget.Status.Conditions[0].LastTransitionTime.Equal(t1.Time) {
		t.Error("the transition time moved without a transition")
	}
	budget.Status.DisruptionsAllowed = 0
	if ConditionsAreUpToDate(budget) {
		t.Error("a True condition with 0 allowed is up to date")
	}
	UpdateDisruptionAllowedCondition(budget, t2)
	c = budget.Status.Conditions[0]
	if len(budget.Status.Conditions) != 1 || c.Status != "False" || c.Reason != api.InsufficientPodsReason || !c.LastTransitionTime.Equal(t2.Time) {
		t.Errorf("with 0 allowed: %+v", budget.Status.Conditions)
	}
	budget.Generation = 3
	if ConditionsAreUpToDate(budget) {
		t.Error("a status of an older generation is up to date")
	}
}

func TestIsHealthy(t *testing.T) {
	pod := &api.Pod{}
	if IsHealthy(pod) {
		t.Error("a pod without a Ready condition is healthy")
	}
	pod.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
	if !IsHealthy(pod) {
		t.Error("a Ready pod is not healthy")
	}
}
