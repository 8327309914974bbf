package podautoscaler

// This file turns the metrics' proposal into the replica count the HPA
// actually sets, as upstream's horizontal.go does in
// normalizeDesiredReplicas (an HPA without spec.behavior) and
// normalizeDesiredReplicasWithBehaviors (with one). Two mechanisms, both
// with memory, which is why they live in a struct and not in pure
// functions:
//
//   - stabilization: the controller remembers every recommendation it made
//     for an HPA, with its time. Scaling down, it takes the highest
//     recommendation of the stabilization window (5 minutes by default):
//     load that drops for a minute does not remove pods that would be
//     needed again a minute later. Scaling up the window is 0 by default.
//   - rate policies: the controller remembers every change it made, and a
//     policy such as "at most 4 pods per 15 s" caps the next change by what
//     was already changed within the period.
//
// Then minReplicas and maxReplicas clamp the result. Each step names the
// condition upstream sets: AbleToScale ScaleDownStabilized /
// ReadyForNewScale, ScalingLimited TooManyReplicas / TooFewReplicas /
// ScaleUpLimit / ScaleDownLimit / DesiredWithinRange.

import (
	"fmt"
	"math"
	"sync"
	"time"

	"kplane/pkg/api"
)

// timestampedRecommendation is one recommendation the controller made.
type timestampedRecommendation struct {
	recommendation int32
	timestamp      time.Time
}

// timestampedScaleEvent is one change the controller made to the replicas.
type timestampedScaleEvent struct {
	replicaChange int32
	timestamp     time.Time
	// outdated marks an event cancelled by a change in the other
	// direction, whose slot may be reused.
	outdated bool
}

// normalizer holds, per HPA key, the recommendations and scale events that
// stabilization and the rate policies look back on. They live in memory
// only, as upstream's: a restarted controller starts with a clean slate.
type normalizer struct {
	// downscaleStabilization is the window of an HPA without behavior and
	// the default scale-down window of one with it
	// (--horizontal-pod-autoscaler-downscale-stabilization, 5m).
	downscaleStabilization time.Duration

	mu              sync.Mutex
	recommendations map[string][]timestampedRecommendation
	scaleUpEvents   map[string][]timestampedScaleEvent
	scaleDownEvents map[string][]timestampedScaleEvent
}

func newNormalizer(downscaleStabilization time.Duration) *normalizer {
	return &normalizer{
		downscaleStabilization: downscaleStabilization,
		recommendations:        map[string][]timestampedRecommendation{},
		scaleUpEvents:          map[string][]timestampedScaleEvent{},
		scaleDownEvents:        map[string][]timestampedScaleEvent{},
	}
}

// forget drops what is remembered about a deleted HPA.
func (n *normalizer) forget(key string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.recommendations, key)
	delete(n.scaleUpEvents, key)
	delete(n.scaleDownEvents, key)
}

// recordInitialRecommendation remembers the current count as the first
// recommendation, so a fresh controller does not scale down at once.
func (n *normalizer) recordInitialRecommendation(key string, currentReplicas int32, now time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.recommendations[key]) == 0 {
		n.recommendations[key] = []timestampedRecommendation{{currentReplicas, now}}
	}
}

// condition is one HPA condition to set: type, status, reason, message.
type condition struct {
	conditionType api.HorizontalPodAutoscalerConditionType
	status        api.ConditionStatus
	reason        string
	message       string
}

// normalized is the outcome of normalization: the replicas to set, the
// stabilized recommendation on the way, and the conditions to set.
type normalized struct {
	stabilized int32
	replicas   int32
	conditions []condition
	// stabilization says which rule stabilized the count ("the highest
	// recommendation of the last 5m0s"), and limitedBy the policy limit or
	// bound that capped it (for the record).
	stabilization string
	limitedBy     string
}

