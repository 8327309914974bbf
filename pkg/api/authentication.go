package api

// This file holds authentication.k8s.io/v1 TokenReview: "who is the bearer
// of this token?", asked of the apiserver by servers that take the
// cluster's tokens without holding the token file (every component's debug
// API; upstream, the kubelet's and webhook servers).

// TokenReview asks the apiserver to authenticate Spec.Token; the answer is
// in Status. It is create-only and never stored.
type TokenReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       TokenReviewSpec   `json:"spec"`
	Status     TokenReviewStatus `json:"status,omitempty"`
}

// TokenReviewSpec is the token to authenticate.
type TokenReviewSpec struct {
	Token string `json:"token,omitempty"`
	// Audiences are the audiences the caller accepts. kplane's tokens have
	// no audience, so a review that names any is answered unauthenticated,
	// as upstream's audience-agnostic authenticators answer it.
	Audiences []string `json:"audiences,omitempty"`
}

// TokenReviewStatus is the apiserver's answer.
type TokenReviewStatus struct {
	// Authenticated says the token belongs to a user.
	Authenticated bool `json:"authenticated,omitempty"`
	// User is that user (empty when not authenticated).
	User UserInfo `json:"user,omitempty"`
	// Audiences are those of spec.audiences (or, when it names none, of
	// the apiserver's own) the token is valid for.
	Audiences []string `json:"audiences,omitempty"`
	// Error says why the review could not be completed, if it could not.
	Error string `json:"error,omitempty"`
}

// UserInfo is an authenticated user: name, uid, groups and extra fields.
type UserInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

// TokenRequest asks for a token of a ServiceAccount
// (POST serviceaccounts/<name>/token; `kubectl create token`). It is
// create-only and never stored; the answer carries the token in Status.
type TokenRequest struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       TokenRequestSpec   `json:"spec"`
	Status     TokenRequestStatus `json:"status,omitempty"`
}

// TokenRequestSpec is what the token is to be good for.
type TokenRequestSpec struct {
	// Audiences the token is meant for; empty means the apiserver's own.
	Audiences []string `json:"audiences"`
	// ExpirationSeconds is the token's requested lifetime.
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty"`
	// BoundObjectRef ties the token to a Pod, Secret or Node: it stops
	// authenticating once that object is gone.
	BoundObjectRef *BoundObjectReference `json:"boundObjectRef,omitempty"`
}

// BoundObjectReference names the object a token is bound to.
type BoundObjectReference struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
	Name       string `json:"name,omitempty"`
	UID        string `json:"uid,omitempty"`
}

// TokenRequestStatus is the issued token and when it expires.
type TokenRequestStatus struct {
	Token               string `json:"token"`
	ExpirationTimestamp Time   `json:"expirationTimestamp"`
}

// SelfSubjectReview asks "who am I?" (`kubectl auth whoami`): the answer's
// status holds the user the request was authenticated as.
type SelfSubjectReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Status     SelfSubjectReviewStatus `json:"status,omitempty"`
}

// SelfSubjectReviewStatus is the requesting user.
type SelfSubjectReviewStatus struct {
	UserInfo UserInfo `json:"userInfo,omitempty"`
}
