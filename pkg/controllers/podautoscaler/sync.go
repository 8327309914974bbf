package podautoscaler

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
)

// sync reconciles the HPA key names and schedules its next sync one period
// later. Errors are logged and not retried sooner: as upstream, a failing
// HPA is tried again at its next period, with its conditions and a Warning
// Event saying what failed.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return controllerutil.DoNotRetry(err)
	}
	cached, err := c.hpas.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.normalizer.forget(key)
		c.decisions.Forget(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get hpa %s from cache: %w", key, err)
	}
	c.queue.AddAfter(key, c.syncPeriod)
	if err := c.reconcile(ctx, key, cached); err != nil {
		return controllerutil.DoNotRetry(err)
	}
	return nil
}

// reconcile is upstream's reconcileAutoscaler: one step of one HPA.
func (c *Controller) reconcile(ctx context.Context, key string, cached *api.HorizontalPodAutoscaler) error {
	hpa := api.DeepCopy(cached)
	original := api.DeepCopyValue(cached.Status)
	ref := hpa.Spec.ScaleTargetRef
	reference := fmt.Sprintf("%s/%s/%s", ref.Kind, hpa.Namespace, ref.Name)
	now := c.clock.Now()

	res, ok := client.ResourceForKind(ref.APIVersion, ref.Kind)
	if !ok {
		err := fmt.Errorf("no matches for kind %q in version %q", ref.Kind, ref.APIVersion)
		return c.failGetScale(ctx, hpa, original, fmt.Errorf("unable to determine resource for scale target reference: %w", err))
	}
	scale, err := c.scales.GetScale(ctx, res, hpa.Namespace, ref.Name)
	if err != nil {
		return c.failGetScale(ctx, hpa, original, fmt.Errorf("failed to query scale subresource for %s: %w", reference, err))
	}
	setCondition(hpa, condition{api.AbleToScale, api.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale"}, now)
	currentReplicas := scale.Spec.Replicas
	c.normalizer.recordInitialRecommendation(key, currentReplicas, now)

	minReplicas := minOf(hpa)
	var (
		desiredReplicas int32
		rescaleReason   string
		statuses        []api.MetricStatus
		metrics         metricsResult
		norm            *normalized
		rescale         = true
	)
	switch {
	case currentReplicas == 0 && minReplicas != 0:
		// Scaled to zero by hand: autoscaling is off until someone scales up.
		rescale = false
		setCondition(hpa, condition{api.ScalingActive, api.ConditionFalse, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero"}, now)
	case currentReplicas > hpa.Spec.MaxReplicas:
		rescaleReason, desiredReplicas = "Current number of replicas above Spec.MaxReplicas", hpa.Spec.MaxReplicas
	case currentReplicas < minReplicas:
		rescaleReason, desiredReplicas = "Current number of replicas below Spec.MinReplicas", minReplicas
	default:
		selector, selectorErr := c.scaleSelector(hpa, scale, now)
		if selectorErr != nil {
			c.setStatus(hpa, currentReplicas, hpa.Status.DesiredReplicas, nil, false, now)
			c.recordSelectorFailure(hpa, currentReplicas, selectorErr)
			return c.updateStatusIfNeeded(ctx, hpa, original, selectorErr)
		}
		metrics = c.computeReplicasForMetrics(ctx, hpa, currentReplicas, selector, scale.Status.Selector)
		statuses = metrics.statuses
		if metrics.replicas == -1 {
			setCondition(hpa, condition{api.ScalingActive, api.ConditionFalse, metrics.reason,
				fmt.Sprintf("the HPA was unable to compute the replica count: %v", metrics.err)}, now)
			c.setStatus(hpa, currentReplicas, hpa.Status.DesiredReplicas, statuses, false, now)
			c.recordMetricsFailure(hpa, currentReplicas, metrics)
			err := c.updateStatusIfNeeded(ctx, hpa, original, nil)
			c.recorder.Eventf(hpa, api.EventTypeWarning, "FailedComputeMetricsReplicas", "%s", metrics.err.Error())
			if err != nil {
				return err
			}
			return fmt.Errorf("failed to compute desired number of replicas based on listed metrics for %s: %w", reference, metrics.err)
		}
		setCondition(hpa, condition{api.ScalingActive, api.ConditionTrue, "ValidMetricFound",
			fmt.Sprintf("the HPA was able to successfully calculate a replica count from %s", metrics.name)}, now)
		desiredReplicas = metrics.replicas
		switch {
		case desiredReplicas > currentReplicas:
			rescaleReason = metrics.name + " above target"
		case desiredReplicas < currentReplicas:
			rescaleReason = "All metrics below target"
		}
		var n normalized
		if hpa.Spec.Behavior == nil {
			n = c.normalizer.normalizeLegacy(key, currentReplicas, desiredReplicas, minReplicas, hpa.Spec.MaxReplicas, now)
		} else {
			n = c.normalizer.normalizeWithBehavior(key, hpa.Spec.Behavior, currentReplicas, desiredReplicas, minReplicas, hpa.Spec.MaxReplicas, now)
		}
		for _, cond := range n.conditions {
			setCondition(hpa, cond, now)
		}
		norm = &n
		desiredReplicas = n.replicas
		rescale = desiredReplicas != currentReplicas
	}

	c.recordCalculation(hpa, currentReplicas, metrics, norm, desiredReplicas, rescale)
	if rescale {
		scale.Spec.Replicas = desiredReplicas
		if _, err := c.scales.UpdateScale(ctx, res, hpa.Namespace, scale); err != nil {
			c.recorder.Eventf(hpa, api.EventTypeWarning, "FailedRescale", "New size: %d; reason: %s; error: %v", desiredReplicas, rescaleReason, err)
			setCondition(hpa, condition{api.AbleToScale, api.ConditionFalse, "FailedUpdateScale",
				fmt.Sprintf("the HPA controller was unable to update the target scale: %v", err)}, now)
			c.setStatus(hpa, currentReplicas, hpa.Status.DesiredReplicas, statuses, false, now)
			return c.updateStatusIfNeeded(ctx, hpa, original, fmt.Errorf("failed to rescale %s: %w", reference, err))
		}
		setCondition(hpa, condition{api.AbleToScale, api.ConditionTrue, "SucceededRescale",
			fmt.Sprintf("the HPA controller was able to update the target scale to %d", desiredReplicas)}, now)
		c.recorder.Eventf(hpa, api.EventTypeNormal, "SuccessfulRescale", "New size: %d; reason: %s", desiredReplicas, rescaleReason)
		c.normalizer.storeScaleEvent(key, hpa.Spec.Behavior, currentReplicas, desiredReplicas, now)
		c.log.Info("successful rescale", "hpa", key, "currentReplicas", currentReplicas, "desiredReplicas", desiredReplicas, "reason", rescaleReason)
	} else {
		desiredReplicas = currentReplicas
	}
	c.setStatus(hpa, currentReplicas, desiredReplicas, statuses, rescale, now)
	var partial error
	if metrics.err != nil {
		// Some metric failed but the others decided: report it, as
		// upstream returns it after acting.
		partial = metrics.err
	}
	return c.updateStatusIfNeeded(ctx, hpa, original, partial)
}

// scaleSelector parses the pod selector of the target's scale.
func (c *Controller) scaleSelector(hpa *api.HorizontalPodAutoscaler, scale *api.Scale, now time.Time) (labels.Selector, error) {
	if scale.Status.Selector == "" {
		c.recorder.Eventf(hpa, api.EventTypeWarning, "SelectorRequired", "selector is required")
		setCondition(hpa, condition{api.ScalingActive, api.ConditionFalse, "InvalidSelector", "the HPA target's scale is missing a selector"}, now)
		return nil, fmt.Errorf("selector is required")
	}
	selector, err := labels.Parse(scale.Status.Selector)
	if err != nil {
		msg := fmt.Sprintf("couldn't convert selector into a corresponding internal selector object: %v", err)
		c.recorder.Eventf(hpa, api.EventTypeWarning, "InvalidSelector", "%s", msg)
		setCondition(hpa, condition{api.ScalingActive, api.ConditionFalse, "InvalidSelector", msg}, now)
		return nil, fmt.Errorf("%s", msg)
	}
	return selector, nil
}

// failGetScale reports a scale that cannot be read: Event, condition,
// status.
func (c *Controller) failGetScale(ctx context.Context, hpa *api.HorizontalPodAutoscaler, original api.HorizontalPodAutoscalerStatus, err error) error {
	now := c.clock.Now()
	c.recorder.Eventf(hpa, api.EventTypeWarning, "FailedGetScale", "%s", err.Error())
	setCondition(hpa, condition{api.AbleToScale, api.ConditionFalse, "FailedGetScale",
		fmt.Sprintf("the HPA controller was unable to get the target's current scale: %v", err)}, now)
	c.setStatus(hpa, hpa.Status.CurrentReplicas, hpa.Status.DesiredReplicas, hpa.Status.CurrentMetrics, false, now)
	c.recordScaleFailure(hpa, err)
	return c.updateStatusIfNeeded(ctx, hpa, original, err)
}

// setStatus is upstream's setStatus: the counts, the metrics, and the
// last scale time when the controller just rescaled.
func (c *Controller) setStatus(hpa *api.HorizontalPodAutoscaler, currentReplicas, desiredReplicas int32, metrics []api.MetricStatus, rescaled bool, now time.Time) {
	generation := hpa.Generation
	hpa.Status.ObservedGeneration = &generation
	hpa.Status.CurrentReplicas = currentReplicas
	hpa.Status.DesiredReplicas = desiredReplicas
	hpa.Status.CurrentMetrics = metrics
	if rescaled {
		t := api.NewTime(now.UTC().Truncate(time.Second))
		hpa.Status.LastScaleTime = &t
	}
}

// updateStatusIfNeeded writes hpa's status when it differs from original,
// and returns the first of the write's error and cause.
func (c *Controller) updateStatusIfNeeded(ctx context.Context, hpa *api.HorizontalPodAutoscaler, original api.HorizontalPodAutoscalerStatus, cause error) error {
	if reflect.DeepEqual(original, hpa.Status) {
		return cause
	}
	if _, err := c.client.HorizontalPodAutoscalers(hpa.Namespace).UpdateStatus(ctx, hpa, client.UpdateOptions{}); err != nil {
		c.recorder.Eventf(hpa, api.EventTypeWarning, "FailedUpdateStatus", "%v", err)
		return fmt.Errorf("failed to update status for %s: %w", hpa.Name, err)
	}
	return cause
}

// setCondition sets one condition of hpa, keeping its transition time when
// the status does not change, as upstream's setConditionInList.
func setCondition(hpa *api.HorizontalPodAutoscaler, cond condition, now time.Time) {
	for i := range hpa.Status.Conditions {
		existing := &hpa.Status.Conditions[i]
		if existing.Type != cond.conditionType {
			continue
		}
		if existing.Status != cond.status {
			existing.LastTransitionTime = api.NewTime(now.UTC().Truncate(time.Second))
		}
		existing.Status, existing.Reason, existing.Message = cond.status, cond.reason, cond.message
		return
	}
	hpa.Status.Conditions = append(hpa.Status.Conditions, api.HorizontalPodAutoscalerCondition{
		Type: cond.conditionType, Status: cond.status, Reason: cond.reason, Message: cond.message,
		LastTransitionTime: api.NewTime(now.UTC().Truncate(time.Second)),
	})
}
