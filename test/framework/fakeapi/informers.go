package fakeapi

import (
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/informer"
)

// Informers returns the informer factory to build the controller under
// test on. It lists and watches through this server's client, but a unit
// test never starts it: Put and Cache fill its caches directly, as the
// informers would after a watch event, so one sync runs on exactly the
// state the test describes. Its Journal is the server's (see Journal).
func (s *Server) Informers() *informer.SharedInformerFactory {
	s.informersOnce.Do(func() {
		s.informers = informer.NewSharedInformerFactory(s.client, 0, informer.WithJournal(s.journal))
	})
	return s.informers
}

// Put makes objects part of the world the controller sees: stored in the
// server (Add) and in the informers' caches (Cache).
func (s *Server) Put(t testing.TB, objects ...api.Object) {
	t.Helper()
	s.Add(t, objects...)
	s.Cache(t, objects...)
}

// Cache adds or replaces objects in the informers' caches only, leaving
// the server as it is: a cache that lags the apiserver (a write the watch
// has not delivered yet), or the informer's view after the controller's
// own write. The controller must already have asked the factory for the
// objects' informer; caching a kind it does not watch fails the test.
func (s *Server) Cache(t testing.TB, objects ...api.Object) {
	t.Helper()
	for _, obj := range objects {
		if err := s.cacheOf(t, "Cache", obj).Update(obj); err != nil {
			t.Fatalf("fakeapi: cache %T %s: %v", obj, obj.GetObjectMeta().Name, err)
		}
	}
}

// Uncache removes objects from the informers' caches, as a watch's
// delete event would, leaving the server as it is.
func (s *Server) Uncache(t testing.TB, objects ...api.Object) {
	t.Helper()
	for _, obj := range objects {
		if err := s.cacheOf(t, "Uncache", obj).Delete(obj); err != nil {
			t.Fatalf("fakeapi: uncache %T %s: %v", obj, obj.GetObjectMeta().Name, err)
		}
	}
}

// cacheOf returns the cache of the informer the controller has for obj's
// kind, failing the test (in the name of caller) if it has none.
func (s *Server) cacheOf(t testing.TB, caller string, obj api.Object) informer.Indexer {
	t.Helper()
	res, ok := s.objectResource(obj)
	if !ok {
		t.Fatalf("fakeapi: %s of %T: not a kind kplane serves", caller, obj)
	}
	return s.Informers().InformerFor(res, func() informer.SharedIndexInformer {
		t.Fatalf("fakeapi: %s of a %s: the controller has no informer for %s", caller, res.Kind, res)
		return nil
	}).GetIndexer()
}
