// Package poddisruptionbudget holds the rules about PodDisruptionBudgets
// that the apiserver's eviction subresource and the disruption controller
// must agree on: which pods a budget covers, and how its DisruptionAllowed
// condition follows status.disruptionsAllowed. It mirrors upstream's
// k8s.io/component-helpers/apps/poddisruptionbudget (helpers.go) and the
// selector rule of the policy/v1 PodDisruptionBudget lister.
package poddisruptionbudget

import (
	"kplane/pkg/api"
	"kplane/pkg/api/conditions"
	"kplane/pkg/api/labels"
)

// Selects reports whether budget covers a pod with podLabels. In policy/v1
// an empty selector covers every pod of the namespace and a null one none
// (upstream's v1beta1 let an empty one match nothing); a selector that does
// not parse covers nothing, so a broken budget never blocks an eviction it
// was not meant for.
func Selects(budget *api.PodDisruptionBudget, podLabels map[string]string) bool {
	selector, err := labels.FromLabelSelector(budget.Spec.Selector)
	if err != nil {
		return false
	}
	return selector.Matches(podLabels)
}

// UpdateDisruptionAllowedCondition sets the budget's DisruptionAllowed
// condition from status.disruptionsAllowed: True (SufficientPods) when it
// is above 0, False (InsufficientPods) otherwise. now stamps the condition
// when its status changes.
func UpdateDisruptionAllowedCondition(budget *api.PodDisruptionBudget, now api.Time) {
	status, reason := disruptionAllowed(budget)
	conditions.Set(&budget.Status.Conditions, api.Condition{
		Type:               api.DisruptionAllowedCondition,
		Status:             status,
		Reason:             reason,
		ObservedGeneration: budget.Status.ObservedGeneration,
	}, now)
}

// ConditionsAreUpToDate reports whether the budget's status was computed
// for its current generation and its DisruptionAllowed condition agrees
// with status.disruptionsAllowed; when it does, the disruption controller
// has nothing to write.
func ConditionsAreUpToDate(budget *api.PodDisruptionBudget) bool {
	condition := conditions.Find(budget.Status.Conditions, api.DisruptionAllowedCondition)
	if condition == nil || budget.Status.ObservedGeneration != budget.Generation {
		return false
	}
	status, reason := disruptionAllowed(budget)
	return condition.Status == status && condition.Reason == reason
}

// disruptionAllowed is the status and reason the DisruptionAllowed
// condition should have: True (SufficientPods) while
// status.disruptionsAllowed is above 0, False (InsufficientPods) otherwise.
func disruptionAllowed(budget *api.PodDisruptionBudget) (status, reason string) {
	if budget.Status.DisruptionsAllowed > 0 {
		return string(api.ConditionTrue), api.SufficientPodsReason
	}
	return string(api.ConditionFalse), api.InsufficientPodsReason
}

// IsHealthy reports whether a pod counts as healthy for its budget: its
// Ready condition is True. Upstream's eviction and disruption controller
// both use IsPodReady for this ("the current implementation of
// IsHealthy"); here it is written once for both.
func IsHealthy(pod *api.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == api.PodReady {
			return c.Status == api.ConditionTrue
		}
	}
	return false
}
