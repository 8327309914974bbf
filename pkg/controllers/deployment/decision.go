package deployment

// This file turns what one sync decided into the decision record `ctl why
// deploy/NAME` prints, e.g.
//
//	replicas 10, maxSurge 25% → 3 (rounded up), maxUnavailable 25% → 2 (rounded down): new ReplicaSet 3 → 5, old 8
//	  new ReplicaSet web-7d9c: max total = replicas 10 + maxSurge 3 = 13, counted 11 → grows by min(13 − 11, 10 − 3) = 2: 3 → 5
//
// The numbers are the ones the sync computed (the same helpers), gathered
// while it runs and recorded once at its end through c.decisions. With the
// debug API off c.decisions is nil, startDecision returns nil, and every
// method here returns at once.

import (
	"fmt"
	"strconv"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// The upstream files whose behaviour the records mirror.
const (
	sourceRolling  = "pkg/controller/deployment/rolling.go"
	sourceRecreate = "pkg/controller/deployment/recreate.go"
	sourceSync     = "pkg/controller/deployment/sync.go"
	sourceProgress = "pkg/controller/deployment/progress.go"
)

// rolloutDecision is what one sync decided about a Deployment's
// ReplicaSets: the new ReplicaSet's size before and after, the old ones'
// total before and after, and a line of arithmetic for each step.
type rolloutDecision struct {
	d      *api.Deployment
	source string
	// newName is the new ReplicaSet ("" while there is none);
	// newFrom → newTo its spec.replicas before and after the sync.
	newName        string
	newFrom, newTo int32
	// oldFrom → oldTo is the sum of the old ReplicaSets' spec.replicas.
	oldFrom, oldTo int32
	lines          []string
}

// startDecision begins the record of a sync of d that found rsList, or
// returns nil when nobody records decisions.
func (c *Controller) startDecision(d *api.Deployment, rsList []*api.ReplicaSet, source string) *rolloutDecision {
	if !c.decisions.Enabled() {
		return nil
	}
	r := &rolloutDecision{d: d, source: source}
	if newRS := findNewReplicaSet(d, rsList); newRS != nil {
		r.newName, r.newFrom = newRS.Name, specReplicas(newRS)
	}
	r.oldFrom = sumReplicaSets(findOldReplicaSets(d, rsList), specReplicas)
	r.newTo, r.oldTo = r.newFrom, r.oldFrom
	return r
}

// line adds a row of explanation.
func (r *rolloutDecision) line(format string, args ...any) {
	if r == nil {
		return
	}
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
}

// created notes that the sync created the new ReplicaSet rs, for the
// reason why.
func (r *rolloutDecision) created(rs *api.ReplicaSet, why string) {
	if r == nil {
		return
	}
	r.newName, r.newFrom, r.newTo = rs.Name, 0, specReplicas(rs)
	r.line("created new ReplicaSet %s with %d: %s", rs.Name, specReplicas(rs), why)
}

// createdRolling notes the creation of newRS by a rolling update, if this
// sync created it: sized min(max total − pods counted, replicas), as
// newReplicaSetReplicas.
func (r *rolloutDecision) createdRolling(newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet) {
	if r == nil || newRS == nil || r.newName != "" {
		return
	}
	desired := replicas(r.d.Spec.Replicas)
	r.created(newRS, fmt.Sprintf("min(max total %d − %d counted, replicas %d)", desired+maxSurge(r.d), podsCounted(oldRSs), desired))
}

// scaled notes that the sync resized rs, the new ReplicaSet or an old one,
// to size to.
func (r *rolloutDecision) scaled(rs *api.ReplicaSet, to int32) {
	if rs.Name == r.newName {
		r.newTo = to
		return
	}
	r.oldTo -= specReplicas(rs) - to
}

// The steps below each note one thing a sync did, in the words and
// numbers of the function that decided it; each is a no-op without a
// journal, and its arguments are values the sync already has.

// newTooBig: the new ReplicaSet had more than replicas and went down at
// once (reconcileNewReplicaSet).
func (r *rolloutDecision) newTooBig(newRS *api.ReplicaSet, desired int32) {
	if r == nil {
		return
	}
	r.line("new ReplicaSet %s has more than replicas %d: %d → %d at once", newRS.Name, desired, specReplicas(newRS), desired)
	r.scaled(newRS, desired)
}

// newScaleUp: the room under replicas + maxSurge and the new ReplicaSet's
// size from it (newReplicaSetReplicas), count being that size.
func (r *rolloutDecision) newScaleUp(allRSs []*api.ReplicaSet, newRS *api.ReplicaSet, count int32) {
	if r == nil {
		return
	}
	desired, surge := replicas(r.d.Spec.Replicas), maxSurge(r.d)
	maxTotal, counted, from := desired+surge, podsCounted(allRSs), specReplicas(newRS)
	if count == from {
		r.line("new ReplicaSet %s cannot grow: max total = replicas %d + maxSurge %d = %d, counted %d",
			newRS.Name, desired, surge, maxTotal, counted)
		return
	}
	r.line("new ReplicaSet %s: max total = replicas %d + maxSurge %d = %d, counted %d → grows by min(%d − %d, %d − %d) = %d: %d → %d",
		newRS.Name, desired, surge, maxTotal, counted, maxTotal, counted, desired, from, count-from, from, count)
	r.scaled(newRS, count)
}

// oldBudget: how many old pods this step may remove (maxScaledDown).
func (r *rolloutDecision) oldBudget(allRSs []*api.ReplicaSet, newRS *api.ReplicaSet, budget int32) {
	if r == nil {
		return
	}
	desired, unavailable := replicas(r.d.Spec.Replicas), maxUnavailable(r.d)
	minAvailable := desired - unavailable
	r.line("old ReplicaSets: min available = replicas %d − maxUnavailable %d = %d; may remove %d asked − %d min available − %d new not available = %d",
		desired, unavailable, minAvailable, sumReplicaSets(allRSs, specReplicas), minAvailable, newUnavailable(newRS), budget)
}

// oldUnhealthyRemoved: an old ReplicaSet lost its unavailable pods first
// (unhealthyCleanupSteps).
func (r *rolloutDecision) oldUnhealthyRemoved(rs *api.ReplicaSet, to int32) {
	if r == nil {
		return
	}
	size := specReplicas(rs)
	r.line("old ReplicaSet %s: %d of %d not available, removed first (it costs no availability): %d → %d",
		rs.Name, size-rs.Status.AvailableReplicas, size, size, to)
	r.scaled(rs, to)
}

// oldScaledDown: an old ReplicaSet gave up available pods above the
// minimum (rollingScaleDownSteps over allRSs).
func (r *rolloutDecision) oldScaledDown(allRSs []*api.ReplicaSet, rs *api.ReplicaSet, to int32) {
	if r == nil {
		return
	}
	minAvailable := replicas(r.d.Spec.Replicas) - maxUnavailable(r.d)
	available := availableCounted(allRSs)
	r.line("old ReplicaSet %s: %d available of all ReplicaSets, %d above min %d (oldest first): %d → %d",
		rs.Name, available, available-minAvailable, minAvailable, specReplicas(rs), to)
	r.scaled(rs, to)
}

// oldToZero: Recreate emptied an old ReplicaSet.
func (r *rolloutDecision) oldToZero(rs *api.ReplicaSet) {
	if r == nil {
		return
	}
	r.line("old ReplicaSet %s: %d → 0 before anything new starts", rs.Name, specReplicas(rs))
	r.scaled(rs, 0)
}

// waitingForOldPods: Recreate waits until no old pod is left
// (oldPodsRunning).
func (r *rolloutDecision) waitingForOldPods(newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet, podMap map[string][]*api.Pod) {
	if r == nil {
		return
	}
	r.line("waiting for the old pods to go: %d still reported by the old ReplicaSets, %d in the pod cache",
		sumReplicaSets(oldRSs, func(rs *api.ReplicaSet) int32 { return rs.Status.Replicas }), countOldPods(newRS, podMap))
}

// newRecreated: Recreate gave the new ReplicaSet all of replicas.
func (r *rolloutDecision) newRecreated(newRS *api.ReplicaSet, desired int32) {
	if r == nil {
		return
	}
	r.line("every old pod is gone: new ReplicaSet %s to replicas %d", newRS.Name, desired)
	r.scaled(newRS, desired)
}

// onlyActiveScaled: outside a rollout the one active ReplicaSet takes
// spec.replicas (scale).
func (r *rolloutDecision) onlyActiveScaled(rs *api.ReplicaSet, desired int32) {
	if r == nil {
		return
	}
	r.line("ReplicaSet %s is the only active one: it takes all of replicas, %d → %d", rs.Name, specReplicas(rs), desired)
	r.scaled(rs, desired)
}

// saturatedOldToZero: the new ReplicaSet runs everything, so an old one
// goes to zero (scale).
func (r *rolloutDecision) saturatedOldToZero(newRS, old *api.ReplicaSet) {
	if r == nil {
		return
	}
	r.line("new ReplicaSet %s runs all %d replicas, all available: old ReplicaSet %s %d → 0",
		newRS.Name, replicas(r.d.Spec.Replicas), old.Name, specReplicas(old))
	r.scaled(old, 0)
}

// proportional: a size change spread over the active ReplicaSets
// (proportionalSizes).
func (r *rolloutDecision) proportional(active []*api.ReplicaSet) {
	if r == nil {
		return
	}
	desired, surge := replicas(r.d.Spec.Replicas), maxSurge(r.d)
	allowed := int32(0)
	if desired > 0 {
		allowed = desired + surge
	}
	asked := sumReplicaSets(active, specReplicas)
	r.line("proportional scaling: allowed = replicas %d + maxSurge %d = %d, the %d active ReplicaSets ask for %d: %+d spread by size, largest first",
		desired, surge, allowed, len(active), asked, allowed-asked)
}

// proportionalStep: one ReplicaSet's share of a proportional change.
func (r *rolloutDecision) proportionalStep(rs *api.ReplicaSet, to int32) {
	if r == nil {
		return
	}
	r.line("ReplicaSet %s: %d → %d", rs.Name, specReplicas(rs), to)
	r.scaled(rs, to)
}

// changed reports whether the sync resized any ReplicaSet.
func (r *rolloutDecision) changed() bool {
	return r.newFrom != r.newTo || r.oldFrom != r.oldTo
}

// steps says what the sync did to the ReplicaSets: "new ReplicaSet 3 → 5,
// old 8" (a size with no arrow did not change).
func (r *rolloutDecision) steps() string {
	newPart := "no new ReplicaSet yet"
	if r.newName != "" {
		newPart = "new ReplicaSet " + fromTo(r.newFrom, r.newTo)
	}
	return newPart + ", old " + fromTo(r.oldFrom, r.oldTo)
}

// fromTo prints "3 → 5", or "5" when nothing changed.
func fromTo(from, to int32) string {
	if from == to {
		return strconv.Itoa(int(from))
	}
	return fmt.Sprintf("%d → %d", from, to)
}

// values are the record's numbers by name, for tools and tests.
func (r *rolloutDecision) values() map[string]string {
	d := r.d
	v := map[string]string{
		"replicas":        strconv.Itoa(int(replicas(d.Spec.Replicas))),
		"strategy":        string(d.Spec.Strategy.Type),
		"newReplicaSet":   r.newName,
		"newReplicasFrom": strconv.Itoa(int(r.newFrom)),
		"newReplicasTo":   strconv.Itoa(int(r.newTo)),
		"oldReplicasFrom": strconv.Itoa(int(r.oldFrom)),
		"oldReplicasTo":   strconv.Itoa(int(r.oldTo)),
	}
	if isRollingUpdate(d) {
		v["maxSurge"] = strconv.Itoa(int(maxSurge(d)))
		v["maxUnavailable"] = strconv.Itoa(int(maxUnavailable(d)))
	}
	return v
}

// record writes r as c's decision about r.d, its message made of the
// strategy's parameters (fenceposts for RollingUpdate), the steps, and
// what the status says now (complete, timed out, paused).
func (c *Controller) record(r *rolloutDecision) {
	if r == nil {
		return
	}
	d := r.d
	source := r.source
	var message string
	switch {
	case d.Spec.Paused:
		message = fmt.Sprintf("paused, replicas %d: only scaled, no rollout: %s", replicas(d.Spec.Replicas), r.steps())
	case r.source == sourceSync:
		message = fmt.Sprintf("scaled to replicas %d without a rollout step: %s", replicas(d.Spec.Replicas), r.steps())
	case isRollingUpdate(d):
		message = fenceposts(d) + ": " + r.steps()
	default:
		message = fmt.Sprintf("Recreate, replicas %d: scale old to 0, wait, then new to %d: %s",
			replicas(d.Spec.Replicas), replicas(d.Spec.Replicas), r.steps())
	}
	progress := progressVerdict(d)
	if progress != "" {
		message += "; " + progress
		if !r.changed() {
			source = sourceProgress
		}
	}
	if !r.changed() && progress == "" && len(r.lines) == 0 && r.source != sourceSync && !d.Spec.Paused {
		r.line("no step this sync: %d of %d replicas updated, %d available; waiting for the ReplicaSets' pods",
			d.Status.UpdatedReplicas, replicas(d.Spec.Replicas), d.Status.AvailableReplicas)
	}
	c.decisions.Record(&d.ObjectMeta, debug.Decision{Message: message, Values: r.values(), Lines: r.lines, Source: source})
}

// progressVerdict names the Progressing condition's conclusions the
// controller reaches itself: the rollout completed or missed its deadline.
// Other reasons (a ReplicaSet was created or updated) say nothing the
// steps do not.
func progressVerdict(d *api.Deployment) string {
	cond := getCondition(d.Status, api.DeploymentProgressing)
	switch {
	case cond == nil:
		return ""
	case cond.Reason == reasonNewReplicaSetAvailable:
		return fmt.Sprintf("rollout complete: %d of %d updated and available", d.Status.AvailableReplicas, replicas(d.Spec.Replicas))
	case cond.Reason == reasonProgressDeadlineExceeded:
		return fmt.Sprintf("progress deadline exceeded: no progress for %ds", *d.Spec.ProgressDeadlineSeconds)
	}
	return ""
}

// fenceposts describes d's resolved maxSurge and maxUnavailable with their
// rounding: "replicas 10, maxSurge 25% → 3 (rounded up), maxUnavailable
// 25% → 2 (rounded down)". The numbers are maxSurge(d) and
// maxUnavailable(d), the ones every step uses.
func fenceposts(d *api.Deployment) string {
	desired := replicas(d.Spec.Replicas)
	surgeValue, unavailableValue := rollingParams(d)
	surge, unavailable := maxSurge(d), maxUnavailable(d)
	unavailableWords := fencepost(unavailableValue, unavailable, "rounded down")
	rawSurge, errSurge := api.ScaledValueFromIntOrPercent(orZero(surgeValue), int(desired), true)
	rawUnavailable, errUnavailable := api.ScaledValueFromIntOrPercent(orZero(unavailableValue), int(desired), false)
	if errSurge == nil && errUnavailable == nil {
		switch {
		case rawSurge == 0 && rawUnavailable == 0 && unavailable == 1:
			unavailableWords = fmt.Sprintf("%s → 1 (rounded down to 0, raised to 1: with both 0 no pod could ever move)", orZero(unavailableValue))
		case int32(rawUnavailable) > unavailable:
			unavailableWords = fmt.Sprintf("%s → %d (at most replicas)", orZero(unavailableValue), unavailable)
		}
	}
	return fmt.Sprintf("replicas %d, maxSurge %s, maxUnavailable %s", desired, fencepost(surgeValue, surge, "rounded up"), unavailableWords)
}

// fencepost prints one parameter: "25% → 3 (rounded up)" for a percentage,
// "2" for a number.
func fencepost(value *api.IntOrString, resolved int32, rounding string) string {
	v := orZero(value)
	if v.Type == api.IntOrStringString && strings.HasSuffix(v.StrVal, "%") {
		return fmt.Sprintf("%s → %d (%s)", v.StrVal, resolved, rounding)
	}
	return strconv.Itoa(int(resolved))
}

// orZero returns v, or 0 for an unset parameter.
func orZero(v *api.IntOrString) *api.IntOrString {
	if v == nil {
		zero := api.FromInt(0)
		return &zero
	}
	return v
}