// normalizeLegacy is upstream's normalizeDesiredReplicas, for an HPA
// without behavior: stabilize over the downscale window, then clamp to
// min, max and a scale-up limit of max(2 × current, 4).
func (n *normalizer) normalizeLegacy(key string, currentReplicas, desired, minReplicas, maxReplicas int32, now time.Time) normalized {
	n.mu.Lock()
	stabilized := desired
	cutoff := now.Add(-n.downscaleStabilization)
	recs := n.recommendations[key]
	replaced := false
	for i, rec := range recs {
		if rec.timestamp.Before(cutoff) {
			if !replaced {
				recs[i] = timestampedRecommendation{desired, now}
				replaced = true
			}
			continue
		}
		stabilized = max(stabilized, rec.recommendation)
	}
	if !replaced {
		n.recommendations[key] = append(recs, timestampedRecommendation{desired, now})
	}
	n.mu.Unlock()

	out := normalized{stabilized: stabilized,
		stabilization: fmt.Sprintf("the highest recommendation of the last %s", n.downscaleStabilization)}
	if stabilized != desired {
		out.conditions = append(out.conditions, condition{api.AbleToScale, api.ConditionTrue, "ScaleDownStabilized",
			"recent recommendations were higher than current one, applying the highest recent recommendation"})
	} else {
		out.conditions = append(out.conditions, condition{api.AbleToScale, api.ConditionTrue, "ReadyForNewScale", "recommended size matches current size"})
	}
	scaleUpLimit := max(2*currentReplicas, 4)
	replicas, reason, message := stabilized, "DesiredWithinRange", "the desired count is within the acceptable range"
	switch {
	case stabilized < minReplicas:
		replicas, reason, message = minReplicas, "TooFewReplicas", "the desired replica count is less than the minimum replica count"
	case maxReplicas > scaleUpLimit && stabilized > scaleUpLimit:
		replicas, reason, message = scaleUpLimit, "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate"
	case stabilized > maxReplicas:
		replicas, reason, message = maxReplicas, "TooManyReplicas", "the desired replica count is more than the maximum replica count"
	}
	out.replicas = replicas
	out.conditions = append(out.conditions, limitedCondition(replicas != stabilized, reason, message))
	if replicas != stabilized {
		out.limitedBy = reason
	}
	return out
}

