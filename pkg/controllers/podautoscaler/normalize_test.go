package podautoscaler

import (
	"testing"
	"time"

	"kplane/pkg/api"
)

func ptr[T any](v T) *T { return &v }

// step is one sync of a normalization scenario: at offset, the metrics
// propose desired with current replicas; the result must be want, limited
// (ScalingLimited's reason) by wantReason.
type step struct {
	offset     time.Duration
	current    int32
	desired    int32
	want       int32
	wantReason string
}

// runSteps runs steps through normalize in order, storing each change as
// the controller does.
func runSteps(t *testing.T, n *normalizer, behavior *api.HorizontalPodAutoscalerBehavior, minReplicas, maxReplicas int32, steps []step) {
	t.Helper()
	n.recordInitialRecommendation("default/web", steps[0].current, t0)
	for i, s := range steps {
		now := t0.Add(s.offset)
		var got normalized
		if behavior == nil {
			got = n.normalizeLegacy("default/web", s.current, s.desired, minReplicas, maxReplicas, now)
		} else {
			got = n.normalizeWithBehavior("default/web", behavior, s.current, s.desired, minReplicas, maxReplicas, now)
		}
		limited := got.conditions[len(got.conditions)-1]
		if got.replicas != s.want || limited.reason != s.wantReason {
			t.Errorf("step %d (+%v, current %d, desired %d): got %d (%s), want %d (%s)",
				i, s.offset, s.current, s.desired, got.replicas, limited.reason, s.want, s.wantReason)
		}
		if got.replicas != s.current {
			n.storeScaleEvent("default/web", behavior, s.current, got.replicas, now)
		}
	}
}

// Without behavior, upstream's legacy rules: scale down only to the
// highest recommendation of the last 5 minutes; scale up at most to
// max(2 × current, 4) per sync.
func TestNormalizeLegacyStabilizesScaleDown(t *testing.T) {
	runSteps(t, newNormalizer(5*time.Minute), nil, 1, 10, []step{
		{0, 2, 6, 4, "ScaleUpLimit"},
		{15 * time.Second, 4, 6, 6, "DesiredWithinRange"},
		{time.Minute, 6, 2, 6, "DesiredWithinRange"},                    // held: 6 was recommended within 5m
		{5*time.Minute + 16*time.Second, 6, 2, 2, "DesiredWithinRange"}, // the window has passed
		{6 * time.Minute, 2, 20, 4, "ScaleUpLimit"},
		{7 * time.Minute, 4, 20, 8, "ScaleUpLimit"},
		{8 * time.Minute, 8, 20, 10, "TooManyReplicas"},
	})
}

// TestNormalizeLegacyMinReplicas: below min is TooFewReplicas.
func TestNormalizeLegacyMinReplicas(t *testing.T) {
	runSteps(t, newNormalizer(time.Second), nil, 3, 10, []step{
		{time.Minute, 5, 1, 3, "TooFewReplicas"},
	})
}

// With the default behavior (scale up: 0 s window, Max of 100% and 4 pods
// per 15 s; scale down: 300 s window, 100% per 15 s).
func TestNormalizeDefaultBehavior(t *testing.T) {
	behavior := &api.HorizontalPodAutoscalerBehavior{ScaleUp: api.DefaultHPAScaleUpRules(), ScaleDown: api.DefaultHPAScaleDownRules()}
	runSteps(t, newNormalizer(5*time.Minute), behavior, 1, 100, []step{
		// 4 pods/15 s beats 100% of 1: 1 → 5.
		{0, 1, 30, 5, "ScaleUpLimit"},
		// Within the same 15 s nothing more may be added.
		{5 * time.Second, 5, 30, 5, "ScaleUpLimit"},
		// A new period: 100% of 5 = 10.
		{16 * time.Second, 5, 30, 10, "ScaleUpLimit"},
		{32 * time.Second, 10, 30, 20, "ScaleUpLimit"},
		{48 * time.Second, 20, 30, 30, "DesiredWithinRange"},
		// Load drops: the down window holds 30 for 300 s.
		{2 * time.Minute, 30, 3, 30, "DesiredWithinRange"},
		{5*time.Minute + 49*time.Second, 30, 3, 3, "DesiredWithinRange"},
	})
}

