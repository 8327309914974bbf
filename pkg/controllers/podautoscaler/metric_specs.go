package podautoscaler

// This file turns each of an HPA's metric specs into a replica proposal
// and a status entry, and the proposals into one count, as upstream's
// computeReplicasForMetrics and computeReplicasForMetric do: the largest
// proposal wins (the metric that needs the most pods), and a metric that
// cannot be measured blocks scaling down — better too many pods than too
// few because one figure was missing.

import (
	"context"
	"errors"
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
)

// metricOutcome is one metric spec's result.
type metricOutcome struct {
	spec     api.MetricSpec
	proposal replicaProposal
	// name describes the metric in upstream's words, for the rescale
	// reason ("cpu resource utilization (percentage of request)").
	name   string
	status api.MetricStatus
	// err and reason (FailedGetResourceMetric…) say why it has no proposal.
	err    error
	reason string
	// perPod are the figures of each pod, one line each, for the
	// decision record (only when the debug journal is on).
	perPod []string
}

// metricsResult is what the metrics say together.
type metricsResult struct {
	// replicas is the largest proposal, or -1 when the metrics cannot
	// decide (all failed, or some failed and the rest say scale down).
	replicas int32
	// name is the metric that proposed replicas.
	name     string
	statuses []api.MetricStatus
	outcomes []metricOutcome
	// err is the first metric's error, reason its condition reason.
	err    error
	reason string
}

// computeReplicasForMetrics asks each metric of hpa for its proposal.
func (c *Controller) computeReplicasForMetrics(ctx context.Context, hpa *api.HorizontalPodAutoscaler, currentReplicas int32, selector labels.Selector, selectorText string) metricsResult {
	res := metricsResult{statuses: make([]api.MetricStatus, len(hpa.Spec.Metrics))}
	invalid := 0
	for i, spec := range hpa.Spec.Metrics {
		out := c.computeReplicasForMetric(ctx, hpa, spec, currentReplicas, selector, selectorText)
		res.outcomes = append(res.outcomes, out)
		if out.err != nil {
			if invalid == 0 {
				res.err, res.reason = out.err, out.reason
			}
			invalid++
			continue
		}
		res.statuses[i] = out.status
		if res.name == "" || out.proposal.replicas > res.replicas {
			res.replicas, res.name = out.proposal.replicas, out.name
		}
	}
	if invalid >= len(hpa.Spec.Metrics) || (invalid > 0 && res.replicas < currentReplicas) {
		res.replicas = -1
	}
	return res
}

// computeReplicasForMetric is one metric's proposal.
func (c *Controller) computeReplicasForMetric(ctx context.Context, hpa *api.HorizontalPodAutoscaler, spec api.MetricSpec, currentReplicas int32, selector labels.Selector, selectorText string) metricOutcome {
	out := metricOutcome{spec: spec}
	switch {
	case spec.Type == api.ResourceMetricSourceType && spec.Resource != nil:
		out.reason = "FailedGetResourceMetric"
		c.resourceMetric(ctx, hpa.Namespace, hpa.Spec.Behavior, spec.Resource.Name, "", spec.Resource.Target, currentReplicas, selector, selectorText, &out)
		if out.err == nil {
			out.status = api.MetricStatus{Type: api.ResourceMetricSourceType,
				Resource: &api.ResourceMetricStatus{Name: spec.Resource.Name, Current: currentValue(spec.Resource.Target, out.proposal)}}
		}
	case spec.Type == api.ContainerResourceMetricSourceType && spec.ContainerResource != nil:
		out.reason = "FailedGetContainerResourceMetric"
		cr := spec.ContainerResource
		c.resourceMetric(ctx, hpa.Namespace, hpa.Spec.Behavior, cr.Name, cr.Container, cr.Target, currentReplicas, selector, selectorText, &out)
		if out.err == nil {
			out.status = api.MetricStatus{Type: api.ContainerResourceMetricSourceType,
				ContainerResource: &api.ContainerResourceMetricStatus{Name: cr.Name, Container: cr.Container, Current: currentValue(cr.Target, out.proposal)}}
		}
	case spec.Type == api.PodsMetricSourceType && spec.Pods != nil:
		out.reason = "FailedGetPodsMetric"
		out.err = fmt.Errorf("failed to get pods metric value: unable to get metric %s: %w", spec.Pods.Metric.Name, errNoCustomMetrics)
	case spec.Type == api.ObjectMetricSourceType && spec.Object != nil:
		out.reason = "FailedGetObjectMetric"
		out.err = fmt.Errorf("failed to get object metric value: unable to get metric %s: %w", spec.Object.Metric.Name, errNoCustomMetrics)
	case spec.Type == api.ExternalMetricSourceType && spec.External != nil:
		out.reason = "FailedGetExternalMetric"
		out.err = fmt.Errorf("failed to get external metric value: unable to get external metric %s: %w", spec.External.Metric.Name, errNoCustomMetrics)
	default:
		out.reason = "InvalidMetricSourceType"
		out.err = fmt.Errorf("unknown metric source type %q", spec.Type)
	}
	if out.err != nil {
		c.recorder.Eventf(hpa, api.EventTypeWarning, out.reason, "%s", out.err.Error())
	}
	return out
}

