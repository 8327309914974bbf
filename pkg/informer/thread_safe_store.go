package informer

// This file is the cache itself: a map from key to object behind a
// read-write lock, plus the index bookkeeping that must change in the same
// critical section as the map. Informers write to it from one goroutine (the
// one popping the DeltaFIFO) while any number of controllers read it through
// listers, which is why every method takes the lock and why readers get the
// lock shared.

import (
	"fmt"
	"slices"
	"sync"

	"kplane/pkg/api"
)

// NewIndexer returns a thread-safe Indexer keyed by keyFunc with the given
// indexes (which may be empty; more can be added later with AddIndexers).
// A nil keyFunc means MetaNamespaceKeyFunc.
func NewIndexer(keyFunc KeyFunc, indexers Indexers) Indexer {
	if keyFunc == nil {
		keyFunc = MetaNamespaceKeyFunc
	}
	s := &threadSafeStore{
		keyFunc: keyFunc,
		items:   map[string]api.Object{},
		index: storeIndex{
			indexers:   Indexers{},
			indices:    map[string]map[string]keySet{},
			filedUnder: map[string]map[string][]string{},
		},
	}
	for name, fn := range indexers {
		s.index.addIndex(name, fn)
	}
	return s
}

// threadSafeStore implements Indexer. Every field below lock is guarded by
// it; a write (put, delete, replace, adding indexes) holds it exclusively
// for the whole change, so readers never see an object without its index
// entries or the other way round.
type threadSafeStore struct {
	keyFunc KeyFunc

	lock sync.RWMutex
	// items holds the cached objects by key.
	items map[string]api.Object
	// index holds the indexes over items.
	index storeIndex
}

// keySet is a set of store keys.
type keySet map[string]struct{}

// storeIndex is the bookkeeping of an Indexer's indexes.
//
// Invariants, for every index name n with function f (see Indexer):
//   - indices[n][v] holds key k iff items[k] exists and v ∈ f(items[k]);
//     no set in indices[n] is empty.
//   - filedUnder[n][k] lists the values k is filed under in index n, as
//     f gave them when the object was stored; it is absent when there are
//     none.
//
// filedUnder is why a key can be unfiled without calling f again. Upstream
// recomputes f on the old object instead; remembering the values means an
// object that a careless reader modified in place (see the Store doc) cannot
// leave a stale entry behind when it is updated or deleted.
type storeIndex struct {
	indexers   Indexers
	indices    map[string]map[string]keySet
	filedUnder map[string]map[string][]string
}

// addIndex registers an empty index.
func (i *storeIndex) addIndex(name string, fn IndexFunc) {
	i.indexers[name] = fn
	i.indices[name] = map[string]keySet{}
	i.filedUnder[name] = map[string][]string{}
}

// valuesOf runs every index function of fns on obj, returning the values by
// index name with duplicates removed. It changes nothing, so a failing index
// function leaves the store untouched.
func valuesOf(fns Indexers, key string, obj api.Object) (map[string][]string, error) {
	values := make(map[string][]string, len(fns))
	for name, fn := range fns {
		vs, err := fn(obj)
		if err != nil {
			return nil, fmt.Errorf("index %q of %q: %w", name, key, err)
		}
		if len(vs) > 1 {
			vs = slices.Compact(slices.Sorted(slices.Values(vs)))
		}
		values[name] = vs
	}
	return values, nil
}

// file moves key in index name from the values it was filed under to
// values.
func (i *storeIndex) file(name, key string, values []string) {
	old := i.filedUnder[name][key]
	if slices.Equal(old, values) {
		return
	}
	index := i.indices[name]
	for _, v := range old {
		set := index[v]
		delete(set, key)
		if len(set) == 0 {
			delete(index, v)
		}
	}
	for _, v := range values {
		set := index[v]
		if set == nil {
			set = keySet{}
			index[v] = set
		}
		set[key] = struct{}{}
	}
	if len(values) == 0 {
		delete(i.filedUnder[name], key)
	} else {
		i.filedUnder[name][key] = values
	}
}

