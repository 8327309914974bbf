package persistentvolume

// This file records, for the debug journal (what `ctl why pvc/x` and `ctl
// why pv/x` show), what the binder decided about a claim that is not
// bound yet — which volume it binds to and how every volume measured up,
// or why it stays Pending — and about a released volume: what its reclaim
// policy does. A bound claim and volume that stay bound record nothing.

import (
	"fmt"
	"slices"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file whose syncUnboundClaim and
// reclaimVolume these mirror.
const decisionSource = "pkg/controller/volume/persistentvolume/pv_controller.go"

// recordClaim records what the sync of an unbound claim decided, with one
// line per volume saying whether it fits, e.g. "claim wants 1Gi
// [ReadWriteOnce], class "": 2 of 3 volumes fit → bind to pv1 (the closest
// fit)". The action is format with args, formatted only when recorded.
func (c *Controller) recordClaim(claim *api.PersistentVolumeClaim, format string, args ...any) {
	if !c.claimDecisions.Enabled() {
		return
	}
	action := fmt.Sprintf(format, args...)
	volumes, _ := c.volumeLister.List(labels.Everything()) // only for the lines
	slices.SortFunc(volumes, func(a, b *api.PersistentVolume) int { return strings.Compare(a.Name, b.Name) })
	fit := 0
	lines := make([]string, 0, len(volumes))
	for _, pv := range volumes {
		verdict := volumeVerdict(pv, claim)
		if verdict == "fits" {
			fit++
		}
		size := pv.Spec.Capacity[api.ResourceStorage]
		lines = append(lines, fmt.Sprintf("%s (%s %v class %q): %s", pv.Name, size.String(), pv.Spec.AccessModes, volumeClass(pv), verdict))
	}
	requested := claim.Spec.Resources.Requests[api.ResourceStorage]
	c.claimDecisions.Record(&claim.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("claim wants %s %v, class %q: %d of %d volumes fit → %s",
			requested.String(), claim.Spec.AccessModes, claimClass(claim), fit, len(volumes), action),
		Values: map[string]string{
			"requested": requested.String(),
			"volumes":   fmt.Sprint(len(volumes)),
			"fit":       fmt.Sprint(fit),
		},
		Lines:  lines,
		Source: decisionSource,
	})
}

// volumeVerdict says whether pv could serve claim, as findBestVolume
// judges it: "fits", or why not.
func volumeVerdict(pv *api.PersistentVolume, claim *api.PersistentVolumeClaim) string {
	if isVolumeBoundToClaim(pv, claim) {
		return "fits (pre-bound to this claim)"
	}
	if pv.Spec.ClaimRef != nil {
		return "claimed by " + claimRefKey(pv.Spec.ClaimRef)
	}
	if reason := volumeMismatch(pv, claim); reason != "" {
		return reason
	}
	if claim.Spec.Selector != nil {
		if s, err := labels.FromLabelSelector(claim.Spec.Selector); err == nil && !s.Matches(pv.Labels) {
			return "labels do not match the claim's selector"
		}
	}
	return "fits"
}

// recordReclaim records what a released volume's reclaim policy does.
func (c *Controller) recordReclaim(pv *api.PersistentVolume, action string) {
	if !c.volumeDecisions.Enabled() {
		return
	}
	c.volumeDecisions.Record(&pv.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("claim %s is gone → Released; persistentVolumeReclaimPolicy %s → %s",
			claimRefKey(pv.Spec.ClaimRef), pv.Spec.PersistentVolumeReclaimPolicy, action),
		Values: map[string]string{"reclaimPolicy": string(pv.Spec.PersistentVolumeReclaimPolicy)},
		Source: decisionSource,
	})
}
