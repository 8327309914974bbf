package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// DefaultHistoryLimit is how many changes History returns unless told
// otherwise: the newest ones. kplane compacts every five minutes, so a key
// rarely has more; a Lease renewed every ten seconds has about thirty.
const DefaultHistoryLimit = 100

// progressRetryInterval is how often History asks etcd whether its replay
// is complete. etcd ignores the question until the watch has caught up (see
// History), so the first few are usually wasted; each costs one small
// message on a local connection.
const progressRetryInterval = 10 * time.Millisecond

// KeyChange is one change to a key in etcd's history: a write (Added for
// the one that created the key, Modified after that) or a delete.
type KeyChange struct {
	Type EventType
	// KV is the key after the change. For Deleted only Key and
	// ModRevision (the delete's revision) are set: etcd keeps no value
	// for a delete.
	KV KV
}

// KeyHistory is what etcd still remembers of one key, oldest first.
type KeyHistory struct {
	Key string
	// Changes are the key's changes from CompactRevision on (or from the
	// start when etcd never compacted), up to Revision, oldest first.
	Changes []KeyChange
	// Omitted counts older changes left out because of the limit.
	Omitted int
	// CompactRevision is the oldest revision etcd still has: every change
	// before it was compacted away. 0 means etcd never compacted.
	CompactRevision int64
	// AtCompaction is the key's value as of CompactRevision when it was
	// written before that revision: the oldest state still readable,
	// whose own change is gone. Nil otherwise.
	AtCompaction *KV
	// Revision is the store revision the history was read up to.
	Revision int64
}

// History returns the changes to key that etcd still keeps, at most limit
// of them (the newest; limit ≤ 0: DefaultHistoryLimit).
//
// etcd keeps every revision of every key until it is compacted (MVCC),
// and a watch that starts at an old revision replays those revisions in
// order before it follows new ones: `etcdctl watch --rev=1 KEY` shows a
// key's history this way, and so does History. It watches the key from
// revision 1; if etcd has compacted, etcd refuses with the oldest revision
// it still has (its compact revision), and the watch starts again there.
//
// A replay does not say when it is over. etcd's progress notification
// does: asked for one, etcd answers only once the watch has sent
// everything up to the store's current revision, with that revision. So
// History asks every progressRetryInterval until the answer comes.
func (s *EtcdStore) History(ctx context.Context, key string, limit int) (KeyHistory, error) {
	if limit <= 0 {
		limit = DefaultHistoryLimit
	}
	h := KeyHistory{Key: key}
	// A watcher of its own (one gRPC stream), so the progress request
	// concerns this watch only; the request must carry the same context
	// metadata as the watch for clientv3 to find its stream.
	watcher := clientv3.NewWatcher(s.client)
	defer func() { _ = watcher.Close() }()
	ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()

	changes := watcher.Watch(ctx, key, clientv3.WithRev(1))
	askProgress := time.NewTicker(progressRetryInterval)
	defer askProgress.Stop()
	for {
		select {
		case <-ctx.Done():
			return KeyHistory{}, fmt.Errorf("history of %q: %w", key, ctx.Err())
		case <-askProgress.C:
			if err := watcher.RequestProgress(ctx); err != nil {
				return KeyHistory{}, fmt.Errorf("history of %q: ask for progress: %w", key, translateError(err))
			}
		case resp, ok := <-changes:
			if !ok {
				return KeyHistory{}, fmt.Errorf("history of %q: etcd closed the watch", key)
			}
			if resp.CompactRevision != 0 {
				// Revision 1 is compacted: start again from the oldest
				// revision etcd keeps.
				h.CompactRevision = resp.CompactRevision
				changes = watcher.Watch(ctx, key, clientv3.WithRev(resp.CompactRevision))
				continue
			}
			if err := resp.Err(); err != nil {
				return KeyHistory{}, fmt.Errorf("history of %q: %w", key, translateError(err))
			}
			if resp.IsProgressNotify() {
				h.Revision = resp.Header.Revision
				h.trim(limit)
				if err := s.readAtCompaction(ctx, &h); err != nil {
					return KeyHistory{}, err
				}
				return h, nil
			}
			for _, ev := range resp.Events {
				h.add(changeFromEtcd(ev), limit)
			}
		}
	}
}

// add appends c, keeping only the newest limit changes. The slice is
// trimmed only when it reaches twice the limit, so adding stays cheap;
// trim makes the limit exact at the end.
func (h *KeyHistory) add(c KeyChange, limit int) {
	h.Changes = append(h.Changes, c)
	if len(h.Changes) >= 2*limit {
		h.trim(limit)
	}
}

// trim drops all but the newest limit changes, counting them in Omitted.
func (h *KeyHistory) trim(limit int) {
	if drop := len(h.Changes) - limit; drop > 0 {
		h.Omitted += drop
		h.Changes = append(h.Changes[:0], h.Changes[drop:]...)
	}
}

// readAtCompaction fills h.AtCompaction: the key's value at the compact
// revision, if it was written earlier. Reading at exactly the compact
// revision is allowed; only older revisions are gone.
func (s *EtcdStore) readAtCompaction(ctx context.Context, h *KeyHistory) error {
	if h.CompactRevision == 0 {
		return nil
	}
	resp, err := s.client.Get(ctx, h.Key, clientv3.WithRev(h.CompactRevision))
	if errors.Is(translateError(err), ErrGone) {
		// Compacted further while we read; the changes are still right.
		return nil
	}
	if err != nil {
		return fmt.Errorf("history of %q: read at compact revision %d: %w", h.Key, h.CompactRevision, translateError(err))
	}
	if len(resp.Kvs) > 0 && resp.Kvs[0].ModRevision < h.CompactRevision {
		kv := kvFromEtcd(resp.Kvs[0])
		h.AtCompaction = &kv
	}
	return nil
}

// changeFromEtcd turns one replayed etcd event into a KeyChange.
func changeFromEtcd(ev *clientv3.Event) KeyChange {
	switch {
	case ev.Type == mvccpb.DELETE:
		return KeyChange{Type: Deleted, KV: KV{Key: string(ev.Kv.Key), ModRevision: ev.Kv.ModRevision}}
	case ev.IsCreate():
		return KeyChange{Type: Added, KV: kvFromEtcd(ev.Kv)}
	default:
		return KeyChange{Type: Modified, KV: kvFromEtcd(ev.Kv)}
	}
}
