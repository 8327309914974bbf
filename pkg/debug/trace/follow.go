package trace

import (
	"slices"
	"strings"

	"kplane/pkg/debug"
)

// objectRef names one object a trace follows: its resource with group
// ("deployments.apps") and its key ("default/web").
type objectRef struct {
	resource, key string
}

// FollowedSet is what a trace (`ctl trace`, the web view's trace panel)
// follows: the object the user named and
// everything it caused down the ownership chain. It is fed the records of
// every component in time order (see Before) and decides, record by
// record, whether each is about a followed object, growing as it goes:
//
//   - the named object is followed from the start, by resource and key
//     (its uid too if it already exists; otherwise the first record that
//     carries its uid teaches it);
//   - a write record of an object whose ownerReferences include a followed
//     uid adds that object: Deployment → ReplicaSet → Pods;
//   - the records about a followed object are: those naming its uid, those
//     naming its resource and key (a pod's binding by the scheduler and
//     status writes by its kubelet are writes of that pod), and those of a
//     workqueue or a sync, which know only a key, when that key is
//     followed.
//
// The last rule is the one approximation: a workqueue holds keys without
// their resource, so a sync of a Service named like the followed
// Deployment shows too.
type FollowedSet struct {
	objects map[objectRef]bool
	// uids maps each followed uid to its object.
	uids map[string]objectRef
	// keys counts the followed objects per key, for records without a
	// resource.
	keys map[string]int
	// namespace is the named object's ("" if cluster-scoped); every
	// object a namespaced owner can own is in it.
	namespace string
}

// NewFollowedSet returns a set that follows the object resource/key,
// whose uid may be ""
// (not created yet).
func NewFollowedSet(resource, namespace, name, uid string) *FollowedSet {
	s := &FollowedSet{objects: map[objectRef]bool{}, uids: map[string]objectRef{}, keys: map[string]int{}, namespace: namespace}
	s.add(objectRef{resource, ObjectKey(namespace, name)}, uid)
	return s
}

// add follows ref, and learns uid when it is known.
func (s *FollowedSet) add(ref objectRef, uid string) {
	if !s.objects[ref] {
		s.objects[ref] = true
		s.keys[ref.key]++
	}
	if uid != "" {
		s.uids[uid] = ref
	}
}

// MayConcern is a cheap first filter, applied before records are buffered:
// with a namespaced object followed, records about other namespaces (the
// nodes' Lease renewals, kube-system) can never concern it.
func (s *FollowedSet) MayConcern(r *debug.Record) bool {
	if r.Type == debug.TypeEvent {
		return false
	}
	if s.namespace == "" {
		return true
	}
	ns, _, namespaced := strings.Cut(r.Key, "/")
	return namespaced && ns == s.namespace
}

// Observe reports whether r is about a followed object, after letting r
// grow the set (a new dependent, a uid learnt).
func (s *FollowedSet) Observe(r *debug.Record) bool {
	if !s.MayConcern(r) {
		return false
	}
	ref := objectRef{r.Resource, r.Key}
	if r.UID != "" {
		if _, ok := s.uids[r.UID]; ok {
			s.add(ref, r.UID)
			return true
		}
	}
	if r.Resource != "" && s.objects[ref] {
		s.add(ref, r.UID)
		return true
	}
	if r.Type == debug.TypeWrite && slices.ContainsFunc(r.Owners, func(uid string) bool { _, ok := s.uids[uid]; return ok }) {
		s.add(ref, r.UID)
		return true
	}
	return r.Resource == "" && s.keys[r.Key] > 0
}

// ObjectKey is "namespace/name", or "name" for a cluster-scoped object.
func ObjectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// FollowsUID reports whether the object with uid is followed, as far as
// the records observed so far taught the set: an Event about it (whose
// involvedObject names its uid) belongs to the trace.
func (s *FollowedSet) FollowsUID(uid string) bool {
	_, ok := s.uids[uid]
	return uid != "" && ok
}
