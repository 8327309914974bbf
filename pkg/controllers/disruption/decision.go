package disruption

// This file records, for the debug journal (what `ctl why pdb/NAME`
// shows), the arithmetic of a budget's status, e.g.
//
//	budget web (minAvailable 2) selects 3 pods: 3 healthy, 2 desired, 3 expected → disruptionsAllowed 1

import (
	"fmt"
	"strconv"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file whose trySync this mirrors.
const decisionSource = "pkg/controller/disruption/disruption.go"

// recordCounts records the numbers one sync computed for budget: next is
// the status it is about to write, from selected pods of which unmanaged
// have no controller and the controllers' scale expects scale.
func (c *Controller) recordCounts(budget *api.PodDisruptionBudget, selected int, unmanaged []string, scale int32, next *api.PodDisruptionBudgetStatus) {
	if !c.decisions.Enabled() {
		return
	}
	var lines []string
	if needsScale(budget) {
		lines = append(lines, fmt.Sprintf("expected pods from the controllers' scale: %d; pods without a controller (not counted): %s",
			scale, controllerutil.OrNone(unmanaged)))
	}
	if disrupted := len(next.DisruptedPods); disrupted > 0 {
		lines = append(lines, fmt.Sprintf("%d evicted pod(s) in status.disruptedPods are not counted as healthy until they go or %s pass", disrupted, DeletionTimeout))
	}
	c.decisions.Record(&budget.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("budget %s (%s) selects %d pods: %d healthy, %d desired, %d expected → disruptionsAllowed %d",
			budget.Name, budgetRule(budget), selected, next.CurrentHealthy, next.DesiredHealthy, next.ExpectedPods, next.DisruptionsAllowed),
		Lines: lines,
		Values: map[string]string{
			"currentHealthy":     strconv.Itoa(int(next.CurrentHealthy)),
			"desiredHealthy":     strconv.Itoa(int(next.DesiredHealthy)),
			"expectedPods":       strconv.Itoa(int(next.ExpectedPods)),
			"disruptionsAllowed": strconv.Itoa(int(next.DisruptionsAllowed)),
		},
		Source: decisionSource,
	})
}
