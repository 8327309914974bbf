package api

// This file holds authorization.k8s.io/v1: the reviews that ask the
// apiserver's authorizers a question without doing the request. All four
// are create-only and never stored; the answer is in Status.
//
//   - SubjectAccessReview: may user U do this? (kubelets and webhooks ask it)
//   - LocalSubjectAccessReview: the same, inside one namespace
//   - SelfSubjectAccessReview: may I do this? (`kubectl auth can-i`)
//   - SelfSubjectRulesReview: what may I do in this namespace?
//     (`kubectl auth can-i --list`)

// AuthorizationGroupName is the API group of the access reviews.
const AuthorizationGroupName = "authorization.k8s.io"

// ResourceAttributes describe a resource request to review.
type ResourceAttributes struct {
	Namespace   string `json:"namespace,omitempty"`
	Verb        string `json:"verb,omitempty"`
	Group       string `json:"group,omitempty"`
	Version     string `json:"version,omitempty"`
	Resource    string `json:"resource,omitempty"`
	Subresource string `json:"subresource,omitempty"`
	Name        string `json:"name,omitempty"`
}

// NonResourceAttributes describe a non-resource request to review.
type NonResourceAttributes struct {
	Path string `json:"path,omitempty"`
	Verb string `json:"verb,omitempty"`
}

// SubjectAccessReviewSpec is the question: exactly one of
// ResourceAttributes and NonResourceAttributes, and who asks.
type SubjectAccessReviewSpec struct {
	ResourceAttributes    *ResourceAttributes    `json:"resourceAttributes,omitempty"`
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty"`
	User                  string                 `json:"user,omitempty"`
	Groups                []string               `json:"groups,omitempty"`
	Extra                 map[string][]string    `json:"extra,omitempty"`
	UID                   string                 `json:"uid,omitempty"`
}

// SubjectAccessReviewStatus is the answer.
type SubjectAccessReviewStatus struct {
	Allowed bool `json:"allowed"`
	// Denied is set when an authorizer denied outright (RBAC never does).
	Denied          bool   `json:"denied,omitempty"`
	Reason          string `json:"reason,omitempty"`
	EvaluationError string `json:"evaluationError,omitempty"`
}

// SubjectAccessReview asks whether a given user may do something.
type SubjectAccessReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       SubjectAccessReviewSpec   `json:"spec"`
	Status     SubjectAccessReviewStatus `json:"status,omitempty"`
}

// LocalSubjectAccessReview is a SubjectAccessReview posted into a
// namespace; its question must be about that namespace.
type LocalSubjectAccessReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       SubjectAccessReviewSpec   `json:"spec"`
	Status     SubjectAccessReviewStatus `json:"status,omitempty"`
}

// SelfSubjectAccessReviewSpec is a question about the requesting user.
type SelfSubjectAccessReviewSpec struct {
	ResourceAttributes    *ResourceAttributes    `json:"resourceAttributes,omitempty"`
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty"`
}

// SelfSubjectAccessReview asks whether the requesting user may do something.
type SelfSubjectAccessReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       SelfSubjectAccessReviewSpec `json:"spec"`
	Status     SubjectAccessReviewStatus   `json:"status,omitempty"`
}

// SelfSubjectRulesReviewSpec names the namespace to list rules in.
type SelfSubjectRulesReviewSpec struct {
	Namespace string `json:"namespace,omitempty"`
}

// ResourceRule is what a user may do to resources.
type ResourceRule struct {
	Verbs         []string `json:"verbs"`
	APIGroups     []string `json:"apiGroups,omitempty"`
	Resources     []string `json:"resources,omitempty"`
	ResourceNames []string `json:"resourceNames,omitempty"`
}

// NonResourceRule is what a user may do to non-resource URLs.
type NonResourceRule struct {
	Verbs           []string `json:"verbs"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
}

// SubjectRulesReviewStatus lists the rules; Incomplete says the list may
// miss some (an authorizer that cannot list its rules).
type SubjectRulesReviewStatus struct {
	ResourceRules    []ResourceRule    `json:"resourceRules"`
	NonResourceRules []NonResourceRule `json:"nonResourceRules"`
	Incomplete       bool              `json:"incomplete"`
	EvaluationError  string            `json:"evaluationError,omitempty"`
}

// SelfSubjectRulesReview lists what the requesting user may do in a namespace.
type SelfSubjectRulesReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       SelfSubjectRulesReviewSpec `json:"spec"`
	Status     SubjectRulesReviewStatus   `json:"status,omitempty"`
}