// resourceMetric measures a Resource or ContainerResource metric into out.
func (c *Controller) resourceMetric(ctx context.Context, namespace string, behavior *api.HorizontalPodAutoscalerBehavior,
	resource api.ResourceName, container string, target api.MetricTarget,
	currentReplicas int32, selector labels.Selector, selectorText string, out *metricOutcome) {
	what := "usage"
	if target.AverageValue == nil {
		what = "utilization"
		if target.AverageUtilization == nil {
			out.err = errors.New("invalid resource metric source: neither an average utilization target nor an average value (usage) target was set")
			return
		}
	}
	out.name = fmt.Sprintf("%s resource", resource)
	if target.AverageValue == nil {
		out.name = fmt.Sprintf("%s resource utilization (percentage of request)", resource)
		if container != "" {
			out.name = fmt.Sprintf("%s container resource utilization (percentage of request)", resource)
		}
	}
	fail := func(err error) { out.err = fmt.Errorf("failed to get %s %s: %w", resource, what, err) }
	metrics, err := c.metrics.ResourceMetric(ctx, resource, namespace, selectorText, container)
	if err != nil {
		fail(fmt.Errorf("unable to get metrics for resource %s: %w", resource, err))
		return
	}
	pods, err := c.pods.Namespace(namespace).List(selector)
	if err != nil {
		fail(fmt.Errorf("unable to get pods while calculating replica count: %w", err))
		return
	}
	now := c.clock.Now()
	if target.AverageValue != nil {
		out.proposal, err = resourceAverageValueReplicas(currentReplicas, target.AverageValue.MilliValue(), resource, pods, metrics, c.calcFor(behavior), now)
	} else {
		out.proposal, err = resourceUtilizationReplicas(currentReplicas, *target.AverageUtilization, resource, container, pods, metrics, c.calcFor(behavior), now)
	}
	if err != nil {
		fail(err)
		return
	}
	if c.decisions.Enabled() {
		out.perPod = podFigures(pods, metrics, resource, container)
	}
}

// calcFor is the calculator's options for an HPA: the controller's, with
// the tolerance of each direction its behavior sets.
func (c *Controller) calcFor(behavior *api.HorizontalPodAutoscalerBehavior) calculatorOptions {
	opts := c.calc
	if behavior == nil {
		return opts
	}
	if r := behavior.ScaleUp; r != nil && r.Tolerance != nil {
		opts.scaleUpTolerance = r.Tolerance.AsApproximateFloat64()
	}
	if r := behavior.ScaleDown; r != nil && r.Tolerance != nil {
		opts.scaleDownTolerance = r.Tolerance.AsApproximateFloat64()
	}
	return opts
}

// currentValue is a metric's status value in the form of its target.
func currentValue(target api.MetricTarget, p replicaProposal) api.MetricValueStatus {
	average := api.NewMilliQuantity(p.average, api.DecimalSI)
	if target.AverageValue != nil {
		return api.MetricValueStatus{AverageValue: &average}
	}
	utilization := p.utilization
	return api.MetricValueStatus{AverageUtilization: &utilization, AverageValue: &average}
}
