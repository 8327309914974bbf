package printers

import (
	"time"

	"kplane/pkg/api"
)

// This file prints PriorityClasses.

// priorityClassColumns are upstream's, PreemptionPolicy last (it came
// after AGE was already there, and kubectl 1.32 still prints it last).
var priorityClassColumns = []api.TableColumnDefinition{
	nameColumn,
	integer("Value", "The priority the class's pods get; the higher, the sooner they are scheduled."),
	{Name: "Global-Default", Type: "boolean", Description: "Whether pods that name no class get this one."},
	ageColumn,
	text("PreemptionPolicy", "Whether the class's pods may evict lower-priority pods to fit: PreemptLowerPriority or Never."),
}

// priorityClassCells is upstream's printPriorityClass: an unset
// preemption policy (a class stored before the field existed) prints empty.
func priorityClassCells(class *api.PriorityClass, now time.Time) []any {
	preemptionPolicy := ""
	if class.PreemptionPolicy != nil {
		preemptionPolicy = string(*class.PreemptionPolicy)
	}
	return []any{class.Name, int64(class.Value), class.GlobalDefault, age(class.CreationTimestamp, now), preemptionPolicy}
}
