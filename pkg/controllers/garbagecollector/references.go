package garbagecollector

import (
	"slices"

	"kplane/pkg/api"
)

// This file holds the collector's decisions as pure functions: given what
// the apiserver said about an object and its owners, what should happen to
// it. The workers (attempt_to_delete.go, attempt_to_orphan.go) gather the
// facts and carry the decisions out.

// blocks reports whether ref has blockOwnerDeletion: true.
func blocks(ref api.OwnerReference) bool {
	return ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion
}

// isBlocking reports whether a dependent with these ownerReferences blocks
// the foreground deletion of the owner with ownerUID: one of its references
// to that owner has blockOwnerDeletion: true. A blocking dependent keeps
// blocking while it is itself being deleted, until it is gone.
func isBlocking(ownerUID string, owners []api.OwnerReference) bool {
	for _, ref := range owners {
		if ref.UID == ownerUID && blocks(ref) {
			return true
		}
	}
	return false
}

// blockingDependents returns the dependents that hold up their owner's
// foreground deletion.
func blockingDependents(deps []dependentView) []dependentView {
	var out []dependentView
	for _, d := range deps {
		if d.blocking {
			out = append(out, d)
		}
	}
	return out
}

// ownerState is what the apiserver says about the object an ownerReference
// names.
type ownerState struct {
	// absent: no object of that kind and name, or one with another uid (the
	// owner was deleted and the name reused).
	absent bool
	// meta is the live owner's metadata when it is not absent.
	meta *api.ObjectMeta
}

// classifiedReferences sorts a dependent's ownerReferences as upstream's
// classifyReferences does.
type classifiedReferences struct {
	// solid: the owner exists and is not waiting for its dependents.
	solid []api.OwnerReference
	// dangling: the owner does not exist.
	dangling []api.OwnerReference
	// waiting: the owner exists, is being deleted, and carries the
	// foregroundDeletion finalizer — it waits for its dependents to go.
	waiting []api.OwnerReference
}

// add files ref into c according to what the apiserver said of its owner.
func (c *classifiedReferences) add(ref api.OwnerReference, state ownerState) {
	switch {
	case state.absent:
		c.dangling = append(c.dangling, ref)
	case state.meta.DeletionTimestamp != nil && slices.Contains(state.meta.Finalizers, api.FinalizerDeleteDependents):
		c.waiting = append(c.waiting, ref)
	default:
		c.solid = append(c.solid, ref)
	}
}

// actionKind is what to do with a dependent.
type actionKind int

const (
	// keepObject: an owner is alive; nothing to do.
	keepObject actionKind = iota
	// removeReferences: an owner is alive, but some references dangle or
	// point to owners waiting for their dependents; patch those away so
	// the object stays and the waiting owners are not held up.
	removeReferences
	// deleteObject: no owner is left alive; delete the object.
	deleteObject
)

// dependentAction is the decision about one dependent.
type dependentAction struct {
	kind actionKind
	// removeUIDs are the references removeReferences patches away.
	removeUIDs []string
	// policy is the propagationPolicy deleteObject deletes with.
	policy api.DeletionPropagation
	// unblockFirst: before a foreground delete, turn the object's own
	// blockOwnerDeletion references off, because one of its dependents is
	// also waiting for dependents — a likely cycle that would otherwise
	// leave both owners waiting for each other forever.
	unblockFirst bool
}

// decideDependentAction is upstream's attemptToDeleteItem decision for an
// object that has ownerReferences:
//   - any solid owner keeps the object; only dangling and waiting
//     references are removed;
//   - otherwise, if an owner waits for its dependents and this object has
//     dependents of its own, delete it in the foreground too, so that the
//     owner keeps waiting (through this object's blockOwnerDeletion
//     reference) until the whole subtree is gone;
//   - otherwise delete it, keeping a propagation policy its own finalizers
//     already ask for, else in the background.
//
// self describes the object in the graph (its dependents), finalizers are
// its live finalizers.
func decideDependentAction(refs classifiedReferences, self nodeView, finalizers []string) dependentAction {
	switch {
	case len(refs.solid) > 0:
		if len(refs.dangling) == 0 && len(refs.waiting) == 0 {
			return dependentAction{kind: keepObject}
		}
		var uids []string
		for _, ref := range slices.Concat(refs.dangling, refs.waiting) {
			uids = append(uids, ref.UID)
		}
		return dependentAction{kind: removeReferences, removeUIDs: uids}
	case len(refs.waiting) > 0 && len(self.dependents) > 0:
		unblock := slices.ContainsFunc(self.dependents, func(d dependentView) bool { return d.deletingDependents })
		return dependentAction{kind: deleteObject, policy: api.DeletePropagationForeground, unblockFirst: unblock}
	}
	policy := api.DeletePropagationBackground
	switch {
	case slices.Contains(finalizers, api.FinalizerOrphanDependents):
		policy = api.DeletePropagationOrphan
	case slices.Contains(finalizers, api.FinalizerDeleteDependents):
		policy = api.DeletePropagationForeground
	}
	return dependentAction{kind: deleteObject, policy: policy}
}