// normalizeWithBehavior is upstream's normalizeDesiredReplicasWithBehaviors:
// stabilize within the scale-up and scale-down windows, then cap the change
// by the direction's policies and by min and max.
func (n *normalizer) normalizeWithBehavior(key string, behavior *api.HorizontalPodAutoscalerBehavior, currentReplicas, desired, minReplicas, maxReplicas int32, now time.Time) normalized {
	up, down := scalingRules(behavior, n.downscaleStabilization)
	upWindow := time.Duration(*up.StabilizationWindowSeconds) * time.Second
	downWindow := time.Duration(*down.StabilizationWindowSeconds) * time.Second

	n.mu.Lock()
	// Scaling up, the lowest recommendation of the up window wins;
	// scaling down, the highest of the down window; the count moves only
	// as far as both allow.
	upRecommendation, downRecommendation := desired, desired
	obsoleteCutoff := now.Add(-max(upWindow, downWindow))
	recs := n.recommendations[key]
	replaced := false
	for i, rec := range recs {
		if rec.timestamp.After(now.Add(-upWindow)) {
			upRecommendation = min(upRecommendation, rec.recommendation)
		}
		if rec.timestamp.After(now.Add(-downWindow)) {
			downRecommendation = max(downRecommendation, rec.recommendation)
		}
		if !replaced && rec.timestamp.Before(obsoleteCutoff) {
			recs[i] = timestampedRecommendation{desired, now}
			replaced = true
		}
	}
	if !replaced {
		n.recommendations[key] = append(recs, timestampedRecommendation{desired, now})
	}
	n.mu.Unlock()
	stabilized := min(max(currentReplicas, upRecommendation), downRecommendation)

	out := normalized{stabilized: stabilized,
		stabilization: fmt.Sprintf("the lowest recommendation of the last %s up, the highest of the last %s down", upWindow, downWindow)}
	switch {
	case stabilized == desired:
		out.conditions = append(out.conditions, condition{api.AbleToScale, api.ConditionTrue, "ReadyForNewScale", "recommended size matches current size"})
	case desired >= currentReplicas:
		out.conditions = append(out.conditions, condition{api.AbleToScale, api.ConditionTrue, "ScaleUpStabilized",
			"recent recommendations were lower than current one, applying the lowest recent recommendation"})
	default:
		out.conditions = append(out.conditions, condition{api.AbleToScale, api.ConditionTrue, "ScaleDownStabilized",
			"recent recommendations were higher than current one, applying the highest recent recommendation"})
	}

	replicas, reason, message := stabilized, "DesiredWithinRange", "the desired count is within the acceptable range"
	n.mu.Lock()
	switch {
	case stabilized > currentReplicas:
		limit := max(scaleUpLimit(currentReplicas, n.scaleUpEvents[key], n.scaleDownEvents[key], up, now), currentReplicas)
		allowed, r, m := maxReplicas, "TooManyReplicas", "the desired replica count is more than the maximum replica count"
		if allowed > limit {
			allowed, r, m = limit, "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate"
		}
		if stabilized > allowed {
			replicas, reason, message = allowed, r, m
		}
	case stabilized < currentReplicas:
		limit := min(scaleDownLimit(currentReplicas, n.scaleUpEvents[key], n.scaleDownEvents[key], down, now), currentReplicas)
		allowed, r, m := minReplicas, "TooFewReplicas", "the desired replica count is less than the minimum replica count"
		if allowed < limit {
			allowed, r, m = limit, "ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate"
		}
		if stabilized < allowed {
			replicas, reason, message = allowed, r, m
		}
	}
	n.mu.Unlock()
	out.replicas = replicas
	out.conditions = append(out.conditions, limitedCondition(replicas != stabilized, reason, message))
	if replicas != stabilized {
		out.limitedBy = reason
	}
	return out
}

// limitedCondition is ScalingLimited: True when a bound or policy changed
// the count.
func limitedCondition(limited bool, reason, message string) condition {
	status := api.ConditionFalse
	if limited {
		status = api.ConditionTrue
	}
	return condition{api.ScalingLimited, status, reason, message}
}

// scalingRules returns the scale-up and scale-down rules of behavior with
// upstream's defaults for what is left out; the scale-down window defaults
// to the controller's --horizontal-pod-autoscaler-downscale-stabilization.
func scalingRules(behavior *api.HorizontalPodAutoscalerBehavior, downscaleStabilization time.Duration) (up, down *api.HPAScalingRules) {
	up, down = api.DefaultHPAScaleUpRules(), api.DefaultHPAScaleDownRules()
	window := int32(downscaleStabilization / time.Second)
	down.StabilizationWindowSeconds = &window
	if behavior != nil {
		up = api.MergeHPAScalingRules(behavior.ScaleUp, up)
		down = api.MergeHPAScalingRules(behavior.ScaleDown, down)
	}
	return up, down
}

// changeInPeriod sums the replica changes of events within the last
// period before now.
func changeInPeriod(periodSeconds int32, events []timestampedScaleEvent, now time.Time) int32 {
	cutoff := now.Add(-time.Duration(periodSeconds) * time.Second)
	var change int32
	for _, e := range events {
		if e.timestamp.After(cutoff) && !e.outdated {
			change += e.replicaChange
		}
	}
	return change
}

