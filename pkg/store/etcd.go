package store

import (
	"context"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// EtcdStore implements Interface on an etcd v3 cluster.
//
// Every write is a single etcd transaction, so the check ("is the key still at
// the revision the caller read?") and the write happen atomically on the
// server: this is the optimistic concurrency that Kubernetes builds on. The
// revision etcd assigns to a write becomes the object's resourceVersion.
type EtcdStore struct {
	client *clientv3.Client
	// ownsClient says Close must close client (Connect made it).
	ownsClient bool

	// inProcess, if set, serves watches in-process (the embedded etcd);
	// otherwise each watch has its own gRPC stream.
	inProcess *inProcessWatch
}

var _ Interface = (*EtcdStore)(nil)

// NewEtcdStore returns a store that uses client. The caller keeps ownership
// of client: Close does not close it.
func NewEtcdStore(client *clientv3.Client) *EtcdStore {
	return &EtcdStore{client: client}
}

// Connect dials the etcd cluster at endpoints (URLs such as
// "http://127.0.0.1:2379", as given to the apiserver's --etcd-servers) and
// checks with one read that it answers before ctx ends (and within 20 s).
func Connect(ctx context.Context, endpoints []string) (*EtcdStore, error) {
	if len(endpoints) == 0 {
		return nil, errors.New("connect to etcd: no endpoints given")
	}
	client, err := newEtcdClient(endpoints)
	if err != nil {
		return nil, fmt.Errorf("connect to etcd: %w", err)
	}
	s := &EtcdStore{client: client, ownsClient: true}
	// clientv3 dials lazily, so only a request proves the cluster is there.
	// It keeps retrying an unreachable cluster, hence the time limit.
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	if _, err := s.CurrentRevision(ctx); err != nil {
		_ = client.Close()
		return nil, fmt.Errorf("connect to etcd %v: %w", endpoints, err)
	}
	return s, nil
}

// Client returns the etcd client the store uses.
func (s *EtcdStore) Client() *clientv3.Client { return s.client }

// Close releases the client if Connect created it; a client passed to
// NewEtcdStore is left to its owner.
func (s *EtcdStore) Close() error {
	if !s.ownsClient {
		return nil
	}
	if err := s.client.Close(); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("close etcd client: %w", err)
	}
	return nil
}

// Get returns the current value of key, or ErrNotFound.
func (s *EtcdStore) Get(ctx context.Context, key string) (KV, error) {
	resp, err := s.client.Get(ctx, key)
	if err != nil {
		return KV{}, fmt.Errorf("get %q: %w", key, translateError(err))
	}
	if len(resp.Kvs) == 0 {
		return KV{}, fmt.Errorf("get %q: %w", key, ErrNotFound)
	}
	return kvFromEtcd(resp.Kvs[0]), nil
}

// Create stores value under key only if the key does not exist. A key that
// never existed, or was deleted, has create revision 0 in etcd; comparing on it
// inside the transaction makes "check free, then write" one atomic step.
func (s *EtcdStore) Create(ctx context.Context, key string, value []byte) (KV, error) {
	resp, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, string(value))).
		Commit()
	if err != nil {
		return KV{}, fmt.Errorf("create %q: %w", key, translateError(err))
	}
	if !resp.Succeeded {
		return KV{}, fmt.Errorf("create %q: %w", key, ErrAlreadyExists)
	}
	// A write transaction's header carries the revision of that write.
	rev := resp.Header.Revision
	return KV{Key: key, Value: value, ModRevision: rev, CreateRevision: rev, Version: 1}, nil
}

// Update replaces the value of key if its mod revision is still
// expectedRevision: the compare-and-swap behind every Kubernetes update, which
// answers 409 Conflict to a writer that read a stale resourceVersion.
//
// An expectedRevision of 0 updates whatever revision the key has, but still
// only an existing key: Update never creates.
func (s *EtcdStore) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (KV, error) {
	guard := clientv3.Compare(clientv3.ModRevision(key), "=", expectedRevision)
	if expectedRevision == 0 {
		guard = clientv3.Compare(clientv3.ModRevision(key), ">", 0)
	}
	resp, err := s.client.Txn(ctx).
		If(guard).
		// Reading the key back (without its value) after the put gives the
		// create revision, which the caller may not have.
		Then(clientv3.OpPut(key, string(value)), clientv3.OpGet(key, clientv3.WithKeysOnly())).
		Else(clientv3.OpGet(key)).
		Commit()
	if err != nil {
		return KV{}, fmt.Errorf("update %q: %w", key, translateError(err))
	}
	if !resp.Succeeded {
		// The Else branch read the key, telling a stale revision apart from
		// a key that is gone.
		if len(resp.Responses[0].GetResponseRange().Kvs) == 0 {
			return KV{}, fmt.Errorf("update %q: %w", key, ErrNotFound)
		}
		current := resp.Responses[0].GetResponseRange().Kvs[0].ModRevision
		return KV{}, fmt.Errorf("update %q at revision %d (now %d): %w", key, expectedRevision, current, ErrConflict)
	}
	kv := KV{Key: key, Value: value, ModRevision: resp.Header.Revision}
	if written := resp.Responses[1].GetResponseRange().Kvs; len(written) > 0 {
		kv.CreateRevision = written[0].CreateRevision
		kv.Version = written[0].Version
	}
	return kv, nil
}

// Delete removes key if its mod revision is expectedRevision (0: whatever it
// is) and returns the value it had, with ModRevision set to the revision of
// the delete. Kubernetes reports a deleted object with that resourceVersion,
// which is also what a watcher sees in the DELETED event.
func (s *EtcdStore) Delete(ctx context.Context, key string, expectedRevision int64) (KV, error) {
	guard := clientv3.Compare(clientv3.ModRevision(key), "=", expectedRevision)
	if expectedRevision == 0 {
		guard = clientv3.Compare(clientv3.ModRevision(key), ">", 0)
	}
	resp, err := s.client.Txn(ctx).
		If(guard).
		Then(clientv3.OpDelete(key, clientv3.WithPrevKV())).
		Else(clientv3.OpGet(key)).
		Commit()
	if err != nil {
		return KV{}, fmt.Errorf("delete %q: %w", key, translateError(err))
	}
	if !resp.Succeeded {
		if len(resp.Responses[0].GetResponseRange().Kvs) == 0 {
			return KV{}, fmt.Errorf("delete %q: %w", key, ErrNotFound)
		}
		current := resp.Responses[0].GetResponseRange().Kvs[0].ModRevision
		return KV{}, fmt.Errorf("delete %q at revision %d (now %d): %w", key, expectedRevision, current, ErrConflict)
	}
	deleted := resp.Responses[0].GetResponseDeleteRange()
	if len(deleted.PrevKvs) == 0 {
		// The guard saw the key, so the delete removed it; etcd always
		// returns the previous value when asked. Treat the impossible case
		// as "not found" rather than inventing a value.
		return KV{}, fmt.Errorf("delete %q: no previous value returned: %w", key, ErrNotFound)
	}
	kv := kvFromEtcd(deleted.PrevKvs[0])
	kv.ModRevision = resp.Header.Revision
	return kv, nil
}