// Add puts obj under its key.
func (s *threadSafeStore) Add(obj api.Object) error { return s.put(obj) }

// Update puts obj under its key, replacing the previous version.
func (s *threadSafeStore) Update(obj api.Object) error { return s.put(obj) }

// put stores obj and refiles it in every index. If the key or an index
// function fails, the store is left as it was.
func (s *threadSafeStore) put(obj api.Object) error {
	key, err := s.keyFunc(obj)
	if err != nil {
		return KeyError{Obj: obj, Err: err}
	}
	s.lock.Lock()
	defer s.lock.Unlock()
	values, err := valuesOf(s.index.indexers, key, obj)
	if err != nil {
		return err
	}
	for name, vs := range values {
		s.index.file(name, key, vs)
	}
	s.items[key] = obj
	return nil
}

// Delete removes the object with obj's key and its index entries.
func (s *threadSafeStore) Delete(obj api.Object) error {
	key, err := s.keyFunc(obj)
	if err != nil {
		return KeyError{Obj: obj, Err: err}
	}
	s.lock.Lock()
	defer s.lock.Unlock()
	if _, ok := s.items[key]; !ok {
		return nil
	}
	for name := range s.index.indexers {
		s.index.file(name, key, nil)
	}
	delete(s.items, key)
	return nil
}

// List returns every stored object, in no particular order.
func (s *threadSafeStore) List() []api.Object {
	s.lock.RLock()
	defer s.lock.RUnlock()
	list := make([]api.Object, 0, len(s.items))
	for _, obj := range s.items {
		list = append(list, obj)
	}
	return list
}

// ListKeys returns every key, in no particular order.
func (s *threadSafeStore) ListKeys() []string {
	s.lock.RLock()
	defer s.lock.RUnlock()
	keys := make([]string, 0, len(s.items))
	for key := range s.items {
		keys = append(keys, key)
	}
	return keys
}

// Get returns the stored object with the same key as obj.
func (s *threadSafeStore) Get(obj api.Object) (api.Object, bool, error) {
	key, err := s.keyFunc(obj)
	if err != nil {
		return nil, false, KeyError{Obj: obj, Err: err}
	}
	return s.GetByKey(key)
}

// GetByKey returns the object stored under key.
func (s *threadSafeStore) GetByKey(key string) (api.Object, bool, error) {
	s.lock.RLock()
	defer s.lock.RUnlock()
	obj, ok := s.items[key]
	return obj, ok, nil
}

// Replace makes list the whole content of the store and rebuilds every
// index from it. Keys and index values are all computed before anything
// changes, so a bad object leaves the old content in place.
func (s *threadSafeStore) Replace(list []api.Object, resourceVersion string) error {
	items := make(map[string]api.Object, len(list))
	for _, obj := range list {
		key, err := s.keyFunc(obj)
		if err != nil {
			return KeyError{Obj: obj, Err: err}
		}
		items[key] = obj
	}

	s.lock.Lock()
	defer s.lock.Unlock()
	fresh := storeIndex{
		indexers:   s.index.indexers,
		indices:    make(map[string]map[string]keySet, len(s.index.indexers)),
		filedUnder: make(map[string]map[string][]string, len(s.index.indexers)),
	}
	for name := range s.index.indexers {
		fresh.indices[name] = map[string]keySet{}
		fresh.filedUnder[name] = map[string][]string{}
	}
	for key, obj := range items {
		values, err := valuesOf(s.index.indexers, key, obj)
		if err != nil {
			return fmt.Errorf("replace at resourceVersion %q: %w", resourceVersion, err)
		}
		for name, vs := range values {
			fresh.file(name, key, vs)
		}
	}
	s.items = items
	s.index = fresh
	return nil
}

