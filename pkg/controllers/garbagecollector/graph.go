package garbagecollector

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"kplane/pkg/api"
)

// objectReference identifies one object in the ownership graph: the
// coordinates an ownerReference carries (apiVersion, kind, name, uid) plus
// the namespace, which an ownerReference leaves implicit (an owner lives in
// its dependent's namespace, or is cluster-scoped).
type objectReference struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	UID        string
}

// String prints the reference the way the controller's logs show it.
func (r objectReference) String() string {
	if r.Namespace == "" {
		return fmt.Sprintf("%s %s %s (uid %s)", r.APIVersion, r.Kind, r.Name, r.UID)
	}
	return fmt.Sprintf("%s %s %s/%s (uid %s)", r.APIVersion, r.Kind, r.Namespace, r.Name, r.UID)
}

// node is one object in the ownership graph.
//
// Invariants (all fields are guarded by the graph's owner, graphBuilder.mu):
//   - a node is in graph.nodes under its identity.UID;
//   - n is in m.dependents iff n.owners has an entry with m's uid and m is
//     in the graph (a dependent may name owners that have left the graph);
//   - a virtual node has no owners (all we know of it is what its
//     dependents' ownerReferences say) and at least one dependent.
type node struct {
	identity objectReference
	// owners are the object's ownerReferences as last observed.
	owners []api.OwnerReference
	// dependents are the nodes whose ownerReferences name this node's uid.
	dependents map[*node]struct{}
	// virtual is true while the object is known only because a dependent
	// names it as an owner. Upstream keeps such "virtual" nodes too: the
	// attemptToDelete worker asks the apiserver whether the object exists,
	// and the node stops being virtual when an informer reports the object.
	virtual bool
	// beingDeleted: the object has a deletionTimestamp. Deletion is a
	// one-way trip, so the flag is never cleared.
	beingDeleted bool
	// deletingDependents: the object is being deleted with the
	// foregroundDeletion finalizer — it waits for its blocking dependents.
	deletingDependents bool
}

// dependentUIDs returns the uids of n's dependents.
func (n *node) dependentUIDs() []string {
	uids := make([]string, 0, len(n.dependents))
	for d := range n.dependents {
		uids = append(uids, d.identity.UID)
	}
	slices.Sort(uids) // a stable order for logs and tests
	return uids
}

// graph is the ownership graph: every object the collector has observed, and
// every owner those objects name, keyed by uid. It is a plain data structure
// that does no locking and no I/O; each method returns the uids whose state
// the change may have affected, for the caller to queue. graphBuilder wraps
// it with a mutex and the queues.
type graph struct {
	nodes map[string]*node
	// mapper tells a virtual owner's namespace from its kind's scope.
	mapper *restMapper
}

// newGraph returns an empty graph that resolves kinds through mapper.
func newGraph(mapper *restMapper) *graph {
	return &graph{nodes: map[string]*node{}, mapper: mapper}
}

// queueChanges names the nodes a graph change affects: toDelete go to the
// attemptToDelete queue (a dependent whose owner may be gone, an owner in
// foreground deletion that may be done waiting, a virtual node to verify),
// toOrphan to the attemptToOrphan queue (an owner being deleted with the
// orphan finalizer).
type queueChanges struct {
	toDelete []string
	toOrphan []string
}

func (q *queueChanges) delete(uids ...string) { q.toDelete = append(q.toDelete, uids...) }

