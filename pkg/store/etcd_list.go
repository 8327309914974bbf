package store

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// revisionProbeKey is the key CurrentRevision asks about. Any key will do:
// the answer's header carries the store's revision whether or not it exists.
const revisionProbeKey = "/registry"

// List returns the keys under prefix in key order.
//
// Paging works on keys, as upstream's apiserver does: the next page starts
// just after the last key of the previous one (opts.StartAfter) and should be
// read at the same opts.Revision, so the pages together form one consistent
// snapshot. etcd reports how many keys the range holds, which gives Remaining
// without reading them.
func (s *EtcdStore) List(ctx context.Context, prefix string, opts ListOptions) (ListResult, error) {
	start := prefix
	if opts.StartAfter != "" && opts.StartAfter+"\x00" > start {
		// The smallest key greater than StartAfter is StartAfter followed by
		// a zero byte.
		start = opts.StartAfter + "\x00"
	}
	end := clientv3.GetPrefixRangeEnd(prefix)
	if start == "" {
		// etcd refuses an empty key; "\x00" is the first key there is.
		start = "\x00"
	}
	getOpts := []clientv3.OpOption{clientv3.WithRange(end)}
	if opts.Limit > 0 {
		getOpts = append(getOpts, clientv3.WithLimit(opts.Limit))
	}
	if opts.Revision > 0 {
		getOpts = append(getOpts, clientv3.WithRev(opts.Revision))
	}
	resp, err := s.client.Get(ctx, start, getOpts...)
	if err != nil {
		err = translateError(err)
		if errors.Is(err, ErrFutureRevision) {
			// etcd does not say where it is; as upstream's GetList, read it,
			// and report 0 if even that fails.
			current, _ := s.CurrentRevision(ctx)
			err = &FutureRevisionError{Requested: opts.Revision, Current: current}
		}
		return ListResult{}, fmt.Errorf("list %q at revision %d: %w", prefix, opts.Revision, err)
	}
	result := ListResult{
		Items:     make([]KV, 0, len(resp.Kvs)),
		Revision:  resp.Header.Revision,
		More:      resp.More,
		Remaining: resp.Count - int64(len(resp.Kvs)),
	}
	if opts.Revision > 0 {
		// The header always carries the latest revision; the snapshot read
		// is the one asked for.
		result.Revision = opts.Revision
	}
	for _, kv := range resp.Kvs {
		result.Items = append(result.Items, kvFromEtcd(kv))
	}
	return result, nil
}

// CurrentRevision returns the store's latest revision. The read is
// linearizable (it goes through the leader), so the answer is at least the
// revision of every write that finished before the call.
func (s *EtcdStore) CurrentRevision(ctx context.Context) (int64, error) {
	resp, err := s.client.Get(ctx, revisionProbeKey, clientv3.WithCountOnly())
	if err != nil {
		return 0, fmt.Errorf("read current revision: %w", translateError(err))
	}
	return resp.Header.Revision, nil
}

// Compact discards the history before revision: reads and watches at older
// revisions fail with ErrGone afterwards. Compacting to a revision that is
// already compacted also gives ErrGone. The space is reclaimed by etcd in the
// background (the compaction is not "physical", so Compact does not wait).
func (s *EtcdStore) Compact(ctx context.Context, revision int64) error {
	if _, err := s.client.Compact(ctx, revision); err != nil {
		return fmt.Errorf("compact to revision %d: %w", revision, translateError(err))
	}
	return nil
}

// kvFromEtcd copies the fields kplane uses out of an etcd key-value.
func kvFromEtcd(kv *mvccpb.KeyValue) KV {
	return KV{
		Key:            string(kv.Key),
		Value:          kv.Value,
		ModRevision:    kv.ModRevision,
		CreateRevision: kv.CreateRevision,
		Version:        kv.Version,
	}
}