// Resync does nothing: a cache has no one to re-deliver to.
func (s *threadSafeStore) Resync() error { return nil }

// Index returns the objects that share an indexed value with obj.
func (s *threadSafeStore) Index(indexName string, obj api.Object) ([]api.Object, error) {
	s.lock.RLock()
	defer s.lock.RUnlock()
	fn, ok := s.index.indexers[indexName]
	if !ok {
		return nil, fmt.Errorf("index %q does not exist", indexName)
	}
	values, err := fn(obj)
	if err != nil {
		return nil, fmt.Errorf("index %q: %w", indexName, err)
	}
	index := s.index.indices[indexName]
	// One value (the usual case: a namespace, a node name) needs no union.
	if len(values) == 1 {
		return s.objectsLocked(index[values[0]]), nil
	}
	union := keySet{}
	for _, v := range values {
		for key := range index[v] {
			union[key] = struct{}{}
		}
	}
	return s.objectsLocked(union), nil
}

// objectsLocked returns the objects stored under keys.
func (s *threadSafeStore) objectsLocked(keys keySet) []api.Object {
	list := make([]api.Object, 0, len(keys))
	for key := range keys {
		list = append(list, s.items[key])
	}
	return list
}

// IndexKeys returns the keys of the objects indexed under indexedValue.
func (s *threadSafeStore) IndexKeys(indexName, indexedValue string) ([]string, error) {
	s.lock.RLock()
	defer s.lock.RUnlock()
	index, ok := s.index.indices[indexName]
	if !ok {
		return nil, fmt.Errorf("index %q does not exist", indexName)
	}
	set := index[indexedValue]
	keys := make([]string, 0, len(set))
	for key := range set {
		keys = append(keys, key)
	}
	return keys, nil
}

// ByIndex returns the objects indexed under indexedValue.
func (s *threadSafeStore) ByIndex(indexName, indexedValue string) ([]api.Object, error) {
	s.lock.RLock()
	defer s.lock.RUnlock()
	index, ok := s.index.indices[indexName]
	if !ok {
		return nil, fmt.Errorf("index %q does not exist", indexName)
	}
	return s.objectsLocked(index[indexedValue]), nil
}

// ListIndexFuncValues returns every value some object is indexed under.
func (s *threadSafeStore) ListIndexFuncValues(indexName string) []string {
	s.lock.RLock()
	defer s.lock.RUnlock()
	index, ok := s.index.indices[indexName]
	if !ok {
		return nil
	}
	values := make([]string, 0, len(index))
	for v := range index {
		values = append(values, v)
	}
	return values
}

// AddIndexers adds indexes and files the objects already stored in them.
// Upstream once refused to add indexes to a non-empty store; it now indexes
// the existing objects, and so does kplane. A name already in use, or an
// index function failing on a stored object, is an error and adds nothing.
func (s *threadSafeStore) AddIndexers(newIndexers Indexers) error {
	s.lock.Lock()
	defer s.lock.Unlock()
	for name := range newIndexers {
		if _, ok := s.index.indexers[name]; ok {
			return fmt.Errorf("add indexers: index %q already exists", name)
		}
	}
	computed := make(map[string]map[string][]string, len(s.items))
	for key, obj := range s.items {
		values, err := valuesOf(newIndexers, key, obj)
		if err != nil {
			return fmt.Errorf("add indexers: %w", err)
		}
		computed[key] = values
	}
	for name, fn := range newIndexers {
		s.index.addIndex(name, fn)
	}
	for key, values := range computed {
		for name, vs := range values {
			s.index.file(name, key, vs)
		}
	}
	return nil
}

// GetIndexers returns a copy of the index functions.
func (s *threadSafeStore) GetIndexers() Indexers {
	s.lock.RLock()
	defer s.lock.RUnlock()
	out := make(Indexers, len(s.index.indexers))
	for name, fn := range s.index.indexers {
		out[name] = fn
	}
	return out
}
