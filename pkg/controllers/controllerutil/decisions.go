package controllerutil

import (
	"slices"
	"sync"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// DecisionLog writes one controller's decisions into its component's debug
// journal, where `ctl why <kind>/<name>` reads them: what the sync decided
// about an object, in words and numbers, and the upstream file whose
// behaviour it mirrors.
//
// A controller builds each decision from the numbers its sync already
// computed (a small decision.go next to the sync) and calls Record once per
// sync that decided something. A sync that reaches the same conclusion as
// the last one recorded for that object (the same message and lines: the
// same rollout still waiting for the same pods) records nothing, so the
// many no-op syncs a controller runs — every status change of every pod
// enqueues its owner — do not push real decisions out of the ring.
//
// A nil *DecisionLog (the component runs without a debug journal) records
// nothing; callers that compute something only for the record ask Enabled
// first, so with the debug API off a decision costs one pointer check.
type DecisionLog struct {
	journal  *debug.Journal
	actor    string
	resource string

	mu sync.Mutex
	// last holds, by object key, the message and lines of the last
	// decision recorded about it: the dedup state. Forget drops an object's
	// entry when the object is gone, so the map never outgrows the cache.
	last map[string][]string
}

// NewDecisionLog returns the decision log of controller actor about
// objects of resource ("deployments.apps", "replicasets.apps", "pods"), or
// nil when j is nil.
func NewDecisionLog(j *debug.Journal, actor, resource string) *DecisionLog {
	if !j.Enabled() {
		return nil
	}
	return &DecisionLog{journal: j, actor: actor, resource: resource, last: map[string][]string{}}
}

// Enabled reports whether l records anything.
func (l *DecisionLog) Enabled() bool { return l != nil }

// Record records d about the object meta describes, filling in Actor,
// Resource, Key, UID and ResourceVersion (the version the sync read) from
// l and meta. It records nothing when the last decision recorded about that
// object said the same.
func (l *DecisionLog) Record(meta *api.ObjectMeta, d debug.Decision) {
	if l == nil {
		return
	}
	key := meta.Name
	if meta.Namespace != "" {
		key = meta.Namespace + "/" + meta.Name
	}
	said := append([]string{d.Message}, d.Lines...)
	l.mu.Lock()
	if slices.Equal(l.last[key], said) {
		l.mu.Unlock()
		return
	}
	l.last[key] = said
	l.mu.Unlock()

	d.Actor, d.Resource, d.Key = l.actor, l.resource, key
	d.UID, d.ResourceVersion = meta.UID, meta.ResourceVersion
	l.journal.Decision(d)
}

// Forget drops what l remembers about key: call it when the object is
// gone. A new object of the same name then gets its first decision
// recorded even if it reads like the old one's last.
func (l *DecisionLog) Forget(key string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	delete(l.last, key)
	l.mu.Unlock()
}
