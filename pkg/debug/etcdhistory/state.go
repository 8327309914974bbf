package etcdhistory

import (
	"fmt"

	"kplane/pkg/debug"
)

// StateAt is what a key's history says of one revision: the change made
// then and the change before it, from which the object's state as of the
// revision and what the revision changed are read.
type StateAt struct {
	// At is the change at the revision; for a delete it has no value.
	At debug.EtcdRevision
	// Before is the change before it, nil when the revision created the
	// key or when what came before is no longer kept (compacted, or older
	// than the history's limit).
	Before *debug.EtcdRevision
}

// CompactedError says the revision asked for is older than etcd's history:
// compaction removed it, and the object's state then cannot be shown.
type CompactedError struct {
	Key                       string
	Revision, CompactRevision int64
}

func (e *CompactedError) Error() string {
	return fmt.Sprintf("etcd has compacted %s's history up to revision %d: revision %d is gone, so the object's state then cannot be shown",
		e.Key, e.CompactRevision, e.Revision)
}

// FindRevision finds revision in h (the history of one key): an
// CompactedError when compaction removed it, a plain error when the history
// does not hold it (not a revision of this key, or older than the newest
// changes h was asked for).
func FindRevision(h debug.EtcdHistory, revision int64) (StateAt, error) {
	kept := h.Revisions
	if h.AtCompaction != nil {
		kept = append([]debug.EtcdRevision{*h.AtCompaction}, kept...)
	}
	for i, r := range kept {
		if r.Revision != revision {
			continue
		}
		state := StateAt{At: r}
		if i > 0 && r.Event != debug.EtcdCreate {
			state.Before = &kept[i-1]
		}
		return state, nil
	}
	if h.CompactRevision > 0 && revision < h.CompactRevision {
		return StateAt{}, &CompactedError{Key: h.Key, Revision: revision, CompactRevision: h.CompactRevision}
	}
	if h.Omitted > 0 && len(h.Revisions) > 0 && revision < h.Revisions[0].Revision {
		return StateAt{}, fmt.Errorf("revision %d of %s is older than the %d newest changes read", revision, h.Key, len(h.Revisions))
	}
	return StateAt{}, fmt.Errorf("%s was not written at revision %d", h.Key, revision)
}
