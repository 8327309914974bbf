package disruption

// The arithmetic of a budget's status, as pure functions: the sync reads
// the pods and the controllers' scale, these compute the numbers.

import (
	"fmt"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/api/poddisruptionbudget"
)

// needsScale reports whether the budget's numbers need the scale of the
// pods' controllers: any maxUnavailable, and a percentage minAvailable.
// Only minAvailable as a number counts the pods themselves.
func needsScale(budget *api.PodDisruptionBudget) bool {
	if budget.Spec.MaxUnavailable != nil {
		return true
	}
	min := budget.Spec.MinAvailable
	return min != nil && min.Type == api.IntOrStringString
}

// desiredHealthy computes expectedPods and desiredHealthy, as upstream's
// getExpectedPodCount: with minAvailable N, N of the pods selected; with a
// percentage minAvailable, that share of expectedScale rounded up; with
// maxUnavailable, expectedScale less maxUnavailable (a percentage rounded
// up), never below 0. selected is how many pods the budget selects,
// expectedScale the sum of their controllers' spec.replicas (used only when
// needsScale).
func desiredHealthy(budget *api.PodDisruptionBudget, selected, expectedScale int32) (expected, desired int32, err error) {
	switch spec := budget.Spec; {
	case spec.MaxUnavailable != nil:
		maxUnavailable, err := api.ScaledValueFromIntOrPercent(spec.MaxUnavailable, int(expectedScale), true)
		if err != nil {
			return 0, 0, err
		}
		return expectedScale, max(0, expectedScale-int32(maxUnavailable)), nil
	case spec.MinAvailable != nil && spec.MinAvailable.Type == api.IntOrStringInt:
		return selected, spec.MinAvailable.IntVal, nil
	case spec.MinAvailable != nil:
		minAvailable, err := api.ScaledValueFromIntOrPercent(spec.MinAvailable, int(expectedScale), true)
		if err != nil {
			return 0, 0, err
		}
		return expectedScale, int32(minAvailable), nil
	}
	// Validation requires one of the two; a budget with neither protects
	// nothing.
	return selected, 0, nil
}

// disruptionsAllowed is how many more pods may go: the healthy pods above
// desiredHealthy, and none while the budget expects no pods (so that a
// budget whose first pods are appearing is safe before its first sync).
func disruptionsAllowed(currentHealthy, desiredHealthy, expectedPods int32) int32 {
	if expectedPods <= 0 {
		return 0
	}
	return max(0, currentHealthy-desiredHealthy)
}

// liveDisruptedPods keeps the status.disruptedPods entries that still count
// at now: of pods that still exist and are not yet being deleted, granted
// less than DeletionTimeout ago. expired lists the pods whose entry ran out
// although the pod was never deleted (upstream warns about them); recheck
// is when the first kept entry runs out (zero when none is kept).
func liveDisruptedPods(pods []*api.Pod, disrupted map[string]api.Time, now time.Time) (kept map[string]api.Time, expired []string, recheck time.Time) {
	kept = map[string]api.Time{}
	for _, pod := range pods {
		granted, found := disrupted[pod.Name]
		if !found || pod.DeletionTimestamp != nil {
			continue
		}
		deadline := granted.Add(DeletionTimeout)
		if deadline.Before(now) {
			expired = append(expired, pod.Name)
			continue
		}
		kept[pod.Name] = granted
		if recheck.IsZero() || deadline.Before(recheck) {
			recheck = deadline
		}
	}
	return kept, expired, recheck
}

// countHealthy counts the pods that are Ready, not being deleted and not
// about to be (in disrupted).
func countHealthy(pods []*api.Pod, disrupted map[string]api.Time) int32 {
	var healthy int32
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		if _, found := disrupted[pod.Name]; found {
			continue
		}
		if poddisruptionbudget.IsHealthy(pod) {
			healthy++
		}
	}
	return healthy
}

// budgetRule is the budget's spec in words, for decisions: "minAvailable 2",
// "maxUnavailable 25%".
func budgetRule(budget *api.PodDisruptionBudget) string {
	switch {
	case budget.Spec.MaxUnavailable != nil:
		return fmt.Sprintf("maxUnavailable %s", budget.Spec.MaxUnavailable)
	case budget.Spec.MinAvailable != nil:
		return fmt.Sprintf("minAvailable %s", budget.Spec.MinAvailable)
	}
	return "no minAvailable or maxUnavailable"
}
