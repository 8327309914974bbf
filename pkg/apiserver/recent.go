package apiserver

import "sync"

// recentWrites hands the objects this server has just written to the watch
// cache. Without it every write would be decoded twice: once by the write
// path (which has the typed object and encodes the response anyway) and once
// more when the cache's etcd watch delivers the same change. The cache's
// decoder asks here first, keyed by etcd key and revision, and only decodes
// values someone else wrote (another apiserver, etcdctl) or that it missed.
type recentWrites struct {
	mu    sync.Mutex
	byKey map[string]*storedObject
}

// maxRecentWrites bounds the map: entries the cache never asks for (it
// relisted past them) are dropped wholesale once it grows this large.
const maxRecentWrites = 50000

// remember records the object written under key at its revision.
func (rw *recentWrites) remember(key string, so *storedObject) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.byKey == nil || len(rw.byKey) >= maxRecentWrites {
		rw.byKey = map[string]*storedObject{}
	}
	rw.byKey[key] = so
}

// take returns the object written under key at exactly revision, if this
// server wrote it through res, and forgets it. Two resources may share keys
// (core/v1 and events.k8s.io/v1 Events, conversion.go), each with its own
// watch cache: an object written through one is left for that one's cache,
// and the other decodes the write in its own form.
func (rw *recentWrites) take(res *resource, key string, revision int64) *storedObject {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	so, ok := rw.byKey[key]
	if !ok || so.revision > revision {
		return nil
	}
	if so.res != res && so.revision == revision {
		return nil
	}
	delete(rw.byKey, key)
	if so.revision != revision {
		return nil
	}
	return so
}
