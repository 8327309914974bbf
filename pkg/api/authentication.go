package api

// This file holds authentication.k8s.io/v1 TokenReview: "who is the bearer
// of this token?", asked of the apiserver by servers that take the
// cluster's tokens without holding the token file (every component's debug
// API; upstream, the kubelet's and webhook servers).

// TokenReview asks the apiserver to authenticate Spec.Token; the answer is
// in Status. It is create-only and never stored.
type TokenReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       TokenReviewSpec   `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status     TokenReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// TokenReviewSpec is the token to authenticate.
type TokenReviewSpec struct {
	Token string `json:"token,omitempty" protobuf:"bytes,1,opt,name=token"`
	// Audiences are the audiences the caller accepts (none: the
	// apiserver's own). A static token is meant for the apiserver only, as
	// upstream's audience-agnostic authenticators take it.
	Audiences []string `json:"audiences,omitempty" protobuf:"bytes,2,rep,name=audiences"`
}

// TokenReviewStatus is the apiserver's answer.
type TokenReviewStatus struct {
	// Authenticated says the token belongs to a user.
	Authenticated bool `json:"authenticated,omitempty" protobuf:"varint,1,opt,name=authenticated"`
	// User is that user (empty when not authenticated).
	User UserInfo `json:"user,omitempty" protobuf:"bytes,2,opt,name=user"`
	// Audiences are those of spec.audiences (or, when it names none, of
	// the apiserver's own) the token is valid for.
	Audiences []string `json:"audiences,omitempty" protobuf:"bytes,4,rep,name=audiences"`
	// Error says why the review could not be completed, if it could not.
	Error string `json:"error,omitempty" protobuf:"bytes,3,opt,name=error"`
}

// UserInfo is an authenticated user: name, uid, groups and extra fields.
type UserInfo struct {
	Username string   `json:"username,omitempty" protobuf:"bytes,1,opt,name=username"`
	UID      string   `json:"uid,omitempty" protobuf:"bytes,2,opt,name=uid"`
	Groups   []string `json:"groups,omitempty" protobuf:"bytes,3,rep,name=groups"`
	// Extra has no protobuf tag: upstream sends it as map<string,
	// ExtraValue>, a shape kplane's decoder does not read, and no request
	// kplane decodes carries it (it is only ever in answers).
	Extra map[string][]string `json:"extra,omitempty"`
}

// TokenRequest asks for a token of a ServiceAccount
// (POST serviceaccounts/<name>/token; `kubectl create token`). It is
// create-only and never stored; the answer carries the token in Status.
type TokenRequest struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       TokenRequestSpec   `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status     TokenRequestStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// TokenRequestSpec is what the token is to be good for.
type TokenRequestSpec struct {
	// Audiences the token is meant for; empty means the apiserver's own.
	Audiences []string `json:"audiences" protobuf:"bytes,1,rep,name=audiences"`
	// ExpirationSeconds is the token's requested lifetime.
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty" protobuf:"varint,4,opt,name=expirationSeconds"`
	// BoundObjectRef ties the token to a Pod, Secret or Node: it stops
	// authenticating once that object is gone.
	BoundObjectRef *BoundObjectReference `json:"boundObjectRef,omitempty" protobuf:"bytes,3,opt,name=boundObjectRef"`
}

// BoundObjectReference names the object a token is bound to.
type BoundObjectReference struct {
	Kind       string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,2,opt,name=aPIVersion"`
	Name       string `json:"name,omitempty" protobuf:"bytes,3,opt,name=name"`
	UID        string `json:"uid,omitempty" protobuf:"bytes,4,opt,name=uID"`
}

// TokenRequestStatus is the issued token and when it expires.
type TokenRequestStatus struct {
	Token               string `json:"token" protobuf:"bytes,1,opt,name=token"`
	ExpirationTimestamp Time   `json:"expirationTimestamp" protobuf:"bytes,2,opt,name=expirationTimestamp"`
}

// SelfSubjectReview asks "who am I?" (`kubectl auth whoami`): the answer's
// status holds the user the request was authenticated as.
type SelfSubjectReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Status     SelfSubjectReviewStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
}

// SelfSubjectReviewStatus is the requesting user.
type SelfSubjectReviewStatus struct {
	UserInfo UserInfo `json:"userInfo,omitempty" protobuf:"bytes,1,opt,name=userInfo"`
}
