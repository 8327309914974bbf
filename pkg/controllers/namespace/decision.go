package namespace

// This file records, for the debug journal (what `ctl why ns/x` shows),
// each pass over a Terminating namespace: what its content deletion left
// and when the controller looks again, or that it is empty and loses its
// "kubernetes" finalizer.

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file whose Delete (and deleteAllContent)
// these mirror.
const decisionSource = "pkg/controller/namespace/deletion/namespaced_resources_deleter.go"

// recordContent records the outcome of one content pass, e.g. "namespace
// shop Terminating: deleted every resource's collection; 2 objects remain
// (pods. 2), estimate 30s → look again in 15s".
func (c *Controller) recordContent(ns *api.Namespace, totals contentTotals, estimate int64) {
	if !c.decisions.Enabled() {
		return
	}
	remaining := 0
	var lines []string
	for _, res := range slices.Sorted(maps.Keys(totals.remaining)) {
		remaining += totals.remaining[res]
		lines = append(lines, fmt.Sprintf("%s: %d remaining", res, totals.remaining[res]))
	}
	for _, f := range slices.Sorted(maps.Keys(totals.finalizers)) {
		lines = append(lines, fmt.Sprintf("finalizer %s: held by %d objects", f, totals.finalizers[f]))
	}
	for _, err := range totals.deleteErrors {
		lines = append(lines, "error: "+err.Error())
	}
	action := fmt.Sprintf("remove the %q finalizer (the apiserver then deletes the namespace)", api.FinalizerKubernetes)
	if estimate > 0 {
		action = fmt.Sprintf("estimate %ds → look again in %s", estimate, recheckDelay(estimate, c.maxRecheckDelay))
	}
	summary := "nothing remains"
	if remaining > 0 || len(totals.deleteErrors) > 0 {
		summary = fmt.Sprintf("%d objects remain in %d resources, %d deletes failed", remaining, len(totals.remaining), len(totals.deleteErrors))
	}
	c.decisions.Record(&ns.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("namespace %s Terminating: deleted every namespaced resource's collection, %s → %s", ns.Name, summary, action),
		Values: map[string]string{
			"remaining":       strconv.Itoa(remaining),
			"estimateSeconds": strconv.FormatInt(estimate, 10),
			"finalizers":      strings.Join(slices.Sorted(maps.Keys(totals.finalizers)), ","),
		},
		Lines:  lines,
		Source: decisionSource,
	})
}