// scaleUpLimit is upstream's calculateScaleUpLimitWithScalingRules: each
// policy allows, from the count at the start of its period, a number of
// pods or a percentage more; selectPolicy picks the largest (Max), the
// smallest (Min), or no change at all (Disabled).
func scaleUpLimit(currentReplicas int32, upEvents, downEvents []timestampedScaleEvent, rules *api.HPAScalingRules, now time.Time) int32 {
	selectPolicy := *rules.SelectPolicy // scalingRules always sets it
	if selectPolicy == api.DisabledPolicySelect {
		return currentReplicas
	}
	result := int32(math.MinInt32)
	pick := func(a, b int32) int32 { return max(a, b) }
	if selectPolicy == api.MinChangePolicySelect {
		result, pick = math.MaxInt32, func(a, b int32) int32 { return min(a, b) }
	}
	for _, policy := range rules.Policies {
		periodStart := currentReplicas - changeInPeriod(policy.PeriodSeconds, upEvents, now) + changeInPeriod(policy.PeriodSeconds, downEvents, now)
		var proposed int32
		switch policy.Type {
		case api.PodsScalingPolicy:
			proposed = periodStart + policy.Value
		case api.PercentScalingPolicy:
			proposed = int32(math.Ceil(float64(periodStart) * (1 + float64(policy.Value)/100)))
		}
		result = pick(result, proposed)
	}
	return result
}

// scaleDownLimit is upstream's calculateScaleDownLimitWithBehaviors, the
// mirror image of scaleUpLimit: Max selects the policy that removes the
// most pods, i.e. the lowest count.
func scaleDownLimit(currentReplicas int32, upEvents, downEvents []timestampedScaleEvent, rules *api.HPAScalingRules, now time.Time) int32 {
	selectPolicy := *rules.SelectPolicy // scalingRules always sets it
	if selectPolicy == api.DisabledPolicySelect {
		return currentReplicas
	}
	result := int32(math.MaxInt32)
	pick := func(a, b int32) int32 { return min(a, b) }
	if selectPolicy == api.MinChangePolicySelect {
		result, pick = math.MinInt32, func(a, b int32) int32 { return max(a, b) }
	}
	for _, policy := range rules.Policies {
		periodStart := currentReplicas - changeInPeriod(policy.PeriodSeconds, upEvents, now) + changeInPeriod(policy.PeriodSeconds, downEvents, now)
		var proposed int32
		switch policy.Type {
		case api.PodsScalingPolicy:
			proposed = periodStart - policy.Value
		case api.PercentScalingPolicy:
			proposed = int32(float64(periodStart) * (1 - float64(policy.Value)/100))
		}
		result = pick(result, proposed)
	}
	return result
}

// storeScaleEvent remembers a change the controller made, for the rate
// policies of an HPA with behavior; a change in one direction cancels the
// remembered changes in the other (upstream's markScaleEventsOutdated).
func (n *normalizer) storeScaleEvent(key string, behavior *api.HorizontalPodAutoscalerBehavior, previous, next int32, now time.Time) {
	if behavior == nil {
		return
	}
	up, down := scalingRules(behavior, n.downscaleStabilization)
	n.mu.Lock()
	defer n.mu.Unlock()
	if next > previous {
		n.scaleUpEvents[key] = addEvent(n.scaleUpEvents[key], longestPeriod(up), next-previous, now)
		markOutdated(n.scaleDownEvents[key])
	} else {
		n.scaleDownEvents[key] = addEvent(n.scaleDownEvents[key], longestPeriod(down), previous-next, now)
		markOutdated(n.scaleUpEvents[key])
	}
}

// addEvent appends an event, reusing the slot of one older than the
// longest policy period (or one outdated) when there is one.
func addEvent(events []timestampedScaleEvent, longest int32, change int32, now time.Time) []timestampedScaleEvent {
	cutoff := now.Add(-time.Duration(longest) * time.Second)
	e := timestampedScaleEvent{replicaChange: change, timestamp: now}
	for i := range events {
		if events[i].outdated || events[i].timestamp.Before(cutoff) {
			events[i] = e
			return events
		}
	}
	return append(events, e)
}

func markOutdated(events []timestampedScaleEvent) {
	for i := range events {
		events[i].outdated = true
	}
}

func longestPeriod(rules *api.HPAScalingRules) int32 {
	var longest int32
	for _, p := range rules.Policies {
		longest = max(longest, p.PeriodSeconds)
	}
	return longest
}
