package printers

import (
	"fmt"
	"time"

	"kplane/pkg/api"
)

// Upstream declares MINPODS, MAXPODS and REPLICAS as strings, because MINPODS
// may read "<unset>"; the declaration is kept as upstream has it.
var horizontalPodAutoscalerColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Reference", "The object the autoscaler scales, as Kind/name."),
	text("Targets", "Each metric's current value against its target, e.g. cpu: 40%/50%."),
	text("MinPods", "The fewest replicas the autoscaler scales down to."),
	text("MaxPods", "The most replicas the autoscaler scales up to."),
	text("Replicas", "How many replicas the target runs now."),
	ageColumn,
}

func horizontalPodAutoscalerCells(hpa *api.HorizontalPodAutoscaler, now time.Time) []any {
	minPods := unset
	if hpa.Spec.MinReplicas != nil {
		minPods = fmt.Sprintf("%d", *hpa.Spec.MinReplicas)
	}
	return []any{
		hpa.Name,
		hpa.Spec.ScaleTargetRef.Kind + "/" + hpa.Spec.ScaleTargetRef.Name,
		hpaTargets(hpa.Spec.Metrics, hpa.Status.CurrentMetrics),
		minPods,
		int64(hpa.Spec.MaxReplicas),
		int64(hpa.Status.CurrentReplicas),
		age(hpa.CreationTimestamp, now),
	}
}

// maxHPATargets is how many metrics TARGETS lists before "+ N more...".
const maxHPATargets = 2

// hpaTargets is upstream's formatHPAMetrics: for each metric of the spec,
// "current/target", where the current value is read from the status entry at
// the same position and reads "<unknown>" until the autoscaler has measured
// it. Resource metrics are prefixed with their resource ("cpu: 40%/50%"),
// average-value targets of Object and External metrics end in " (avg)", and
// a utilization target left to the default reads "<auto>".
func hpaTargets(specs []api.MetricSpec, statuses []api.MetricStatus) string {
	if len(specs) == 0 {
		return none
	}
	targets := make([]string, len(specs))
	for i, spec := range specs {
		var status api.MetricStatus
		if i < len(statuses) {
			status = statuses[i]
		}
		targets[i] = hpaTarget(spec, status)
	}
	return joinWithMore(targets, len(targets), maxHPATargets, ", ")
}

// hpaTarget renders one metric's "current/target".
func hpaTarget(spec api.MetricSpec, status api.MetricStatus) string {
	switch {
	case spec.Type == api.ExternalMetricSourceType && spec.External != nil:
		var current *api.MetricValueStatus
		if status.External != nil {
			current = &status.External.Current
		}
		return valueTarget(spec.External.Target, current)
	case spec.Type == api.ObjectMetricSourceType && spec.Object != nil:
		var current *api.MetricValueStatus
		if status.Object != nil {
			current = &status.Object.Current
		}
		return valueTarget(spec.Object.Target, current)
	case spec.Type == api.PodsMetricSourceType && spec.Pods != nil:
		current := "<unknown>"
		if status.Pods != nil {
			current = quantity(status.Pods.Current.AverageValue)
		}
		return current + "/" + quantity(spec.Pods.Target.AverageValue)
	case spec.Type == api.ResourceMetricSourceType && spec.Resource != nil:
		var current *api.MetricValueStatus
		if status.Resource != nil {
			current = &status.Resource.Current
		}
		return spec.Resource.Name + ": " + resourceTarget(spec.Resource.Target, current)
	case spec.Type == api.ContainerResourceMetricSourceType && spec.ContainerResource != nil:
		var current *api.MetricValueStatus
		if status.ContainerResource != nil {
			current = &status.ContainerResource.Current
		}
		return spec.ContainerResource.Name + ": " + resourceTarget(spec.ContainerResource.Target, current)
	}
	return "<unknown type>"
}

// valueTarget renders an Object or External metric: its average value per
// pod, marked " (avg)", when that is the target, else its total value.
func valueTarget(target api.MetricTarget, current *api.MetricValueStatus) string {
	if target.AverageValue != nil {
		now := "<unknown>"
		if current != nil && current.AverageValue != nil {
			now = current.AverageValue.String()
		}
		return now + "/" + target.AverageValue.String() + " (avg)"
	}
	now := "<unknown>"
	if current != nil {
		now = quantity(current.Value)
	}
	return now + "/" + quantity(target.Value)
}

// resourceTarget renders a Resource or ContainerResource metric: an average
// value, or a utilization in percent of the pods' requests.
func resourceTarget(target api.MetricTarget, current *api.MetricValueStatus) string {
	if target.AverageValue != nil {
		now := "<unknown>"
		if current != nil {
			now = quantity(current.AverageValue)
		}
		return now + "/" + target.AverageValue.String()
	}
	now := "<unknown>"
	if current != nil && current.AverageUtilization != nil {
		now = fmt.Sprintf("%d%%", *current.AverageUtilization)
	}
	want := "<auto>"
	if target.AverageUtilization != nil {
		want = fmt.Sprintf("%d%%", *target.AverageUtilization)
	}
	return now + "/" + want
}

// quantity prints an optional quantity; a missing one prints "<nil>", as
// upstream's Quantity.String does for a nil pointer.
func quantity(q *api.Quantity) string {
	if q == nil {
		return "<nil>"
	}
	return q.String()
}
