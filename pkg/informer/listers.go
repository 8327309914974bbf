package informer

// This file gives controllers typed, read-only views of an informer's
// cache. Upstream generates one lister per resource (PodLister,
// DeploymentLister, …); kplane has one generic Lister[T] instead, which
// reads the same way at the call site: podLister.Namespace(ns).Get(name).

import (
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
)

// Lister reads objects of one kind from an Indexer, as the concrete type T
// (for example *api.Pod).
//
// Everything a Lister returns is the cached object itself, shared with the
// informer and every other reader: do not modify it; copy it with
// api.DeepCopy first. A lister never calls the apiserver, so what it returns
// may be slightly behind; controllers must be written for that (optimistic
// concurrency catches a write based on stale data).
type Lister[T api.Object] struct {
	indexer  Indexer
	resource errors.Resource
}

// NewLister returns a Lister over indexer. resource names the kind in
// NotFound errors, e.g. errors.Resource{Resource: "pods"} or
// errors.Resource{Group: "apps", Resource: "deployments"}.
func NewLister[T api.Object](indexer Indexer, resource errors.Resource) *Lister[T] {
	return &Lister[T]{indexer: indexer, resource: resource}
}

// List returns the objects in every namespace whose labels match selector
// (nil selects everything), in no particular order.
func (l *Lister[T]) List(selector labels.Selector) ([]T, error) {
	return filter[T](l.indexer.List(), selector)
}

// Get returns the cluster-scoped object with the given name, or a NotFound
// error (errors.IsNotFound) if the cache has none.
func (l *Lister[T]) Get(name string) (T, error) {
	return get[T](l.indexer, l.resource, name, name)
}

// ByIndex returns the objects the cache files under indexedValue in the
// index indexName (for example NodeNameIndex, "node1": the pods bound to
// node1), in no particular order. The index must have been added to the
// informer (AddIndexers) before it started; asking for one it lacks is an
// error.
func (l *Lister[T]) ByIndex(indexName, indexedValue string) ([]T, error) {
	objs, err := l.indexer.ByIndex(indexName, indexedValue)
	if err != nil {
		return nil, fmt.Errorf("list %s by %s %q: %w", l.resource, indexName, indexedValue, err)
	}
	return filter[T](objs, nil)
}

// Namespace returns a lister limited to one namespace. The empty namespace
// means all namespaces for List (upstream's NamespaceAll), and
// cluster-scoped names for Get.
func (l *Lister[T]) Namespace(namespace string) NamespaceLister[T] {
	return namespaceLister[T]{indexer: l.indexer, resource: l.resource, namespace: namespace}
}

// NamespaceLister reads objects of one kind in one namespace. Like Lister,
// it returns cached objects that must not be modified.
type NamespaceLister[T api.Object] interface {
	// List returns the namespace's objects whose labels match selector
	// (nil selects everything), in no particular order.
	List(selector labels.Selector) ([]T, error)
	// Get returns the named object in the namespace, or a NotFound error.
	Get(name string) (T, error)
}

// namespaceLister implements NamespaceLister.
type namespaceLister[T api.Object] struct {
	indexer   Indexer
	resource  errors.Resource
	namespace string
}

// List uses the namespace index when the indexer has one, and otherwise
// scans the whole cache.
func (l namespaceLister[T]) List(selector labels.Selector) ([]T, error) {
	if l.namespace == "" {
		return filter[T](l.indexer.List(), selector)
	}
	if _, ok := l.indexer.GetIndexers()[NamespaceIndex]; ok {
		objs, err := l.indexer.ByIndex(NamespaceIndex, l.namespace)
		if err != nil {
			return nil, fmt.Errorf("list %s in namespace %q: %w", l.resource, l.namespace, err)
		}
		return filter[T](objs, selector)
	}
	all := l.indexer.List()
	inNamespace := make([]api.Object, 0, len(all))
	for _, obj := range all {
		if obj.GetObjectMeta().Namespace == l.namespace {
			inNamespace = append(inNamespace, obj)
		}
	}
	return filter[T](inNamespace, selector)
}

// Get returns the named object in the namespace.
func (l namespaceLister[T]) Get(name string) (T, error) {
	key := name
	if l.namespace != "" {
		key = l.namespace + "/" + name
	}
	return get[T](l.indexer, l.resource, key, name)
}

// filter keeps the objects whose labels match selector, as T.
func filter[T api.Object](objs []api.Object, selector labels.Selector) ([]T, error) {
	out := make([]T, 0, len(objs))
	for _, obj := range objs {
		if selector != nil && !selector.Matches(obj.GetObjectMeta().Labels) {
			continue
		}
		typed, ok := obj.(T)
		if !ok {
			var want T
			return nil, fmt.Errorf("lister: cache holds %T, want %T", obj, want)
		}
		out = append(out, typed)
	}
	return out, nil
}

// get looks key up and returns it as T, or NotFound naming name.
func get[T api.Object](indexer Indexer, resource errors.Resource, key, name string) (T, error) {
	var zero T
	obj, exists, err := indexer.GetByKey(key)
	if err != nil {
		return zero, fmt.Errorf("get %s %q: %w", resource, key, err)
	}
	if !exists {
		return zero, errors.NewNotFound(resource, name)
	}
	typed, ok := obj.(T)
	if !ok {
		return zero, fmt.Errorf("get %s %q: cache holds %T, want %T", resource, key, obj, zero)
	}
	return typed, nil
}
