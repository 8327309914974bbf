// Package audit records what the apiserver was asked and what it answered,
// as upstream's audit log does: a policy file (audit.k8s.io/v1 Policy)
// chooses, per request, how much to record (None, Metadata, Request,
// RequestResponse), and each recorded stage of a request is written as one
// audit.k8s.io/v1 Event, a JSON line, to --audit-log-path.
//
// The apiserver's audit step sits right after authentication: it starts an
// Event for the request and keeps it in the request's context, so that
// steps further in (impersonation, authorization, the handlers) can add to
// it before it is written when the response completes.
package audit

import (
	"context"
	"encoding/json"
	"sync"

	"kplane/pkg/api"
	"kplane/pkg/auth"
)

// Record is the audit state of one request while it is served: what later
// steps of the handler chain add to its Event. It is safe for concurrent
// use (a watch writes from its own goroutine).
type Record struct {
	// level is the policy's level for the request: it decides whether
	// LogRequestObject keeps the object's body.
	level Level
	mu    sync.Mutex
	// impersonatedUser is who the request acts as, when it impersonates.
	impersonatedUser *auth.User
	// annotations are key/values an authorizer or admission step adds
	// (authorization.k8s.io/decision, authorization.k8s.io/reason).
	annotations map[string]string
	// requestObject is what LogRequestObject noted of the object the
	// handler decoded; nil when the request had none.
	requestObject *requestObject
}

// requestObject is a create's or update's object as the handler decoded
// it: the metadata that names it, and its JSON at the Request level and
// above.
type requestObject struct {
	namespace, name, uid, resourceVersion string
	body                                  json.RawMessage
}

// NewRecord starts the record of a request the policy audits at level.
func NewRecord(level Level) *Record {
	return &Record{level: level}
}

type recordKey struct{}

// WithRecord returns a copy of ctx that carries rec.
func WithRecord(ctx context.Context, rec *Record) context.Context {
	return context.WithValue(ctx, recordKey{}, rec)
}

// RecordFrom returns the request's audit record, or nil when the request
// is not audited.
func RecordFrom(ctx context.Context) *Record {
	rec, _ := ctx.Value(recordKey{}).(*Record)
	return rec
}

// SetImpersonatedUser notes that the request acts as user (impersonation);
// the Event's impersonatedUser field says so. Without a record it does
// nothing.
func SetImpersonatedUser(ctx context.Context, user auth.User) {
	rec := RecordFrom(ctx)
	if rec == nil {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.impersonatedUser = &user
}

// AddAnnotation adds key=value to the request's Event annotations. Without
// a record it does nothing.
func AddAnnotation(ctx context.Context, key, value string) {
	rec := RecordFrom(ctx)
	if rec == nil {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.annotations == nil {
		rec.annotations = map[string]string{}
	}
	rec.annotations[key] = value
}

// LogRequestObject notes the object a create or update handler decoded
// from the request body, as upstream's audit.LogRequestObject: its
// metadata completes the Event's objectRef (a create names its object only
// in the body) at every level, and at the Request level and above the
// object, as JSON, is the Event's requestObject. It is taken now, before
// the handler goes on to change the object. Without a record it does
// nothing, so a request that is not audited pays nothing.
func LogRequestObject(ctx context.Context, obj api.Object) {
	rec := RecordFrom(ctx)
	if rec == nil || obj == nil {
		return
	}
	meta := obj.GetObjectMeta()
	logged := &requestObject{namespace: meta.Namespace, name: meta.Name, uid: meta.UID, resourceVersion: meta.ResourceVersion}
	if rec.level.AtLeast(LevelRequest) {
		if body, err := json.Marshal(obj); err == nil {
			logged.body = body
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.requestObject = logged
}

// CompleteEvent fills in what LogRequestObject noted: the objectRef's
// missing namespace, name, uid and resourceVersion, and the requestObject.
// It reports whether the handler logged an object.
func (r *Record) CompleteEvent(ev *Event) bool {
	r.mu.Lock()
	logged := r.requestObject
	r.mu.Unlock()
	if logged == nil {
		return false
	}
	if ref := ev.ObjectRef; ref != nil {
		if ref.Namespace == "" {
			ref.Namespace = logged.namespace
		}
		if ref.Name == "" {
			ref.Name = logged.name
		}
		if ref.UID == "" {
			ref.UID = logged.uid
		}
		if ref.ResourceVersion == "" {
			ref.ResourceVersion = logged.resourceVersion
		}
	}
	if logged.body != nil {
		ev.RequestObject = logged.body
	}
	return true
}

// ImpersonatedUser returns who the request acts as, if it impersonates.
func (r *Record) ImpersonatedUser() (auth.User, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.impersonatedUser == nil {
		return auth.User{}, false
	}
	return *r.impersonatedUser, true
}

// Annotations returns a copy of the annotations added so far.
func (r *Record) Annotations() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.annotations) == 0 {
		return nil
	}
	out := make(map[string]string, len(r.annotations))
	for k, v := range r.annotations {
		out[k] = v
	}
	return out
}
