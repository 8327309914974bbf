// Package errors builds and inspects the meta/v1 Status errors the apiserver
// returns. Every failure a client can see is one of these: a Reason (NotFound,
// Conflict, Invalid, …), an HTTP code, a message in Kubernetes' wording and,
// for Invalid, the list of fields that failed.
//
// Servers construct them with the New… functions; clients (and tests) ask
// IsNotFound(err), IsConflict(err), … instead of matching strings.
package errors

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"kplane/pkg/api"
)

// Reasons, as meta/v1 StatusReason spells them.
const (
	ReasonNotFound              = "NotFound"
	ReasonAlreadyExists         = "AlreadyExists"
	ReasonConflict              = "Conflict"
	ReasonInvalid               = "Invalid"
	ReasonBadRequest            = "BadRequest"
	ReasonGone                  = "Gone"
	ReasonExpired               = "Expired"
	ReasonUnauthorized          = "Unauthorized"
	ReasonForbidden             = "Forbidden"
	ReasonMethodNotAllowed      = "MethodNotAllowed"
	ReasonNotAcceptable         = "NotAcceptable"
	ReasonUnsupportedMediaType  = "UnsupportedMediaType"
	ReasonRequestEntityTooLarge = "RequestEntityTooLarge"
	ReasonTooManyRequests       = "TooManyRequests"
	ReasonInternalError         = "InternalError"
	ReasonTimeout               = "Timeout"
	ReasonServiceUnavailable    = "ServiceUnavailable"
	ReasonNotImplemented        = "NotImplemented"
)

// StatusError is an error that carries the Status to send (or that was received).
type StatusError struct {
	ErrStatus api.Status
}

// Error returns the Status message.
func (e *StatusError) Error() string { return e.ErrStatus.Message }

// Status returns the meta/v1 Status body, with kind and apiVersion set.
func (e *StatusError) Status() api.Status {
	s := e.ErrStatus
	s.Kind, s.APIVersion, s.Status = "Status", "v1", "Failure"
	return s
}

// Resource names what an error is about: the plural resource and its API group,
// printed as "deployments.apps" (or just "pods" for the core group).
type Resource struct {
	Group    string
	Resource string
}

// String is the qualified resource name Kubernetes prints in messages.
func (r Resource) String() string {
	if r.Group == "" {
		return r.Resource
	}
	return r.Resource + "." + r.Group
}

func newError(code int32, reason, message string, details *api.StatusDetails) *StatusError {
	return &StatusError{ErrStatus: api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   "Failure",
		Code:     code,
		Reason:   reason,
		Message:  message,
		Details:  details,
	}}
}

// NewNotFound says the named object does not exist: `pods "x" not found`.
func NewNotFound(r Resource, name string) *StatusError {
	return newError(http.StatusNotFound, ReasonNotFound,
		fmt.Sprintf("%s %q not found", r, name),
		&api.StatusDetails{Name: name, Group: r.Group, Kind: r.Resource})
}

// NewAlreadyExists says a create found the name taken.
func NewAlreadyExists(r Resource, name string) *StatusError {
	return newError(http.StatusConflict, ReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists", r, name),
		&api.StatusDetails{Name: name, Group: r.Group, Kind: r.Resource})
}

// NewConflict says a write lost an optimistic-concurrency race or broke a
// precondition; reason explains which.
func NewConflict(r Resource, name string, reason string) *StatusError {
	return newError(http.StatusConflict, ReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", r, name, reason),
		&api.StatusDetails{Name: name, Group: r.Group, Kind: r.Resource})
}

// NewInvalid says validation failed; kind is the qualified kind as Kubernetes
// prints it ("Deployment.apps"), errs lists every failing field.
func NewInvalid(kind, group, name string, errs FieldErrorList) *StatusError {
	causes := make([]api.StatusCause, 0, len(errs))
	for _, e := range errs {
		causes = append(causes, api.StatusCause{Type: string(e.Type), Message: e.ErrorBody(), Field: e.Field})
	}
	qualified := kind
	if group != "" {
		qualified = kind + "." + group
	}
	msg := fmt.Sprintf("%s %q is invalid: %s", qualified, name, errs.ToAggregateString())
	return newError(http.StatusUnprocessableEntity, ReasonInvalid, msg,
		&api.StatusDetails{Name: name, Group: group, Kind: kind, Causes: causes})
}

