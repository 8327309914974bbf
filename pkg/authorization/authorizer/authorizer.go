// Package authorizer holds what every authorizer in kplane shares: the
// attributes of a request ("may user U do verb V on resource R in
// namespace N?"), the three decisions, the Authorizer interface, the union
// that asks authorizers in turn, and the 403 answer upstream gives when
// none allows.
//
// The authorizers themselves live beside it: pkg/authorization/rbac (Roles
// and bindings) and pkg/authorization/node (what a kubelet may touch).
// The apiserver runs them in the order of --authorization-mode (Node,RBAC
// by default), after letting members of system:masters through.
package authorizer

import (
	"context"

	"kplane/pkg/auth"
)

// Decision is an authorizer's answer.
type Decision int

const (
	// DecisionNoOpinion means this authorizer neither allows nor denies:
	// the next one in the union is asked. A request nobody allows is denied.
	DecisionNoOpinion Decision = iota
	// DecisionAllow lets the request through; later authorizers are not asked.
	DecisionAllow
	// DecisionDeny refuses the request at once; later authorizers are not
	// asked. (RBAC never denies, it only allows or has no opinion.)
	DecisionDeny
)

// String names the decision as upstream's logs do.
func (d Decision) String() string {
	switch d {
	case DecisionAllow:
		return "allow"
	case DecisionDeny:
		return "deny"
	}
	return "no opinion"
}

// Attributes describe one request to an authorizer: who asks, and to do
// what. A resource request names a verb on a resource; a non-resource
// request (/healthz, /metrics, /api) names a verb on a path.
type Attributes struct {
	User auth.User

	// Verb is the Kubernetes verb of a resource request (get, list, watch,
	// create, update, patch, delete, deletecollection, and the special
	// verbs impersonate, bind, escalate, approve, use), or the lowercase
	// HTTP method of a non-resource request (get, post, put, delete).
	Verb string

	// ResourceRequest tells the two kinds of request apart.
	ResourceRequest bool

	// For a resource request: the API group ("" for the core group), its
	// version, the namespace ("" for cluster-scoped resources and for
	// lists across namespaces), the resource ("pods"), the subresource
	// ("status", "log"), and the object's name when there is one.
	APIGroup    string
	APIVersion  string
	Namespace   string
	Resource    string
	Subresource string
	Name        string
	// FieldSelector is the request's ?fieldSelector= as sent, for a list
	// or watch ("spec.nodeName=node1"); the Node authorizer lets a kubelet
	// list only its own pods this way.
	FieldSelector string

	// Path is the URL path of a non-resource request.
	Path string
}

// Authorizer decides whether a request may go on. reason explains a
// decision to the user (it ends up in the 403 message); err reports that
// the authorizer could not decide (a cache not ready). The union collects
// such errors and asks the next authorizer; when none allows, the
// apiserver answers 500 with them rather than 403, as upstream's
// WithAuthorization does. (RBAC reports a binding to a missing role in its
// reason, not as an error: that request is refused, not failed.)
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (decision Decision, reason string, err error)
}

// Func adapts a plain function to the Authorizer interface.
type Func func(ctx context.Context, a Attributes) (Decision, string, error)

// Authorize calls f.
func (f Func) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	return f(ctx, a)
}

// RuleResolver lists the rules a user holds in a namespace, for
// SelfSubjectRulesReview (`kubectl auth can-i --list`). An authorizer that
// can answer it (RBAC, AlwaysAllow) implements it too; the masters group's
// shortcut does not, as upstream's privileged-group authorizer does not
// (the cluster-admin binding lists a master's rules).
type RuleResolver interface {
	// RulesFor returns the user's resource and non-resource rules in
	// namespace; incomplete is true when some rules could not be told
	// (the answer then says so, as upstream's does).
	RulesFor(ctx context.Context, user auth.User, namespace string) (resourceRules []ResourceRule, nonResourceRules []NonResourceRule, incomplete bool, err error)
}

// ResourceRule is one rule of a SelfSubjectRulesReview answer: verbs on
// resources of API groups, optionally only the named objects.
type ResourceRule struct {
	Verbs         []string
	APIGroups     []string
	Resources     []string
	ResourceNames []string
}

// NonResourceRule is one non-resource rule of a SelfSubjectRulesReview
// answer: verbs on URL paths ("/healthz", "/api/*").
type NonResourceRule struct {
	Verbs           []string
	NonResourceURLs []string
}
