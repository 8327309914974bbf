package resourcequota

// This file records, for the debug journal (what `ctl why quota/q -n ns`
// shows), each status the controller writes: what it copied from spec.hard
// and which usage figures its recount changed. A sync that writes nothing
// records nothing.

import (
	"fmt"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/debug"
	"kplane/pkg/quota"
)

// decisionSource is the upstream file whose syncResourceQuota this mirrors.
const decisionSource = "pkg/controller/resourcequota/resource_quota_controller.go"

// recordStatus records why q's status becomes {hard, used}.
func (c *Controller) recordStatus(q *api.ResourceQuota, used api.ResourceList) {
	if !c.decisions.Enabled() {
		return
	}
	var changes []string
	if !quota.Equals(q.Status.Hard, q.Spec.Hard) {
		changes = append(changes, "status.hard ← spec.hard ("+quota.PrettyPrint(q.Spec.Hard)+")")
	}
	var recounted []string
	for _, name := range quota.ResourceNames(used) {
		before, had := q.Status.Used[name]
		if had && before.Cmp(used[name]) == 0 {
			continue
		}
		from := "none"
		if had {
			from = before.String()
		}
		recounted = append(recounted, fmt.Sprintf("%s %s → %s", name, from, used[name].String()))
	}
	if len(recounted) > 0 {
		changes = append(changes, "recounted "+strings.Join(recounted, ", "))
	}
	var lines []string
	for _, name := range quota.ResourceNames(q.Spec.Hard) {
		lines = append(lines, fmt.Sprintf("%s: %s used of %s", name, used[name].String(), q.Spec.Hard[name].String()))
	}
	c.decisions.Record(&q.ObjectMeta, debug.Decision{
		Message: strings.Join(changes, "; "),
		Lines:   lines,
		Source:  decisionSource,
	})
}