// NewBadRequest says the request itself is malformed.
func NewBadRequest(message string) *StatusError {
	return newError(http.StatusBadRequest, ReasonBadRequest, message, nil)
}

// NewGone says a requested resourceVersion is no longer available (compacted).
// Watches report it with reason Expired, as upstream does.
func NewGone(message string) *StatusError {
	return newError(http.StatusGone, ReasonExpired, message, nil)
}

// NewResourceExpired is NewGone with the wording upstream uses for a compacted
// resourceVersion in a watch or a list.
func NewResourceExpired(message string) *StatusError { return NewGone(message) }

// NewUnauthorized says the request carried no valid credentials.
func NewUnauthorized(message string) *StatusError {
	if message == "" {
		message = "Unauthorized"
	}
	return newError(http.StatusUnauthorized, ReasonUnauthorized, message, nil)
}

// NewForbidden says the authenticated user may not do this, or admission refused it.
func NewForbidden(r Resource, name string, err error) *StatusError {
	msg := fmt.Sprintf("%s %q is forbidden: %v", r, name, err)
	switch {
	case r == Resource{}:
		// A non-resource path (`/logs`, `/metrics`) names no resource.
		msg = fmt.Sprintf("forbidden: %v", err)
	case name == "":
		msg = fmt.Sprintf("%s is forbidden: %v", r, err)
	}
	return newError(http.StatusForbidden, ReasonForbidden, msg,
		&api.StatusDetails{Name: name, Group: r.Group, Kind: r.Resource})
}

// NewMethodNotSupported says the verb does not apply to this resource.
func NewMethodNotSupported(r Resource, verb string) *StatusError {
	return newError(http.StatusMethodNotAllowed, ReasonMethodNotAllowed,
		fmt.Sprintf("%s is not supported on resources of kind %q", verb, r.String()),
		&api.StatusDetails{Group: r.Group, Kind: r.Resource})
}

// NewRequestEntityTooLarge says a body or object is bigger than the server stores.
func NewRequestEntityTooLarge(message string) *StatusError {
	return newError(http.StatusRequestEntityTooLarge, ReasonRequestEntityTooLarge,
		"Request entity too large: "+message, nil)
}

