package apiserver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"kplane/pkg/store"
)

// memStore is an in-memory store.Interface with etcd's revision rules for
// the allocator tests: every write bumps one revision counter, and Update
// is a compare-and-swap on the key's mod revision. Watch and Compact are
// not needed there and refuse.
type memStore struct {
	mu       sync.Mutex
	revision int64
	kvs      map[string]store.KV
	// writes counts successful writes, conflicts the refused ones.
	writes, conflicts int
	// beforeUpdate, when set, runs before each Update's compare (outside
	// mu): a test's hook to slip a peer's write in between.
	beforeUpdate func(key string)
	// failGets, when above 0, makes that many Gets fail, as a leader
	// change or a timeout in etcd would.
	failGets int
}

func newMemStore() *memStore { return &memStore{kvs: map[string]store.KV{}} }

func (m *memStore) Get(_ context.Context, key string) (store.KV, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failGets > 0 {
		m.failGets--
		return store.KV{}, fmt.Errorf("get %q: etcdserver: leader changed", key)
	}
	kv, ok := m.kvs[key]
	if !ok {
		return store.KV{}, fmt.Errorf("get %q: %w", key, store.ErrNotFound)
	}
	return kv, nil
}

func (m *memStore) List(_ context.Context, prefix string, _ store.ListOptions) (store.ListResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out store.ListResult
	for k, kv := range m.kvs {
		if strings.HasPrefix(k, prefix) {
			out.Items = append(out.Items, kv)
		}
	}
	sort.Slice(out.Items, func(i, j int) bool { return out.Items[i].Key < out.Items[j].Key })
	out.Revision = m.revision
	return out, nil
}

func (m *memStore) Create(_ context.Context, key string, value []byte) (store.KV, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.kvs[key]; ok {
		m.conflicts++
		return store.KV{}, fmt.Errorf("create %q: %w", key, store.ErrAlreadyExists)
	}
	m.revision++
	m.writes++
	kv := store.KV{Key: key, Value: append([]byte(nil), value...), ModRevision: m.revision, CreateRevision: m.revision, Version: 1}
	m.kvs[key] = kv
	return kv, nil
}

func (m *memStore) Update(_ context.Context, key string, value []byte, expected int64) (store.KV, error) {
	if m.beforeUpdate != nil {
		m.beforeUpdate(key)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	kv, ok := m.kvs[key]
	if !ok {
		return store.KV{}, fmt.Errorf("update %q: %w", key, store.ErrNotFound)
	}
	if expected != 0 && kv.ModRevision != expected {
		m.conflicts++
		return store.KV{}, fmt.Errorf("update %q: %w", key, store.ErrConflict)
	}
	m.revision++
	m.writes++
	kv.Value, kv.ModRevision, kv.Version = append([]byte(nil), value...), m.revision, kv.Version+1
	m.kvs[key] = kv
	return kv, nil
}

func (m *memStore) Delete(_ context.Context, key string, _ int64) (store.KV, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	kv, ok := m.kvs[key]
	if !ok {
		return store.KV{}, fmt.Errorf("delete %q: %w", key, store.ErrNotFound)
	}
	delete(m.kvs, key)
	m.revision++
	kv.ModRevision = m.revision
	return kv, nil
}

func (m *memStore) Watch(context.Context, string, int64) (store.Watcher, error) {
	return nil, errors.New("memStore: watch not supported")
}

func (m *memStore) CurrentRevision(context.Context) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.revision, nil
}

func (m *memStore) Compact(context.Context, int64) error {
	return errors.New("memStore: compact not supported")
}
