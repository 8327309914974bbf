package store

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// PutWithTTL writes value under key tied to a fresh etcd lease of ttl
// (rounded up to whole seconds, etcd's unit): unless the key is written
// again within ttl, etcd deletes it on its own. That is how a process says
// "I am alive" in etcd, as upstream's apiservers do under
// /registry/masterleases/: a renewal is another PutWithTTL, and a process
// that dies simply stops renewing. The lease the previous put attached is
// left to expire with no key on it.
func (s *EtcdStore) PutWithTTL(ctx context.Context, key string, value []byte, ttl time.Duration) (KV, error) {
	seconds := int64((ttl + time.Second - 1) / time.Second)
	if seconds < 1 {
		seconds = 1
	}
	lease, err := s.client.Grant(ctx, seconds)
	if err != nil {
		return KV{}, fmt.Errorf("grant a %ds lease for %q: %w", seconds, key, translateError(err))
	}
	resp, err := s.client.Put(ctx, key, string(value), clientv3.WithLease(lease.ID))
	if err != nil {
		return KV{}, fmt.Errorf("put %q with a %ds lease: %w", key, seconds, translateError(err))
	}
	return KV{Key: key, Value: value, ModRevision: resp.Header.Revision}, nil
}