// observe records an object an informer reports as added or updated. old is
// the previous state on an update and nil on an add (or when the update's
// old state is unknown). This is upstream's processGraphChanges for add and
// update events.
func (g *graph) observe(identity objectReference, old, meta *api.ObjectMeta) queueChanges {
	var q queueChanges
	n, found := g.nodes[identity.UID]
	if found && n.virtual {
		// The first real sighting of an owner known only by reference. If
		// the object is not what the references said (another kind, name
		// or namespace), its dependents may point at something that does
		// not exist: let each check its own references.
		if n.identity != identity {
			q.delete(n.dependentUIDs()...)
		}
		n.identity = identity
		n.virtual = false
	}
	if !found {
		n = &node{
			identity:           identity,
			owners:             slices.Clone(meta.OwnerReferences),
			dependents:         map[*node]struct{}{},
			beingDeleted:       meta.DeletionTimestamp != nil,
			deletingDependents: meta.DeletionTimestamp != nil && slices.Contains(meta.Finalizers, api.FinalizerDeleteDependents),
		}
		g.nodes[identity.UID] = n
		q.delete(g.addDependentToOwners(n, n.owners)...)
		g.transitions(old, meta, n, &q)
		return q
	}

	added, removed, changed := referencesDiffs(n.owners, meta.OwnerReferences)
	if len(added) > 0 || len(removed) > 0 || len(changed) > 0 {
		// An owner in foreground deletion may have been waiting for this
		// object alone; if it no longer blocks, let the owner look again.
		q.delete(g.unblockedOwners(removed, changed)...)
		n.owners = slices.Clone(meta.OwnerReferences)
		q.delete(g.addDependentToOwners(n, added)...)
		g.removeDependentFromOwners(n, removed)
	}
	if meta.DeletionTimestamp != nil {
		n.beingDeleted = true
	}
	g.transitions(old, meta, n, &q)
	return q
}

// transitions queues an object whose deletion has just started with one of
// the garbage collector's finalizers: orphan goes to attemptToOrphan;
// foregroundDeletion marks the node and queues it and all its dependents.
func (g *graph) transitions(old, meta *api.ObjectMeta, n *node, q *queueChanges) {
	if deletionStartsWithFinalizer(old, meta, api.FinalizerOrphanDependents) {
		q.toOrphan = append(q.toOrphan, n.identity.UID)
		return
	}
	if deletionStartsWithFinalizer(old, meta, api.FinalizerDeleteDependents) {
		n.deletingDependents = true
		q.delete(n.dependentUIDs()...)
		q.delete(n.identity.UID)
	}
}

// deletionStartsWithFinalizer reports whether meta is being deleted with
// finalizer and old was not (or old is unknown).
func deletionStartsWithFinalizer(old, meta *api.ObjectMeta, finalizer string) bool {
	if meta.DeletionTimestamp == nil || !slices.Contains(meta.Finalizers, finalizer) {
		return false
	}
	return old == nil || old.DeletionTimestamp == nil || !slices.Contains(old.Finalizers, finalizer)
}

// observeDeletion records that an informer saw the object with uid deleted.
// Its dependents are queued (their owner is gone: collect or unlink them),
// and so are its owners that wait in foreground deletion (one blocker
// fewer).
func (g *graph) observeDeletion(uid string) queueChanges {
	n, found := g.nodes[uid]
	if !found {
		return queueChanges{}
	}
	return g.remove(n)
}

// removeVirtual drops the node with uid after the apiserver said its object
// does not exist — but only while the node is still virtual: a real node
// leaves the graph when its informer reports the deletion, which it always
// does. This is upstream's "virtual delete event".
func (g *graph) removeVirtual(uid string) queueChanges {
	n, found := g.nodes[uid]
	if !found || !n.virtual {
		return queueChanges{}
	}
	return g.remove(n)
}

func (g *graph) remove(n *node) queueChanges {
	var q queueChanges
	delete(g.nodes, n.identity.UID)
	g.removeDependentFromOwners(n, n.owners)
	q.delete(n.dependentUIDs()...)
	for _, ref := range n.owners {
		if owner, ok := g.nodes[ref.UID]; ok && owner.deletingDependents {
			q.delete(owner.identity.UID)
		}
	}
	return q
}

// addDependentToOwners links n under each of owners, creating a virtual
// node for an owner not in the graph yet. It returns the new virtual nodes'
// uids: the attemptToDelete worker asks the apiserver whether they exist.
func (g *graph) addDependentToOwners(n *node, owners []api.OwnerReference) []string {
	var virtual []string
	for _, ref := range owners {
		owner, ok := g.nodes[ref.UID]
		if !ok {
			owner = &node{
				identity: objectReference{
					APIVersion: ref.APIVersion,
					Kind:       ref.Kind,
					Namespace:  g.mapper.ownerNamespace(ref, n.identity.Namespace),
					Name:       ref.Name,
					UID:        ref.UID,
				},
				dependents: map[*node]struct{}{},
				virtual:    true,
			}
			g.nodes[ref.UID] = owner
			virtual = append(virtual, ref.UID)
		}
		owner.dependents[n] = struct{}{}
	}
	return virtual
}

