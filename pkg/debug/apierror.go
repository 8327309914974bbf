package debug

import "time"

// PathFaultAPIError is the apiserver's fault route behind `ctl fault
// api-error`: GET lists the active rules ([]APIErrorRule), POST installs
// the APIErrorRule in its body (answering it with its ID and expiry
// filled in), DELETE removes every rule (answering those it removed).
const PathFaultAPIError = "/debug/kplane/fault/api-error"

// The status codes an APIErrorRule may inject, after the failures a
// controller meets on a real cluster: a write that lost an optimistic
// concurrency race, an apiserver shedding load, an apiserver failing.
const (
	FaultConflict        = 409
	FaultTooManyRequests = 429
	FaultInternalError   = 500
)

// APIErrorRule makes the apiserver fail, or hold, the requests that match
// it until it expires.
type APIErrorRule struct {
	// ID numbers the rules of one apiserver from 1; the server sets it.
	ID int `json:"id,omitempty"`
	// Resource is what the rule matches, as RBAC names it: the plural
	// ("replicasets"), optionally with its group ("replicasets.apps"),
	// optionally with a subresource ("pods/status", "pods/binding"). As
	// in RBAC, "pods" does not match pods' subresources.
	Resource string `json:"resource"`
	// Verb is the request's verb, as RBAC names it (get, list, watch,
	// create, update, patch, delete, deletecollection), or "*" for all.
	Verb string `json:"verb"`
	// Code is the status to fail matching requests with: FaultConflict,
	// FaultTooManyRequests or FaultInternalError. 0 fails nothing: with
	// Delay set, the rule only holds requests.
	Code int `json:"code,omitempty"`
	// Delay holds each matching request this long before failing it (or,
	// with Code 0, before serving it), as a slow etcd would.
	Delay time.Duration `json:"delay,omitempty"`
	// For is how long the rule stays active after it is installed.
	For time.Duration `json:"for"`
	// Expires is when the rule stops matching; the server sets it.
	Expires time.Time `json:"expires,omitzero"`
	// Hits counts the requests the rule has matched so far.
	Hits int `json:"hits,omitempty"`
}
