// Package conditions reads and writes the standard status conditions
// (api.Condition, metav1.Condition upstream) that newer kinds — a
// PodDisruptionBudget, a student's Website — keep in status.conditions.
// It is upstream's meta.FindStatusCondition and meta.SetStatusCondition,
// shared by kplane's controllers and by controllers students write
// (examples/controller).
package conditions

import "kplane/pkg/api"

// Find returns the condition of type conditionType in conditions, or nil.
// The pointer is into the slice, so a caller may change the condition.
func Find(conditions []api.Condition, conditionType string) *api.Condition {
	for i := range conditions {
		if conditions[i].Type == conditionType {
			return &conditions[i]
		}
	}
	return nil
}

// IsTrue reports whether conditions hold conditionType with status True.
func IsTrue(conditions []api.Condition, conditionType string) bool {
	c := Find(conditions, conditionType)
	return c != nil && c.Status == string(api.ConditionTrue)
}

// Set adds condition to conditions or replaces the one of its type.
// lastTransitionTime becomes now only when the status changes (or the
// condition is new, and the caller gave none), so it says since when the
// condition has held, not when a controller last looked. Reason, message
// and observedGeneration always take condition's values.
func Set(conditions *[]api.Condition, condition api.Condition, now api.Time) {
	existing := Find(*conditions, condition.Type)
	if existing == nil {
		if condition.LastTransitionTime.IsZero() {
			condition.LastTransitionTime = now
		}
		*conditions = append(*conditions, condition)
		return
	}
	if existing.Status != condition.Status {
		existing.Status = condition.Status
		existing.LastTransitionTime = now
		if !condition.LastTransitionTime.IsZero() {
			existing.LastTransitionTime = condition.LastTransitionTime
		}
	}
	existing.Reason = condition.Reason
	existing.Message = condition.Message
	existing.ObservedGeneration = condition.ObservedGeneration
}
