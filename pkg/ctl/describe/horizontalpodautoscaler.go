package describe

import (
	"fmt"

	"kplane/pkg/api"
)

// describeHorizontalPodAutoscaler prints an HPA as kubectl's
// HorizontalPodAutoscalerDescriber does for autoscaling/v2: its target,
// each metric's current value against its target, the bounds, the
// behavior when one is set, the target's replica counts, the conditions
// and Events. An autoscaling/v1 object is shown in its v2 form, as kubectl
// (which reads v2 when the server serves it) shows it.
func describeHorizontalPodAutoscaler(in Input, s Settings) (string, error) {
	var hpa *api.HorizontalPodAutoscaler
	if apiVersion, _ := in.Object["apiVersion"].(string); apiVersion == "autoscaling/v1" {
		v1, err := decode[api.HorizontalPodAutoscalerV1](in.Object)
		if err != nil {
			return "", err
		}
		hpa = v1.ToV2()
	} else {
		v2, err := decode[api.HorizontalPodAutoscaler](in.Object)
		if err != nil {
			return "", err
		}
		hpa = v2
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", hpa.Name)
		w.write(level0, "Namespace:\t%s\n", hpa.Namespace)
		printLabelsMultiline(w, "Labels", hpa.Labels)
		printAnnotationsMultiline(w, "Annotations", hpa.Annotations)
		w.write(level0, "CreationTimestamp:\t%s\n", s.timestamp(hpa.CreationTimestamp.Time))
		w.write(level0, "Reference:\t%s/%s\n", hpa.Spec.ScaleTargetRef.Kind, hpa.Spec.ScaleTargetRef.Name)
		w.write(level0, "Metrics:\t( current / target )\n")
		for i, metric := range hpa.Spec.Metrics {
			var status api.MetricStatus
			if i < len(hpa.Status.CurrentMetrics) {
				status = hpa.Status.CurrentMetrics[i]
			}
			describeHPAMetric(w, metric, status)
		}
		minReplicas := "<unset>"
		if hpa.Spec.MinReplicas != nil {
			minReplicas = fmt.Sprintf("%d", *hpa.Spec.MinReplicas)
		}
		w.write(level0, "Min replicas:\t%s\n", minReplicas)
		w.write(level0, "Max replicas:\t%d\n", hpa.Spec.MaxReplicas)
		if b := hpa.Spec.Behavior; b != nil {
			w.write(level0, "Behavior:\n")
			describeScalingRules(w, "Scale Up", b.ScaleUp)
			describeScalingRules(w, "Scale Down", b.ScaleDown)
		}
		w.write(level0, "%s pods:\t%d current / %d desired\n", hpa.Spec.ScaleTargetRef.Kind, hpa.Status.CurrentReplicas, hpa.Status.DesiredReplicas)
		if len(hpa.Status.Conditions) > 0 {
			w.write(level0, "Conditions:\n")
			w.write(level1, "Type\tStatus\tReason\tMessage\n")
			w.write(level1, "----\t------\t------\t-------\n")
			for _, c := range hpa.Status.Conditions {
				w.write(level1, "%v\t%v\t%v\t%v\n", c.Type, c.Status, c.Reason, c.Message)
			}
		}
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	}), nil
}