// NewUnsupportedMediaType says the Content-Type is not one the server decodes.
func NewUnsupportedMediaType(contentType string) *StatusError {
	return newError(http.StatusUnsupportedMediaType, ReasonUnsupportedMediaType,
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json; got %q", contentType), nil)
}

// NewTooManyRequests says the client should slow down and retry later.
func NewTooManyRequests(message string, retryAfterSeconds int32) *StatusError {
	return newError(http.StatusTooManyRequests, ReasonTooManyRequests, message,
		&api.StatusDetails{RetryAfterSeconds: retryAfterSeconds})
}

// NewTimeoutError says the server gave up on a request that took too long
// (504, reason Timeout), worded as upstream: "Timeout: " + message.
func NewTimeoutError(message string, retryAfterSeconds int32) *StatusError {
	return newError(http.StatusGatewayTimeout, ReasonTimeout, "Timeout: "+message,
		&api.StatusDetails{RetryAfterSeconds: retryAfterSeconds})
}

// NewNotImplemented says the server knows the path but does not serve it yet.
func NewNotImplemented(message string) *StatusError {
	return newError(http.StatusNotImplemented, ReasonNotImplemented, message, nil)
}

// NewInternalError wraps an unexpected failure; the message never includes a stack.
func NewInternalError(err error) *StatusError {
	return newError(http.StatusInternalServerError, ReasonInternalError,
		fmt.Sprintf("Internal error occurred: %v", err),
		&api.StatusDetails{Causes: []api.StatusCause{{Type: "UnexpectedServerResponse", Message: err.Error()}}})
}

// NewServiceUnavailable says the server cannot answer right now.
func NewServiceUnavailable(message string) *StatusError {
	return newError(http.StatusServiceUnavailable, ReasonServiceUnavailable, message, nil)
}

// FromStatus turns a Status received from a server back into an error.
func FromStatus(s api.Status) *StatusError { return &StatusError{ErrStatus: s} }

// ReasonOf returns the Status reason of err, or "" when err is not a StatusError.
func ReasonOf(err error) string {
	var se *StatusError
	if errors.As(err, &se) {
		return se.ErrStatus.Reason
	}
	return ""
}

// CodeOf returns the HTTP code of err, or 0 when err is not a StatusError.
func CodeOf(err error) int32 {
	var se *StatusError
	if errors.As(err, &se) {
		return se.ErrStatus.Code
	}
	return 0
}

// IsNotFound reports whether err is a NotFound Status.
func IsNotFound(err error) bool { return ReasonOf(err) == ReasonNotFound }

// IsAlreadyExists reports whether err is an AlreadyExists Status.
func IsAlreadyExists(err error) bool { return ReasonOf(err) == ReasonAlreadyExists }

// IsConflict reports whether err is a Conflict Status (stale resourceVersion).
func IsConflict(err error) bool { return ReasonOf(err) == ReasonConflict }

// IsInvalid reports whether err is an Invalid Status.
func IsInvalid(err error) bool { return ReasonOf(err) == ReasonInvalid }

// IsBadRequest reports whether err is a BadRequest Status.
func IsBadRequest(err error) bool { return ReasonOf(err) == ReasonBadRequest }

// IsGone reports whether err says a resourceVersion was compacted (410).
func IsGone(err error) bool { return CodeOf(err) == http.StatusGone }

// IsUnauthorized reports whether err is a 401 Status.
func IsUnauthorized(err error) bool { return ReasonOf(err) == ReasonUnauthorized }

// IsForbidden reports whether err is a 403 Status.
func IsForbidden(err error) bool { return ReasonOf(err) == ReasonForbidden }

// IsTooManyRequests reports whether err is a 429 Status.
func IsTooManyRequests(err error) bool { return CodeOf(err) == http.StatusTooManyRequests }

// IsRequestEntityTooLarge reports whether err is a 413 Status.
func IsRequestEntityTooLarge(err error) bool {
	return ReasonOf(err) == ReasonRequestEntityTooLarge
}

// joinMessages is used by aggregate messages: "[a, b]" for several, "a" for
// one, each message once in first-seen order.
func joinMessages(msgs []string) string {
	var unique []string
	seen := make(map[string]bool, len(msgs))
	for _, m := range msgs {
		if !seen[m] {
			seen[m] = true
			unique = append(unique, m)
		}
	}
	if len(unique) == 1 {
		return unique[0]
	}
	return "[" + strings.Join(unique, ", ") + "]"
}

// Aggregate returns several errors as one, printed the way upstream's
// utilerrors.NewAggregate prints them: a lone error bare, several as
// "[first, second]" with repeated messages dropped. It returns nil for no
// errors, so a validator can end with `return Aggregate(errs)`; errors.Is
// and errors.As see each of errs.
func Aggregate(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return aggregateError(errs)
}

// aggregateError is what Aggregate returns.
type aggregateError []error

// Error implements error.
func (a aggregateError) Error() string {
	msgs := make([]string, len(a))
	for i, err := range a {
		msgs[i] = err.Error()
	}
	return joinMessages(msgs)
}

// Unwrap exposes the individual errors to errors.Is and errors.As.
func (a aggregateError) Unwrap() []error { return a }

// NamespaceTerminatingCause is the cause type of the Forbidden error for a
// create in a namespace that is being deleted. Controllers look for it to
// tell "the namespace is going away, stop creating" from other refusals.
const NamespaceTerminatingCause = "NamespaceTerminating"

// NewNamespaceTerminating refuses a create of name in a namespace that is
// being deleted, with upstream's message and a NamespaceTerminating cause.
func NewNamespaceTerminating(r Resource, name, namespace string) *StatusError {
	msg := fmt.Sprintf("unable to create new content in namespace %s because it is being terminated", namespace)
	err := NewForbidden(r, name, errors.New(msg))
	err.ErrStatus.Details.Causes = []api.StatusCause{{Type: NamespaceTerminatingCause, Message: msg, Field: "metadata.namespace"}}
	return err
}

// HasStatusCause reports whether err is a StatusError with a cause of the
// given type.
func HasStatusCause(err error, causeType string) bool {
	var se *StatusError
	if !errors.As(err, &se) || se.ErrStatus.Details == nil {
		return false
	}
	for _, c := range se.ErrStatus.Details.Causes {
		if c.Type == causeType {
			return true
		}
	}
	return false
}
