package debug

import "encoding/json"

// The apiserver's etcd routes (`ctl etcd`) and its compaction fault (`ctl
// fault compact`). Only the apiserver serves them.
const (
	// PathEtcdKeys lists keys: prefix=P (default /registry/), limit=N
	// (default 500), continue=TOKEN (the previous page's Continue).
	// Answers an EtcdKeyList.
	PathEtcdKeys = "/debug/kplane/etcd/keys"
	// PathEtcdGet reads one key: key=K. Answers an EtcdValue.
	PathEtcdGet = "/debug/kplane/etcd/get"
	// PathEtcdHistory reads a key's MVCC history: key=K, limit=N (the
	// newest N changes, default 100). Answers an EtcdHistory.
	PathEtcdHistory = "/debug/kplane/etcd/history"
	// PathFaultCompact (POST) compacts etcd to now and drops every watch.
	// Answers a CompactResult.
	PathFaultCompact = "/debug/kplane/fault/compact"
)

// EtcdKey is one key and the revisions etcd keeps for it.
type EtcdKey struct {
	Key string `json:"key"`
	// CreateRevision is the revision of the write that created the key.
	CreateRevision int64 `json:"createRevision"`
	// ModRevision is the revision of its last write: the object's
	// resourceVersion.
	ModRevision int64 `json:"modRevision"`
	// Version counts the writes since the key was created (1: created,
	// never updated).
	Version int64 `json:"version"`
	// ValueSize is the value's length in bytes.
	ValueSize int `json:"valueSize"`
}

// EtcdKeyList is one page of keys under a prefix, in key order.
type EtcdKeyList struct {
	Prefix string `json:"prefix"`
	// Revision is the store revision the page was read at; every page of
	// one listing is read at the first page's revision.
	Revision int64     `json:"revision"`
	Keys     []EtcdKey `json:"keys"`
	// Continue, when set, fetches the next page (continue=…), and
	// RemainingKeys says how many keys are left.
	Continue      string `json:"continue,omitempty"`
	RemainingKeys int64  `json:"remainingKeys,omitempty"`
}

// EtcdValue is one key with its value.
type EtcdValue struct {
	EtcdKey
	// Value is the stored value: the object's JSON as the apiserver
	// stored it (a value that is not JSON comes as a JSON string).
	Value json.RawMessage `json:"value"`
}

// The events of a key's history: etcd has only puts and deletes; a put
// that creates the key is a create.
const (
	EtcdCreate = "create"
	EtcdUpdate = "update"
	EtcdDelete = "delete"
)

// EtcdRevision is one change of a key in etcd's history.
type EtcdRevision struct {
	// Revision is the revision of the change (the key's mod revision);
	// ResourceVersion is the same number as the API shows it to clients.
	Revision        int64  `json:"revision"`
	ResourceVersion string `json:"resourceVersion"`
	// Event is EtcdCreate, EtcdUpdate or EtcdDelete ("" for the value
	// kept at the compaction point, whose change is gone).
	Event string `json:"event,omitempty"`
	// Version counts the key's writes since its creation (0 for a delete).
	Version int64 `json:"version,omitempty"`
	// Value is the value written (none for a delete), and ValueSize its
	// length in bytes as etcd stores it.
	Value     json.RawMessage `json:"value,omitempty"`
	ValueSize int             `json:"valueSize,omitempty"`
}

// EtcdHistory is what etcd still remembers of one key.
type EtcdHistory struct {
	Key string `json:"key"`
	// Revision is the store revision the history was read up to.
	Revision int64 `json:"revision"`
	// CompactRevision is where etcd's history starts: every change before
	// it was compacted away. 0: etcd has never compacted.
	CompactRevision int64 `json:"compactRevision,omitempty"`
	// AtCompaction is the key's value at the compaction point when it was
	// written before it: the oldest state still readable, whose change
	// itself is gone (its Event is empty).
	AtCompaction *EtcdRevision `json:"atCompaction,omitempty"`
	// Omitted counts older changes left out by the limit.
	Omitted int `json:"omitted,omitempty"`
	// Revisions are the changes since CompactRevision, oldest first.
	Revisions []EtcdRevision `json:"revisions"`
}

// CompactResult is what `ctl fault compact` did.
type CompactResult struct {
	// Revision is the revision etcd was compacted to: a watch or a read
	// from any older resourceVersion now gets 410 Gone.
	Revision int64 `json:"revision"`
	// DroppedWatches is how many watches the apiserver ended.
	DroppedWatches int `json:"droppedWatches"`
}
