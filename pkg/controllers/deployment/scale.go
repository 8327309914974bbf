package deployment

// This file scales a Deployment without rolling it out: `kubectl scale`,
// an HPA, or any spec.replicas change while paused. Outside a rollout one
// ReplicaSet is active and simply takes the new size. In the middle of a
// rolling update several are, and the change is spread over them in
// proportion to their sizes, so that the rollout's progress is neither
// lost nor rushed: 10 replicas split 6 old / 4 new, scaled to 20, become
// about 12 old / 8 new.

import (
	"context"
	"math"
	"slices"

	"kplane/pkg/api"
)

// scale resizes d's ReplicaSets for spec.replicas, as upstream's scale:
//
//   - at most one active ReplicaSet (or none): it, or the newest one, gets
//     all of spec.replicas;
//   - the new ReplicaSet is saturated (has all replicas, all available):
//     the old ones go to zero;
//   - otherwise, for RollingUpdate, proportional scaling (proportionalSizes).
func (c *Controller) scale(ctx context.Context, d *api.Deployment, newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet, dec *rolloutDecision) error {
	desired := replicas(d.Spec.Replicas)
	if only := findActiveOrLatest(newRS, oldRSs); only != nil {
		if specReplicas(only) == desired {
			return nil
		}
		if _, _, err := c.scaleReplicaSetAndRecordEvent(ctx, only, desired, d); err != nil {
			return err
		}
		dec.onlyActiveScaled(only, desired)
		return nil
	}

	if isSaturated(d, newRS) {
		for _, old := range filterActive(oldRSs) {
			if _, _, err := c.scaleReplicaSetAndRecordEvent(ctx, old, 0, d); err != nil {
				return err
			}
			dec.saturatedOldToZero(newRS, old)
		}
		return nil
	}

	if !isRollingUpdate(d) {
		return nil
	}
	active := filterActive(append(slices.Clone(oldRSs), newRS))
	ordered, sizes, direction := proportionalSizes(d, active)
	if direction != "" {
		dec.proportional(active)
	}
	for i, rs := range ordered {
		// Also rewrites the desired/max-replicas annotations of the
		// ReplicaSets whose size does not change, so the next sync does
		// not see a scaling event again.
		if _, _, err := c.scaleReplicaSet(ctx, rs, sizes[i], d, direction); err != nil {
			return err
		}
		if sizes[i] != specReplicas(rs) {
			dec.proportionalStep(rs, sizes[i])
		}
	}
	return nil
}

// proportionalSizes spreads a change of a Deployment's size over its
// active ReplicaSets, as upstream's proportional scaling. The total the
// ReplicaSets may hold is replicas + maxSurge (0 for a Deployment scaled to
// zero); the difference to what they hold now is distributed:
//
//   - each ReplicaSet gets its share, round(size × newTotal / oldTotal) −
//     size, where oldTotal is the max-replicas annotation it was sized
//     under (getProportion / getReplicaSetFraction), capped so the running
//     sum never passes the difference;
//   - whatever rounding left over goes to the first ReplicaSet, the largest.
//
// The ReplicaSets are returned in the order they were processed: largest
// first, and among equal sizes the newest first when growing, the oldest
// first when shrinking. direction is "up", "down" or "" (no change).
func proportionalSizes(d *api.Deployment, active []*api.ReplicaSet) (ordered []*api.ReplicaSet, sizes []int32, direction string) {
	desired := replicas(d.Spec.Replicas)
	var allowed int32
	if desired > 0 {
		allowed = desired + maxSurge(d)
	}
	toAdd := allowed - sumReplicaSets(active, specReplicas)

	ordered = slices.Clone(active)
	switch {
	case toAdd > 0:
		direction = "up"
		slices.SortStableFunc(ordered, func(a, b *api.ReplicaSet) int { return bySizeThen(a, b, -compareCreation(a, b)) })
	case toAdd < 0:
		direction = "down"
		slices.SortStableFunc(ordered, func(a, b *api.ReplicaSet) int { return bySizeThen(a, b, compareCreation(a, b)) })
	}

	sizes = make([]int32, len(ordered))
	var added int32
	for i, rs := range ordered {
		sizes[i] = specReplicas(rs)
		if toAdd != 0 {
			p := proportion(rs, d, toAdd, added)
			sizes[i] += p
			added += p
		}
	}
	if toAdd != 0 && len(sizes) > 0 {
		sizes[0] = max(sizes[0]+toAdd-added, 0)
	}
	return ordered, sizes, direction
}

// bySizeThen orders larger ReplicaSets first and falls back to tie.
func bySizeThen(a, b *api.ReplicaSet, tie int) int {
	sa, sb := specReplicas(a), specReplicas(b)
	switch {
	case sa > sb:
		return -1
	case sa < sb:
		return 1
	}
	return tie
}

// proportion is rs's share of toAdd given that added has been handed out
// already (upstream's GetProportion): its fraction, but never more (when
// growing) or less (when shrinking) than what remains.
func proportion(rs *api.ReplicaSet, d *api.Deployment, toAdd, added int32) int32 {
	if specReplicas(rs) == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	fraction := replicaSetFraction(rs, d)
	remaining := toAdd - added
	if toAdd > 0 {
		return min(fraction, remaining)
	}
	return max(fraction, remaining)
}

// replicaSetFraction is how many replicas rs gains (or loses) if it keeps
// its share of the Deployment: its size scaled by (replicas + maxSurge) /
// the max-replicas annotation it was last sized under. Without that
// annotation the Deployment's current status.replicas stands in, as
// upstream. Scaling the Deployment to zero takes everything.
func replicaSetFraction(rs *api.ReplicaSet, d *api.Deployment) int32 {
	size := specReplicas(rs)
	desired := replicas(d.Spec.Replicas)
	if desired == 0 {
		return -size
	}
	newTotal := desired + maxSurge(d)
	oldTotal, ok := replicasAnnotation(rs, api.DeploymentMaxReplicasAnnotation)
	if !ok || oldTotal == 0 {
		oldTotal = d.Status.Replicas
	}
	if oldTotal <= 0 {
		// No basis for a proportion; the leftover step sizes the largest.
		return 0
	}
	return int32(math.Round(float64(size)*float64(newTotal)/float64(oldTotal))) - size
}

// findActiveOrLatest returns the one ReplicaSet that should carry all the
// replicas when at most one is active: the active one, or, when none is,
// the new one or else the newest old one. It returns nil when several are
// active, which calls for proportional scaling.
func findActiveOrLatest(newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet) *api.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	newestFirst := slices.Clone(oldRSs)
	slices.SortStableFunc(newestFirst, func(a, b *api.ReplicaSet) int { return -compareCreation(a, b) })
	active := filterActive(append(newestFirst, newRS))
	switch len(active) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return newestFirst[0]
	case 1:
		return active[0]
	}
	return nil
}

// isSaturated reports whether the new ReplicaSet runs the whole Deployment:
// sized for spec.replicas (by spec and by its desired-replicas annotation)
// with every pod available.
func isSaturated(d *api.Deployment, rs *api.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	desired, ok := replicasAnnotation(rs, api.DeploymentDesiredReplicasAnnotation)
	want := replicas(d.Spec.Replicas)
	return ok && specReplicas(rs) == want && desired == want && rs.Status.AvailableReplicas == want
}
