package informer

// This file names objects. Every layer of the informer stack — the DeltaFIFO,
// the indexer, the listers and the workqueues controllers feed — files an
// object under one string, its key, so that two versions of the same object
// meet in the same slot and a controller can enqueue a key instead of an
// object it would otherwise have to copy.

import (
	"errors"
	"fmt"
	"strings"

	"kplane/pkg/api"
)

// KeyFunc computes the key an object is stored and queued under. It must be
// deterministic: two versions of one object always give the same key, and
// two different objects never do.
type KeyFunc func(obj any) (string, error)

// KeyError reports that no key could be computed for Obj.
type KeyError struct {
	// Obj is the object whose key was asked for.
	Obj any
	// Err says why the key function failed.
	Err error
}

// Error describes the object and the failure.
func (e KeyError) Error() string {
	return fmt.Sprintf("compute key of %T: %v", e.Obj, e.Err)
}

// Unwrap gives the key function's error to errors.Is and errors.As.
func (e KeyError) Unwrap() error { return e.Err }

// errNoName is returned for an object without metadata.name: every object
// the apiserver hands out has one, so a nameless object is a caller's bug.
var errNoName = errors.New("object has no metadata.name")

// MetaNamespaceKeyFunc is the key function every informer uses: "namespace/name"
// for a namespaced object and plain "name" for a cluster-scoped one (a Node,
// a Namespace), exactly as upstream's cache.MetaNamespaceKeyFunc.
//
// A DeletedFinalStateUnknown tombstone yields the key it carries, so a
// deletion discovered by a relist can be keyed even when the last state of
// the object is not known.
func MetaNamespaceKeyFunc(obj any) (string, error) {
	switch o := obj.(type) {
	case DeletedFinalStateUnknown:
		return o.Key, nil
	case *DeletedFinalStateUnknown:
		if o == nil {
			return "", errors.New("nil tombstone")
		}
		return o.Key, nil
	case nil:
		return "", errors.New("nil object")
	case api.Object:
		meta := o.GetObjectMeta()
		if meta.Name == "" {
			return "", errNoName
		}
		if meta.Namespace == "" {
			return meta.Name, nil
		}
		return meta.Namespace + "/" + meta.Name, nil
	default:
		return "", fmt.Errorf("%T is not an api.Object", obj)
	}
}

// DeletionHandlingMetaNamespaceKeyFunc is MetaNamespaceKeyFunc under the name
// upstream gives the variant that understands tombstones. Event handlers use
// it on the object an OnDelete receives, which may be a
// DeletedFinalStateUnknown rather than the object itself. In kplane the plain
// MetaNamespaceKeyFunc already understands tombstones; the name is kept so
// code reads as it would against client-go.
func DeletionHandlingMetaNamespaceKeyFunc(obj any) (string, error) {
	return MetaNamespaceKeyFunc(obj)
}

// SplitMetaNamespaceKey undoes MetaNamespaceKeyFunc: "ns/name" gives
// ("ns", "name") and "name" gives ("", "name"). Controllers call it first
// thing in sync(key) to find the object to reconcile.
func SplitMetaNamespaceKey(key string) (namespace, name string, err error) {
	parts := strings.Split(key, "/")
	switch len(parts) {
	case 1:
		return "", parts[0], nil
	case 2:
		return parts[0], parts[1], nil
	default:
		return "", "", fmt.Errorf("unexpected key format %q: want \"namespace/name\" or \"name\"", key)
	}
}
