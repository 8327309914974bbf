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
	// Error says why the review could not be completed, if it could not.
	Error string `json:"error,omitempty"`
}

// UserInfo is an authenticated user: name and groups.
type UserInfo struct {
	Username string   `json:"username,omitempty"`
	UID      string   `json:"uid,omitempty"`
	Groups   []string `json:"groups,omitempty"`
}