// removeDependentFromOwners unlinks n from each of owners still in the
// graph. A virtual owner left without dependents leaves the graph too:
// nothing names it any more, so there is nothing to collect on its behalf
// and no reason to keep asking the apiserver about it.
func (g *graph) removeDependentFromOwners(n *node, owners []api.OwnerReference) {
	for _, ref := range owners {
		owner, ok := g.nodes[ref.UID]
		if !ok {
			continue
		}
		delete(owner.dependents, n)
		if owner.virtual && len(owner.dependents) == 0 {
			delete(g.nodes, ref.UID)
		}
	}
}

// unblockedOwners returns the owners (in the graph) that a dependent stopped
// blocking: a blocking reference was removed, or its blockOwnerDeletion went
// from true to false or unset.
func (g *graph) unblockedOwners(removed []api.OwnerReference, changed []ownerRefPair) []string {
	var uids []string
	add := func(uid string) {
		if _, ok := g.nodes[uid]; ok {
			uids = append(uids, uid)
		}
	}
	for _, ref := range removed {
		if blocks(ref) {
			add(ref.UID)
		}
	}
	for _, c := range changed {
		if blocks(c.old) && !blocks(c.new) {
			add(c.new.UID)
		}
	}
	return uids
}

// ownerRefPair is one ownerReference (same uid) before and after an update.
type ownerRefPair struct{ old, new api.OwnerReference }

// referencesDiffs compares two ownerReference lists by uid.
func referencesDiffs(old, new []api.OwnerReference) (added, removed []api.OwnerReference, changed []ownerRefPair) {
	oldByUID := make(map[string]api.OwnerReference, len(old))
	for _, ref := range old {
		oldByUID[ref.UID] = ref
	}
	for _, ref := range new {
		before, ok := oldByUID[ref.UID]
		if !ok {
			added = append(added, ref)
			continue
		}
		if !reflect.DeepEqual(before, ref) {
			changed = append(changed, ownerRefPair{old: before, new: ref})
		}
		delete(oldByUID, ref.UID)
	}
	for _, ref := range old { // in old's order, for stable results
		if _, gone := oldByUID[ref.UID]; gone {
			removed = append(removed, ref)
		}
	}
	return added, removed, changed
}

// nodeView is a worker's copy of one node and its dependents, taken under
// the lock so that the worker can talk to the apiserver without holding it.
type nodeView struct {
	identity           objectReference
	virtual            bool
	beingDeleted       bool
	deletingDependents bool
	dependents         []dependentView
}

// dependentView is what a worker needs to know about one dependent.
type dependentView struct {
	identity objectReference
	// blocking: one of its ownerReferences to the owner viewed has
	// blockOwnerDeletion: true.
	blocking bool
	// deletingDependents: the dependent is itself in foreground deletion.
	deletingDependents bool
}

// view copies the node with uid, or reports that it is not in the graph.
func (g *graph) view(uid string) (nodeView, bool) {
	n, ok := g.nodes[uid]
	if !ok {
		return nodeView{}, false
	}
	v := nodeView{
		identity:           n.identity,
		virtual:            n.virtual,
		beingDeleted:       n.beingDeleted,
		deletingDependents: n.deletingDependents,
	}
	for d := range n.dependents {
		v.dependents = append(v.dependents, dependentView{
			identity:           d.identity,
			blocking:           isBlocking(uid, d.owners),
			deletingDependents: d.deletingDependents,
		})
	}
	slices.SortFunc(v.dependents, func(a, b dependentView) int {
		return strings.Compare(a.identity.UID, b.identity.UID)
	})
	return v, true
}
