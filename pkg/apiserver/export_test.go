package apiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// SetInFlightHook makes every request that holds an in-flight slot call
// hook just before it is served, so that a test can hold requests in
// flight (a gate) or make them outlast --request-timeout.
func (s *Server) SetInFlightHook(hook func(*http.Request)) { s.inFlightHook.Store(&hook) }

// PutMasterLease writes the endpoint reconciler's key for address with a
// lease of ttl and never renews it: what an apiserver killed right after
// a renewal leaves behind.
func PutMasterLease(ctx context.Context, s *Server, address string, ttl time.Duration) error {
	r := &leaseEndpointReconciler{address: address}
	value, err := json.Marshal(r.leaseObject())
	if err != nil {
		return err
	}
	_, err = s.etcd.PutWithTTL(ctx, masterLeasePrefix+address, value, ttl)
	return err
}

// CachedObject is the watch cache's own object for plural/namespace/name
// (shared by every reader, never to be written to), or nil when the cache
// does not hold it yet.
func CachedObject(s *Server, plural, namespace, name string) any {
	res := s.reg.byPluralAny[plural]
	entry, ok := s.cacheFor(res).Get(res.key(namespace, name))
	if !ok {
		return nil
	}
	return entry.Object.(*storedObject).obj
}

// CustomResourceSchema is the seam to the structural and cel packages,
// for tests that stand in for them.
type CustomResourceSchema = customResourceSchema

// SetCustomResourceSchema makes the apiserver use schema for CRD schemas
// and custom resources until the returned restore is called.
func SetCustomResourceSchema(schema CustomResourceSchema) (restore func()) {
	previous := customResourceSchemas
	customResourceSchemas = schema
	return func() { customResourceSchemas = previous }
}
