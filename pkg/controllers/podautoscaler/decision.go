package podautoscaler

// This file records, for the debug journal (what `ctl why hpa/<name>`
// shows), the calculation of each sync: each pod's figure, each metric's
// utilization and ratio and proposal, the stabilized recommendation, the
// limit that capped it, and the count set. A sync that reaches the same
// result as the last one recorded records nothing (DecisionLog's dedup),
// so the record shows the steps where something changed.

import (
	"fmt"
	"sort"
	"strconv"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file whose reconcileAutoscaler this mirrors.
const decisionSource = "pkg/controller/podautoscaler/horizontal.go"

// recordCalculation records a sync that computed a count.
func (c *Controller) recordCalculation(hpa *api.HorizontalPodAutoscaler, currentReplicas int32, metrics metricsResult, norm *normalized, desired int32, rescale bool) {
	if !c.decisions.Enabled() {
		return
	}
	action := fmt.Sprintf("keep %d replicas", currentReplicas)
	if rescale {
		action = fmt.Sprintf("scale %d → %d", currentReplicas, desired)
	}
	values := map[string]string{"currentReplicas": strconv.Itoa(int(currentReplicas)), "desiredReplicas": strconv.Itoa(int(desired))}
	var lines []string
	for _, out := range metrics.outcomes {
		lines = append(lines, metricLines(out)...)
	}
	msg := fmt.Sprintf("hpa %s: %s", hpa.Name, action)
	if norm != nil {
		values["proposal"] = strconv.Itoa(int(metrics.replicas))
		values["stabilized"] = strconv.Itoa(int(norm.stabilized))
		lines = append(lines, fmt.Sprintf("proposal %d (from %s); stabilized to %s → recommendation %d",
			metrics.replicas, metrics.name, norm.stabilization, norm.stabilized))
		limit := fmt.Sprintf("within min %d / max %d and the rate policies → %d", minOf(hpa), hpa.Spec.MaxReplicas, norm.replicas)
		if norm.limitedBy != "" {
			limit = fmt.Sprintf("limited (%s; min %d, max %d) → %d", norm.limitedBy, minOf(hpa), hpa.Spec.MaxReplicas, norm.replicas)
			values["limitedBy"] = norm.limitedBy
		}
		lines = append(lines, limit)
		msg = fmt.Sprintf("hpa %s: metrics propose %d, stabilized %d, final %d → %s", hpa.Name, metrics.replicas, norm.stabilized, desired, action)
	} else if currentReplicas == 0 {
		msg = fmt.Sprintf("hpa %s: the target has 0 replicas → scaling disabled", hpa.Name)
	} else {
		msg = fmt.Sprintf("hpa %s: %d replicas outside min %d / max %d → %s", hpa.Name, currentReplicas, minOf(hpa), hpa.Spec.MaxReplicas, action)
	}
	c.decisions.Record(&hpa.ObjectMeta, debug.Decision{Message: msg, Values: values, Lines: lines, Source: decisionSource})
}

// recordMetricsFailure records a sync whose metrics could not decide.
func (c *Controller) recordMetricsFailure(hpa *api.HorizontalPodAutoscaler, currentReplicas int32, metrics metricsResult) {
	if !c.decisions.Enabled() {
		return
	}
	var lines []string
	for _, out := range metrics.outcomes {
		lines = append(lines, metricLines(out)...)
	}
	c.decisions.Record(&hpa.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("hpa %s: the metrics cannot decide (%s) → keep %d replicas", hpa.Name, metrics.reason, currentReplicas),
		Values:  map[string]string{"currentReplicas": strconv.Itoa(int(currentReplicas)), "reason": metrics.reason},
		Lines:   lines, Source: decisionSource,
	})
}

// recordSelectorFailure records a target whose scale has no usable selector.
func (c *Controller) recordSelectorFailure(hpa *api.HorizontalPodAutoscaler, currentReplicas int32, err error) {
	c.decisions.Record(&hpa.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("hpa %s: %v → keep %d replicas", hpa.Name, err, currentReplicas), Source: decisionSource,
	})
}

// recordScaleFailure records a target whose scale cannot be read.
func (c *Controller) recordScaleFailure(hpa *api.HorizontalPodAutoscaler, err error) {
	c.decisions.Record(&hpa.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("hpa %s: cannot read the target's scale: %v", hpa.Name, err), Source: decisionSource,
	})
}

// metricLines describes one metric's outcome: its pods, then its result.
func metricLines(out metricOutcome) []string {
	name := string(out.spec.Type)
	if out.name != "" {
		name = out.name
	}
	if out.err != nil {
		return []string{fmt.Sprintf("%s: %v", name, out.err)}
	}
	lines := append([]string(nil), out.perPod...)
	p := out.proposal
	var measured string
	if t := targetOf(out.spec); t.AverageValue != nil {
		measured = fmt.Sprintf("average %s per pod vs target %s", api.NewMilliQuantity(p.average, api.DecimalSI).String(), t.AverageValue.String())
	} else if t.AverageUtilization != nil {
		measured = fmt.Sprintf("utilization %d%% vs target %d%%", p.utilization, *t.AverageUtilization)
	}
	line := fmt.Sprintf("%s: %s → ratio %.2f over %d ready pods", name, measured, p.ratio, p.readyPods)
	if p.missingPods+p.unreadyPods+p.ignoredPods > 0 {
		line += fmt.Sprintf(" (%d missing, %d unready, %d ignored)", p.missingPods, p.unreadyPods, p.ignoredPods)
	}
	if p.assumed != "" {
		line += "; " + p.assumed
	}
	return append(lines, line+fmt.Sprintf(" → %d replicas", p.replicas))
}

// targetOf is the target of a Resource or ContainerResource spec.
func targetOf(spec api.MetricSpec) api.MetricTarget {
	switch {
	case spec.Resource != nil:
		return spec.Resource.Target
	case spec.ContainerResource != nil:
		return spec.ContainerResource.Target
	}
	return api.MetricTarget{}
}

// podFigures lists each pod's usage against its request, by pod name.
func podFigures(pods []*api.Pod, metrics PodMetricsInfo, resource api.ResourceName, container string) []string {
	requests := map[string]int64{}
	for _, pod := range pods {
		for _, c := range pod.Spec.Containers {
			if container == "" || c.Name == container {
				if q, ok := c.Resources.Requests[resource]; ok {
					requests[pod.Name] += q.MilliValue()
				}
			}
		}
	}
	var lines []string
	for _, pod := range pods {
		m, ok := metrics[pod.Name]
		switch {
		case !ok:
			lines = append(lines, fmt.Sprintf("  pod %s: no %s figure", pod.Name, resource))
		case requests[pod.Name] > 0:
			lines = append(lines, fmt.Sprintf("  pod %s: %s %s of %s requested (%d%%)", pod.Name, resource,
				api.NewMilliQuantity(m.Value, api.DecimalSI).String(), api.NewMilliQuantity(requests[pod.Name], api.DecimalSI).String(),
				m.Value*100/requests[pod.Name]))
		default:
			lines = append(lines, fmt.Sprintf("  pod %s: %s %s", pod.Name, resource, api.NewMilliQuantity(m.Value, api.DecimalSI).String()))
		}
	}
	sort.Strings(lines)
	return lines
}

// minOf is the HPA's minReplicas, 1 when unset (what defaulting stores).
func minOf(hpa *api.HorizontalPodAutoscaler) int32 {
	if hpa.Spec.MinReplicas != nil {
		return *hpa.Spec.MinReplicas
	}
	return 1
}