// describeHPAMetric prints one metric's line: what it measures, then
// "current / target", "<unknown>" before the first measurement.
func describeHPAMetric(w prefixWriter, metric api.MetricSpec, status api.MetricStatus) {
	const unknown = "<unknown>"
	switch {
	case metric.Type == api.ExternalMetricSourceType && metric.External != nil:
		current := unknown
		if metric.External.Target.AverageValue != nil {
			if status.External != nil && status.External.Current.AverageValue != nil {
				current = status.External.Current.AverageValue.String()
			}
			w.write(level1, "%q (target average value):\t%s / %s\n", metric.External.Metric.Name, current, metric.External.Target.AverageValue.String())
			return
		}
		if status.External != nil {
			current = quantityOrNil(status.External.Current.Value)
		}
		w.write(level1, "%q (target value):\t%s / %s\n", metric.External.Metric.Name, current, quantityOrNil(metric.External.Target.Value))
	case metric.Type == api.PodsMetricSourceType && metric.Pods != nil:
		current := unknown
		if status.Pods != nil {
			current = quantityOrNil(status.Pods.Current.AverageValue)
		}
		w.write(level1, "%q on pods:\t%s / %s\n", metric.Pods.Metric.Name, current, quantityOrNil(metric.Pods.Target.AverageValue))
	case metric.Type == api.ObjectMetricSourceType && metric.Object != nil:
		o := metric.Object
		w.write(level1, "%q on %s/%s ", o.Metric.Name, o.DescribedObject.Kind, o.DescribedObject.Name)
		current := unknown
		if o.Target.Type == api.AverageValueMetricType {
			if status.Object != nil {
				current = quantityOrNil(status.Object.Current.AverageValue)
			}
			w.write(level0, "(target average value):\t%s / %s\n", current, quantityOrNil(o.Target.AverageValue))
			return
		}
		if status.Object != nil {
			current = quantityOrNil(status.Object.Current.Value)
		}
		w.write(level0, "(target value):\t%s / %s\n", current, quantityOrNil(o.Target.Value))
	case metric.Type == api.ResourceMetricSourceType && metric.Resource != nil:
		w.write(level1, "resource %s on pods", metric.Resource.Name)
		var current *api.MetricValueStatus
		if status.Resource != nil {
			current = &status.Resource.Current
		}
		describeResourceTarget(w, metric.Resource.Target, current)
	case metric.Type == api.ContainerResourceMetricSourceType && metric.ContainerResource != nil:
		w.write(level1, "resource %s of container \"%s\" on pods", metric.ContainerResource.Name, metric.ContainerResource.Container)
		var current *api.MetricValueStatus
		if status.ContainerResource != nil {
			current = &status.ContainerResource.Current
		}
		describeResourceTarget(w, metric.ContainerResource.Target, current)
	default:
		w.write(level1, "<unknown metric type %q>\n", string(metric.Type))
	}
}

// describeResourceTarget ends a resource metric's line: an average value,
// or a utilization with the raw average in brackets.
func describeResourceTarget(w prefixWriter, target api.MetricTarget, current *api.MetricValueStatus) {
	if target.AverageValue != nil {
		now := "<unknown>"
		if current != nil {
			now = quantityOrNil(current.AverageValue)
		}
		w.write(level0, ":\t%s / %s\n", now, target.AverageValue.String())
		return
	}
	now := "<unknown>"
	if current != nil && current.AverageUtilization != nil {
		now = fmt.Sprintf("%d%% (%s)", *current.AverageUtilization, quantityOrNil(current.AverageValue))
	}
	want := "<auto>"
	if target.AverageUtilization != nil {
		want = fmt.Sprintf("%d%%", *target.AverageUtilization)
	}
	w.write(level0, "  (as a percentage of request):\t%s / %s\n", now, want)
}

// describeScalingRules prints one direction of an HPA's behavior.
func describeScalingRules(w prefixWriter, direction string, rules *api.HPAScalingRules) {
	if rules == nil {
		return
	}
	w.write(level1, "%s:\n", direction)
	if rules.StabilizationWindowSeconds != nil {
		w.write(level2, "Stabilization Window: %d seconds\n", *rules.StabilizationWindowSeconds)
	}
	if len(rules.Policies) == 0 {
		return
	}
	selectPolicy := api.MaxChangePolicySelect
	if rules.SelectPolicy != nil {
		selectPolicy = *rules.SelectPolicy
	}
	w.write(level2, "Select Policy: %s\n", selectPolicy)
	w.write(level2, "Policies:\n")
	for _, p := range rules.Policies {
		w.write(level3, "- Type: %s\tValue: %d\tPeriod: %d seconds\n", p.Type, p.Value, p.PeriodSeconds)
	}
}

// quantityOrNil prints an optional quantity as upstream's Quantity.String
// does: "<nil>" for none.
func quantityOrNil(q *api.Quantity) string {
	if q == nil {
		return "<nil>"
	}
	return q.String()
}
