package robustness

import "time"

// OpKind is what a traffic operation did.
type OpKind string

// The operations the traffic clients run.
const (
	OpCreate OpKind = "create"
	OpUpdate OpKind = "update"
	OpPatch  OpKind = "patch"
	OpDelete OpKind = "delete"
	OpList   OpKind = "list"
)

// Outcome is what a client learned of an operation.
type Outcome string

// The three outcomes, as etcd's robustness tests classify them.
const (
	// Acknowledged: a 2xx answer; the write happened, at ResourceVersion.
	Acknowledged Outcome = "acknowledged"
	// Refused: a 4xx answer (conflict, not found, already exists…); the
	// write did not happen.
	Refused Outcome = "refused"
	// Unknown: the connection broke or the answer was a 5xx; the write may
	// or may not have happened.
	Unknown Outcome = "unknown"
)

// Operation is one request a traffic client made and what it got back.
type Operation struct {
	Client    int
	Kind      OpKind
	Namespace string
	// Name is the ConfigMap's name; empty for a list.
	Name string
	// Value is the unique value a create, update or patch writes into the
	// ConfigMap's data (key "v"); empty for a delete or list.
	Value string
	// Precondition is the resourceVersion the write required the object
	// to have (update's metadata.resourceVersion, a patch's, a delete's
	// preconditions); 0 when it required none.
	Precondition int64
	// ListResourceVersion is, for a list, the resourceVersion it asked
	// for: "" (consistent, the latest), "0" (any, from the cache) or a
	// number, which ListMatch qualifies.
	ListResourceVersion string
	// ListMatch is a list's resourceVersionMatch: "" or "NotOlderThan"
	// (at least ListResourceVersion), or "Exact" (exactly it, read from
	// etcd's history).
	ListMatch string
	// Pages is how many pages (limit + continue) a list took; 1 unless
	// it was paginated.
	Pages int
	// PagesDisagree, for an acknowledged paginated list, says how its
	// pages disagreed on the resourceVersion they were read at.
	PagesDisagree string
	Start, End    time.Time
	Outcome       Outcome
	// Code is the HTTP status; 0 when no answer came.
	Code int
	// ResourceVersion is the answer's: the written object's, or the
	// list's.
	ResourceVersion int64
	// Items is a list's answer: one entry per ConfigMap name.
	Items map[string]ObjectState
	// Err says why the outcome is not Acknowledged.
	Err string
}

// ObjectState is a ConfigMap as a client saw it: the resourceVersion it
// was written at and its value.
type ObjectState struct {
	ResourceVersion int64
	Value           string
}

// EventType is the kind of a change in etcd's history.
type EventType string

// The two kinds of change etcd records.
const (
	Put    EventType = "put"
	Delete EventType = "delete"
)

// HistoryEvent is one change in etcd, as the recorder saw it.
type HistoryEvent struct {
	// Key is the etcd key, /registry/configmaps/<namespace>/<name>.
	Key      string
	Revision int64
	Type     EventType
	// Created is true for a put that made the key (its version is 1).
	Created bool
	// Value is the stored ConfigMap's value; for a delete, the value it
	// had.
	Value string
}

// History is every change etcd made under the recorded prefix, in
// revision order, from revision 1 to LastRevision.
type History struct {
	Events []HistoryEvent
	// LastRevision is the newest revision the recorder knows etcd had
	// (the events end at or before it).
	LastRevision int64
}

// Observation is one thing a watcher saw, in the order it saw them.
type Observation struct {
	Kind ObservationKind
	// Revision is the list's or the event's resourceVersion, or where a
	// watch started.
	Revision int64
	// EventType is ADDED, MODIFIED or DELETED for an event.
	EventType string
	// Key is an event's etcd key.
	Key   string
	Value string
	// Items is a list's answer, keyed by etcd key.
	Items map[string]ObjectState
	// Detail says why a stream ended.
	Detail string
}

// ObservationKind names what a watcher saw.
type ObservationKind string

// What a watcher records.
const (
	// ObservedList: a LIST answered at Revision with Items.
	ObservedList ObservationKind = "list"
	// ObservedWatchStart: a watch began from Revision.
	ObservedWatchStart ObservationKind = "watch"
	// ObservedEvent: an ADDED, MODIFIED or DELETED event.
	ObservedEvent ObservationKind = "event"
	// ObservedBookmark: a BOOKMARK at Revision.
	ObservedBookmark ObservationKind = "bookmark"
	// ObservedGone: an ERROR event with 410 Gone; the watcher relists.
	ObservedGone ObservationKind = "gone"
	// ObservedError: any other ERROR event; the watcher relists.
	ObservedError ObservationKind = "error"
	// ObservedEnd: the stream ended without an error event (a dropped
	// connection, a restart); the watcher resumes from the last revision.
	ObservedEnd ObservationKind = "end"
)

// WatcherRecord is everything one watcher saw.
type WatcherRecord struct {
	Name string
	// Prefix is the etcd key prefix the watcher covers:
	// /registry/configmaps/ or /registry/configmaps/<namespace>/.
	Prefix       string
	Bookmarks    bool
	Observations []Observation
}
