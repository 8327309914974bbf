package informer

// This file defines indexes: secondary keys under which a Store also files
// its objects, so "all pods on node-1" or "all pods owned by ReplicaSet uid
// 42" is a map lookup instead of a scan of the whole cache. The bookkeeping
// that keeps indexes in step with the objects is in thread_safe_store.go.

import (
	"fmt"

	"kplane/pkg/api"
)

// IndexFunc computes the values an object is indexed under. It may return
// several values (an object with two owners appears under both UIDs) or
// none (a pod not yet bound is under no node name). It must be a pure
// function of the object.
type IndexFunc func(obj api.Object) ([]string, error)

// Indexers names the index functions of a store: index name → function.
type Indexers map[string]IndexFunc

// Indexer is a Store that also maintains named indexes.
//
// For an index named n with function f, and every indexed value v:
//
//	IndexKeys(n, v) = { key of o | o stored, v ∈ f(o) }
//
// This holds after every Add, Update, Delete and Replace, taken atomically
// under the store's lock. A value that no stored object has is absent from
// the index (not present with an empty set), so ListIndexFuncValues lists
// only values some object has.
//
// Like a Store, an Indexer returns the cached objects themselves: do not
// modify them; copy with api.DeepCopy first.
type Indexer interface {
	Store
	// Index returns the objects that share an indexed value with obj under
	// the named index (the union over every value f(obj) gives).
	Index(indexName string, obj api.Object) ([]api.Object, error)
	// IndexKeys returns the keys of the objects indexed under indexedValue.
	IndexKeys(indexName, indexedValue string) ([]string, error)
	// ByIndex returns the objects indexed under indexedValue.
	ByIndex(indexName, indexedValue string) ([]api.Object, error)
	// ListIndexFuncValues returns every value some stored object is indexed
	// under in the named index (nil for an unknown index).
	ListIndexFuncValues(indexName string) []string
	// AddIndexers adds indexes. Objects already stored are indexed at once.
	// Adding an index under a name already in use is an error.
	AddIndexers(newIndexers Indexers) error
	// GetIndexers returns a copy of the index functions.
	GetIndexers() Indexers
}

// Names of the standard indexes. Upstream's informers carry the namespace
// index by default; the others are added by the components that need them.
const (
	// NamespaceIndex files objects by metadata.namespace ("" for
	// cluster-scoped ones). Namespaced listers use it.
	NamespaceIndex = "namespace"
	// OwnerUIDIndex files objects by the UID of each of their owners, so a
	// controller finds the pods of a ReplicaSet, or the garbage collector
	// the dependents of an object, without scanning.
	OwnerUIDIndex = "ownerUID"
	// NodeNameIndex files pods by spec.nodeName, so the kubelet and the
	// scheduler find the pods of one node. Pods not yet bound, and objects
	// of other kinds, are in no entry.
	NodeNameIndex = "nodeName"
	// LabelIndex files objects by each of their labels as "key=value", so
	// an equality selector on one label becomes a lookup.
	LabelIndex = "label"
)

// MetaNamespaceIndexFunc indexes an object by its namespace.
func MetaNamespaceIndexFunc(obj api.Object) ([]string, error) {
	return []string{obj.GetObjectMeta().Namespace}, nil
}

// OwnerUIDIndexFunc indexes an object by the UID of every ownerReference it
// carries; an object without owners is in no entry.
func OwnerUIDIndexFunc(obj api.Object) ([]string, error) {
	refs := obj.GetObjectMeta().OwnerReferences
	if len(refs) == 0 {
		return nil, nil
	}
	uids := make([]string, 0, len(refs))
	for _, ref := range refs {
		if ref.UID != "" {
			uids = append(uids, ref.UID)
		}
	}
	return uids, nil
}

// NodeNameIndexFunc indexes a pod by the node it is bound to. Anything that
// is not a *api.Pod, and a pod with no spec.nodeName, is in no entry.
func NodeNameIndexFunc(obj api.Object) ([]string, error) {
	pod, ok := obj.(*api.Pod)
	if !ok || pod == nil || pod.Spec.NodeName == "" {
		return nil, nil
	}
	return []string{pod.Spec.NodeName}, nil
}

// IndexPodsByNode adds NodeNameIndex to a pod informer unless it has it
// already. Several components share the factory's one pod informer and
// read pods by node (the node lifecycle and taint eviction controllers);
// each asks for the index, the first adds it, and the others find it
// there (AddIndexers would refuse to add it twice). Like AddIndexers it
// must run before the informer starts.
func IndexPodsByNode(pods SharedIndexInformer) error {
	if _, ok := pods.GetIndexer().GetIndexers()[NodeNameIndex]; ok {
		return nil
	}
	if err := pods.AddIndexers(Indexers{NodeNameIndex: NodeNameIndexFunc}); err != nil {
		return fmt.Errorf("index pods by node: %w", err)
	}
	return nil
}

// LabelIndexFunc indexes an object by each of its labels, as "key=value".
func LabelIndexFunc(obj api.Object) ([]string, error) {
	labels := obj.GetObjectMeta().Labels
	if len(labels) == 0 {
		return nil, nil
	}
	values := make([]string, 0, len(labels))
	for k, v := range labels {
		values = append(values, k+"="+v)
	}
	return values, nil
}

// StandardIndexers returns all four standard indexes, for a component that
// wants every one of them.
func StandardIndexers() Indexers {
	return Indexers{
		NamespaceIndex: MetaNamespaceIndexFunc,
		OwnerUIDIndex:  OwnerUIDIndexFunc,
		NodeNameIndex:  NodeNameIndexFunc,
		LabelIndex:     LabelIndexFunc,
	}
}
