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
	"sync"

	"kplane/pkg/auth"
)

// Record is the audit state of one request while it is served: what later
// steps of the handler chain add to its Event. It is safe for concurrent
// use (a watch writes from its own goroutine).
type Record struct {
	mu sync.Mutex
	// impersonatedUser is who the request acts as, when it impersonates.
	impersonatedUser *auth.User
	// annotations are key/values an authorizer or admission step adds
	// (authorization.k8s.io/decision, authorization.k8s.io/reason).
	annotations map[string]string
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