// TestNormalizeScaleDownPolicies: a scale-down policy of 1 pod per 60 s
// removes one pod a minute, the Min of two policies picks the smaller step,
// and Disabled forbids the direction.
func TestNormalizeScaleDownPolicies(t *testing.T) {
	onePodPerMinute := &api.HorizontalPodAutoscalerBehavior{ScaleUp: api.DefaultHPAScaleUpRules(), ScaleDown: &api.HPAScalingRules{
		StabilizationWindowSeconds: ptr[int32](0), SelectPolicy: ptr(api.MaxChangePolicySelect),
		Policies: []api.HPAScalingPolicy{{Type: api.PodsScalingPolicy, Value: 1, PeriodSeconds: 60}}}}
	runSteps(t, newNormalizer(5*time.Minute), onePodPerMinute, 1, 10, []step{
		{time.Second, 5, 1, 4, "ScaleDownLimit"},
		{30 * time.Second, 4, 1, 4, "ScaleDownLimit"},
		{62 * time.Second, 4, 1, 3, "ScaleDownLimit"},
	})

	minOfTwo := &api.HorizontalPodAutoscalerBehavior{ScaleUp: &api.HPAScalingRules{
		StabilizationWindowSeconds: ptr[int32](0), SelectPolicy: ptr(api.MinChangePolicySelect),
		Policies: []api.HPAScalingPolicy{{Type: api.PodsScalingPolicy, Value: 4, PeriodSeconds: 15}, {Type: api.PercentScalingPolicy, Value: 50, PeriodSeconds: 15}}},
		ScaleDown: api.DefaultHPAScaleDownRules()}
	runSteps(t, newNormalizer(5*time.Minute), minOfTwo, 1, 100, []step{
		{time.Second, 10, 40, 14, "ScaleUpLimit"}, // min(10+4, ceil(10 × 1.5) = 15)
	})

	disabled := &api.HorizontalPodAutoscalerBehavior{ScaleUp: api.DefaultHPAScaleUpRules(), ScaleDown: &api.HPAScalingRules{
		StabilizationWindowSeconds: ptr[int32](0), SelectPolicy: ptr(api.DisabledPolicySelect), Policies: api.DefaultHPAScaleDownRules().Policies}}
	runSteps(t, newNormalizer(5*time.Minute), disabled, 1, 100, []step{
		{time.Second, 10, 2, 10, "ScaleDownLimit"},
	})
}

// TestNormalizeScaleUpStabilization: with a scale-up window, the lowest
// recommendation of the window is applied.
func TestNormalizeScaleUpStabilization(t *testing.T) {
	behavior := &api.HorizontalPodAutoscalerBehavior{ScaleUp: &api.HPAScalingRules{StabilizationWindowSeconds: ptr[int32](60),
		SelectPolicy: ptr(api.MaxChangePolicySelect), Policies: api.DefaultHPAScaleUpRules().Policies}, ScaleDown: api.DefaultHPAScaleDownRules()}
	n := newNormalizer(5 * time.Minute)
	n.recordInitialRecommendation("default/web", 2, t0)
	got := n.normalizeWithBehavior("default/web", behavior, 2, 6, 1, 10, t0.Add(10*time.Second))
	if got.replicas != 2 || got.conditions[0].reason != "ScaleUpStabilized" {
		t.Errorf("within the up window: %d %+v, want 2 ScaleUpStabilized", got.replicas, got.conditions)
	}
	got = n.normalizeWithBehavior("default/web", behavior, 2, 6, 1, 10, t0.Add(75*time.Second))
	if got.replicas != 6 || got.conditions[0].reason != "ReadyForNewScale" {
		t.Errorf("after the up window: %d %+v, want 6 ReadyForNewScale", got.replicas, got.conditions)
	}
}
