package deployment

// This file resolves a RollingUpdate's two fenceposts, maxSurge and
// maxUnavailable, from "1" or "25%" into pod counts. Every rollout step
// and the Available condition are computed from them.

import (
	"fmt"

	"kplane/pkg/api"
)

// resolveFenceposts turns maxSurge and maxUnavailable into pod counts for
// desired replicas, as upstream's ResolveFenceposts: a percentage of surge
// rounds UP (25% of 10 is 3: never stall for lack of room), a percentage
// of unavailability rounds DOWN (25% of 10 is 2: never drop below the
// promise). A nil value counts as 0. If both come out 0 — which validation
// only allows through rounding, e.g. "1%" of 10 — maxUnavailable becomes 1,
// otherwise the rollout could never move a single pod.
func resolveFenceposts(maxSurge, maxUnavailable *api.IntOrString, desired int32) (surge, unavailable int32, err error) {
	zero := api.FromInt(0)
	if maxSurge == nil {
		maxSurge = &zero
	}
	if maxUnavailable == nil {
		maxUnavailable = &zero
	}
	s, err := api.ScaledValueFromIntOrPercent(maxSurge, int(desired), true)
	if err != nil {
		return 0, 0, fmt.Errorf("maxSurge: %w", err)
	}
	u, err := api.ScaledValueFromIntOrPercent(maxUnavailable, int(desired), false)
	if err != nil {
		return 0, 0, fmt.Errorf("maxUnavailable: %w", err)
	}
	if s == 0 && u == 0 {
		u = 1
	}
	return int32(s), int32(u), nil
}

// isRollingUpdate reports whether d rolls out with the RollingUpdate strategy.
func isRollingUpdate(d *api.Deployment) bool {
	return d.Spec.Strategy.Type == api.RollingUpdateDeploymentStrategyType
}

// rollingParams returns d's rollingUpdate maxSurge and maxUnavailable, nil
// when unset.
func rollingParams(d *api.Deployment) (maxSurge, maxUnavailable *api.IntOrString) {
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		return ru.MaxSurge, ru.MaxUnavailable
	}
	return nil, nil
}

// maxSurge is how many pods above spec.replicas a rolling update may run;
// 0 for Recreate. Validation rejects values that do not resolve, so an
// error here counts as 0.
func maxSurge(d *api.Deployment) int32 {
	if !isRollingUpdate(d) {
		return 0
	}
	s, u := rollingParams(d)
	surge, _, _ := resolveFenceposts(s, u, replicas(d.Spec.Replicas))
	return surge
}

// maxUnavailable is how many of spec.replicas may be unavailable during a
// rolling update, never more than spec.replicas; 0 for Recreate and for a
// Deployment scaled to zero.
func maxUnavailable(d *api.Deployment) int32 {
	desired := replicas(d.Spec.Replicas)
	if !isRollingUpdate(d) || desired == 0 {
		return 0
	}
	s, u := rollingParams(d)
	_, unavailable, _ := resolveFenceposts(s, u, desired)
	return min(unavailable, desired)
}
