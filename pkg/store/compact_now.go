package store

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// CompactToNow compacts etcd's history up to a revision newer than any a
// client has seen, and returns that revision. It is the `ctl fault compact`
// fault: afterwards a watch or a read from any resourceVersion handed out
// before the call fails with ErrGone (410 Gone at the API).
//
// Compacting to the current revision would not be enough: a client that
// saw that very revision could still resume from it, since etcd keeps the
// revision it compacts to. So CompactToNow first writes compactRevisionKey,
// whose revision no client watching /registry ever sees, and compacts to
// that. The write also counts as a turn of the compactors' protocol (see
// RunCompactor): each compactor's next tick finds the key's version moved,
// follows it and skips its own compaction.
//
// The compaction is physical: it returns once etcd has removed the old
// revisions from its database, not only from its index.
func (s *EtcdStore) CompactToNow(ctx context.Context) (int64, error) {
	// The value is never read; compactors look at the key's version only.
	put, err := s.client.Put(ctx, compactRevisionKey, "")
	if err != nil {
		return 0, fmt.Errorf("compact to now: write %s: %w", compactRevisionKey, translateError(err))
	}
	revision := put.Header.Revision
	if _, err := s.client.Compact(ctx, revision, clientv3.WithCompactPhysical()); err != nil {
		return 0, fmt.Errorf("compact to revision %d: %w", revision, translateError(err))
	}
	return revision, nil
}
