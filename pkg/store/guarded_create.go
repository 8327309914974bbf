package store

import (
	"context"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// ErrGuardChanged: a guarded write found its guard key at another revision
// than the caller saw, and wrote nothing.
var ErrGuardChanged = errors.New("guard key changed")

// CreateGuarded stores value under key if the key is free and guardKey is
// still at guardRevision (its mod revision; 0 means absent), in one etcd
// transaction. It answers ErrAlreadyExists when the key is taken and
// ErrGuardChanged when only the guard moved.
//
// The apiserver creates namespaced objects this way, guarded by their
// namespace's key at the revision admission checked: a create can then
// never land in a namespace that another apiserver marked for deletion in
// the meantime, whatever its own watch cache has seen, and it costs no
// extra round trip.
func (s *EtcdStore) CreateGuarded(ctx context.Context, key string, value []byte, guardKey string, guardRevision int64) (KV, error) {
	resp, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0),
			clientv3.Compare(clientv3.ModRevision(guardKey), "=", guardRevision)).
		Then(clientv3.OpPut(key, string(value))).
		Else(clientv3.OpGet(key, clientv3.WithKeysOnly())).
		Commit()
	if err != nil {
		return KV{}, fmt.Errorf("create %q: %w", key, translateError(err))
	}
	if !resp.Succeeded {
		if len(resp.Responses[0].GetResponseRange().Kvs) > 0 {
			return KV{}, fmt.Errorf("create %q: %w", key, ErrAlreadyExists)
		}
		return KV{}, fmt.Errorf("create %q: %s is no longer at revision %d: %w", key, guardKey, guardRevision, ErrGuardChanged)
	}
	rev := resp.Header.Revision
	return KV{Key: key, Value: value, ModRevision: rev, CreateRevision: rev, Version: 1}, nil
}
