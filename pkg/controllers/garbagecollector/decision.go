package garbagecollector

// This file records, for the debug journal (what `ctl why pod/x` shows),
// what the collector decided about an object: delete a dependent whose
// owners are gone (and with which propagation), patch away references to
// owners that are gone, keep a foreground owner waiting for its blocking
// dependents or let it go, orphan an owner's dependents. A dependent with
// only live owners is kept without a record: that is the usual case.

import (
	"fmt"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// Upstream files the decisions mirror.
const (
	sourceGarbageCollector = "pkg/controller/garbagecollector/garbagecollector.go"
)

// decisionRecorder writes the collector's decisions into the component's
// journal. Unlike the other controllers it does not go through a
// controllerutil.DecisionLog: the collector decides about objects of every
// kind, mostly once each (they are deleted next), so there are few repeats
// to skip and no per-object memory is kept.
type decisionRecorder struct {
	journal *debug.Journal
	mapper  *restMapper
}

// record records message (and lines) about the object ref, at
// resourceVersion rv if known.
func (r decisionRecorder) record(ref objectReference, rv, message string, lines []string) {
	if !r.journal.Enabled() {
		return
	}
	resource := strings.ToLower(ref.Kind) // a kind kplane does not serve
	if res, err := r.mapper.resourceFor(ref.APIVersion, ref.Kind); err == nil {
		resource = res.Resource
		if res.Group != "" {
			resource += "." + res.Group
		}
	}
	key := ref.Name
	if ref.Namespace != "" {
		key = ref.Namespace + "/" + ref.Name
	}
	r.journal.Decision(debug.Decision{
		Actor: Name, Resource: resource, Key: key, UID: ref.UID, ResourceVersion: rv,
		Message: message, Lines: lines, Source: sourceGarbageCollector,
	})
}

// recordDependentAction records what decideDependentAction chose for the
// dependent item, from the state of each of its owners, e.g. "owner
// ReplicaSet web-5d8 is gone → delete Pod web-5d8-x (Background)".
func (c *Controller) recordDependentAction(item nodeView, latest *api.ObjectMeta, refs classifiedReferences, action dependentAction) {
	if !c.decisions.journal.Enabled() || action.kind == keepObject {
		return
	}
	var lines []string
	for _, ref := range refs.solid {
		lines = append(lines, fmt.Sprintf("owner %s %s: exists", ref.Kind, ref.Name))
	}
	for _, ref := range refs.dangling {
		lines = append(lines, fmt.Sprintf("owner %s %s: gone (uid %s not found)", ref.Kind, ref.Name, ref.UID))
	}
	for _, ref := range refs.waiting {
		lines = append(lines, fmt.Sprintf("owner %s %s: being deleted in the foreground, waits for its dependents", ref.Kind, ref.Name))
	}
	self := item.identity.Kind + " " + item.identity.Name
	var message string
	switch action.kind {
	case removeReferences:
		message = fmt.Sprintf("%d of %d owners alive → keep %s, remove its references to the %d others",
			len(refs.solid), len(refs.solid)+len(refs.dangling)+len(refs.waiting), self, len(action.removeUIDs))
	case deleteObject:
		message = fmt.Sprintf("%s → delete %s (%s)", ownersVerdict(refs), self, action.policy)
		if action.unblockFirst {
			message += ", after unblocking its own ownerReferences (a dependent of it also waits: a likely cycle)"
		}
	}
	c.decisions.record(item.identity, latest.ResourceVersion, message, lines)
}

// ownersVerdict says why no owner keeps a dependent: "owner ReplicaSet
// web-5d8 is gone", "owners Deployment a, ReplicaSet b are gone or
// waiting for their dependents".
func ownersVerdict(refs classifiedReferences) string {
	if len(refs.waiting) == 0 && len(refs.dangling) == 1 {
		return fmt.Sprintf("owner %s %s is gone", refs.dangling[0].Kind, refs.dangling[0].Name)
	}
	if len(refs.dangling) == 0 && len(refs.waiting) == 1 {
		return fmt.Sprintf("owner %s %s is being deleted in the foreground", refs.waiting[0].Kind, refs.waiting[0].Name)
	}
	return fmt.Sprintf("no owner alive (%d gone, %d deleted in the foreground)", len(refs.dangling), len(refs.waiting))
}

// recordForeground records where an owner in foreground deletion stands:
// waiting for its blocking dependents, or free to go.
func (c *Controller) recordForeground(owner nodeView, blocking []dependentView) {
	if !c.decisions.journal.Enabled() {
		return
	}
	self := owner.identity.Kind + " " + owner.identity.Name
	if len(blocking) == 0 {
		c.decisions.record(owner.identity, "", fmt.Sprintf(
			"foreground deletion of %s: no dependent blocks it any more → remove the %s finalizer (the apiserver then deletes it)",
			self, api.FinalizerDeleteDependents), nil)
		return
	}
	lines := make([]string, len(blocking))
	for i, dep := range blocking {
		lines[i] = fmt.Sprintf("%s %s: blockOwnerDeletion", dep.identity.Kind, dep.identity.Name)
	}
	c.decisions.record(owner.identity, "", fmt.Sprintf(
		"foreground deletion of %s: %d dependents with blockOwnerDeletion still exist → wait for them",
		self, len(blocking)), lines)
}

// recordOrphan records the orphaning of owner's dependents.
func (c *Controller) recordOrphan(owner nodeView) {
	if !c.decisions.journal.Enabled() {
		return
	}
	c.decisions.record(owner.identity, "", fmt.Sprintf(
		"%s %s is deleted with propagationPolicy Orphan → remove its ownerReference from %d dependents, then the %s finalizer",
		owner.identity.Kind, owner.identity.Name, len(owner.dependents), api.FinalizerOrphanDependents), nil)
}
