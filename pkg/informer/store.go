package informer

import "kplane/pkg/api"

// Store is a local, in-memory copy of a set of API objects, filed by key.
// It is the informer's cache: the reflector's deltas are applied to it, and
// listers and controllers read from it instead of asking the apiserver.
//
// Invariants every implementation keeps:
//   - At most one object per key (the key comes from the store's KeyFunc).
//     Add and Update are the same operation, "put": both replace whatever the
//     key held; the two names exist so the caller's intent reads clearly.
//   - Delete of a key the store does not hold is not an error.
//   - Objects are stored and returned by reference, never copied. Whatever
//     Get or List returns is shared with every other reader: do not modify
//     it; copy it with api.DeepCopy first.
//   - Replace swaps the whole content in one step; a reader sees the old set
//     or the new one, never a mix.
type Store interface {
	// Add puts obj under its key.
	Add(obj api.Object) error
	// Update puts obj under its key, replacing the previous version.
	Update(obj api.Object) error
	// Delete removes the object with obj's key, if there is one.
	Delete(obj api.Object) error
	// List returns every stored object, in no particular order.
	List() []api.Object
	// ListKeys returns every key, in no particular order.
	ListKeys() []string
	// Get returns the stored object with the same key as obj.
	Get(obj api.Object) (item api.Object, exists bool, err error)
	// GetByKey returns the object stored under key.
	GetByKey(key string) (item api.Object, exists bool, err error)
	// Replace makes list the whole content of the store. resourceVersion is
	// the revision the list was read at; a plain cache ignores it.
	Replace(list []api.Object, resourceVersion string) error
	// Resync exists for queues that re-deliver what they hold; a cache has
	// nothing to do and returns nil.
	Resync() error
}

// NewStore returns a thread-safe Store with no indexes, keyed by keyFunc
// (MetaNamespaceKeyFunc when nil).
func NewStore(keyFunc KeyFunc) Store {
	return NewIndexer(keyFunc, Indexers{})
}
