// Package api holds kplane's Go types for the Kubernetes resources it serves,
// with the exact JSON field names Kubernetes uses, plus the defaulting and
// validation the apiserver applies before anything reaches etcd.
//
// This file has the metadata every object carries (meta/v1 in Kubernetes):
// TypeMeta says what an object is, ObjectMeta who it is, ListMeta where a
// list stands in the store's history.
package api

import (
	"time"
)

// Object is implemented by every top-level resource type (Pod, Deployment, …).
// Embedding TypeMeta and ObjectMeta gives a type these methods for free.
type Object interface {
	GetTypeMeta() *TypeMeta
	GetObjectMeta() *ObjectMeta
}

// TypeMeta names an object's kind and API version, e.g. apps/v1 Deployment.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// GetTypeMeta returns the TypeMeta itself, so embedding types satisfy Object.
func (t *TypeMeta) GetTypeMeta() *TypeMeta { return t }

// ObjectMeta is the metadata stored with every object: identity (name,
// namespace, uid), optimistic concurrency (resourceVersion), spec history
// (generation), lifecycle (deletionTimestamp, finalizers) and relations
// (labels, ownerReferences).
type ObjectMeta struct {
	Name                       string               `json:"name,omitempty"`
	GenerateName               string               `json:"generateName,omitempty"`
	Namespace                  string               `json:"namespace,omitempty"`
	UID                        string               `json:"uid,omitempty"`
	ResourceVersion            string               `json:"resourceVersion,omitempty"`
	Generation                 int64                `json:"generation,omitempty"`
	CreationTimestamp          Time                 `json:"creationTimestamp,omitempty"`
	DeletionTimestamp          *Time                `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64               `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string    `json:"labels,omitempty"`
	Annotations                map[string]string    `json:"annotations,omitempty"`
	OwnerReferences            []OwnerReference     `json:"ownerReferences,omitempty" patchStrategy:"merge" patchMergeKey:"uid"`
	Finalizers                 []string             `json:"finalizers,omitempty" patchStrategy:"merge"`
	ManagedFields              []ManagedFieldsEntry `json:"managedFields,omitempty"`
}

// GetObjectMeta returns the ObjectMeta itself, so embedding types satisfy Object.
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

// ManagedFieldsEntry records which manager last wrote an object. kplane keeps
// the entries clients send but does not compute field ownership.
type ManagedFieldsEntry struct {
	Manager     string `json:"manager,omitempty"`
	Operation   string `json:"operation,omitempty"`
	APIVersion  string `json:"apiVersion,omitempty"`
	Time        *Time  `json:"time,omitempty"`
	FieldsType  string `json:"fieldsType,omitempty"`
	FieldsV1    any    `json:"fieldsV1,omitempty"`
	Subresource string `json:"subresource,omitempty"`
}

// OwnerReference points from a dependent to the object that owns it; the
// garbage collector deletes dependents whose owners are gone.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// ListMeta is the metadata of a list: the store revision it was read at and,
// for a paginated list, the token that fetches the next page.
type ListMeta struct {
	ResourceVersion    string `json:"resourceVersion,omitempty"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
}

// LabelSelector selects objects by label: every matchLabels pair and every
// matchExpressions requirement must hold. An empty selector matches everything.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is one expression of a LabelSelector, e.g.
// `tier In (frontend, web)`. Operator is In, NotIn, Exists or DoesNotExist.
type LabelSelectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// Condition is the meta/v1 condition shape used by newer status types.
type Condition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
	LastTransitionTime Time   `json:"lastTransitionTime"`
	Reason             string `json:"reason"`
	Message            string `json:"message"`
}

// Time is a timestamp that travels as RFC 3339 in UTC with second precision,
// as Kubernetes' metav1.Time does; the zero time encodes as null.
type Time struct {
	time.Time
}

// Now returns the current time truncated to the second, as stored timestamps are.
func Now() Time { return Time{time.Now().UTC().Truncate(time.Second)} }

// NewTime wraps t.
func NewTime(t time.Time) Time { return Time{t} }

// MarshalJSON writes the time as an RFC 3339 string, or null when zero.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + t.UTC().Format(time.RFC3339) + `"`), nil
}

// UnmarshalJSON reads an RFC 3339 string or null.
func (t *Time) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" || s == `""` {
		t.Time = time.Time{}
		return nil
	}
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return &time.ParseError{Layout: time.RFC3339, Value: s, Message: ": expected a quoted RFC 3339 time"}
	}
	parsed, err := time.Parse(time.RFC3339, s[1:len(s)-1])
	if err != nil {
		return err
	}
	t.Time = parsed.Local()
	return nil
}

// MicroTime is a timestamp with microsecond precision (RFC 3339 with six
// fractional digits), used by Lease and Event series as Kubernetes does.
type MicroTime struct {
	time.Time
}

// microTimeLayout is Kubernetes' RFC3339Micro.
const microTimeLayout = "2006-01-02T15:04:05.000000Z07:00"

// MarshalJSON writes the time with microseconds, or null when zero.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + t.UTC().Format(microTimeLayout) + `"`), nil
}

// UnmarshalJSON reads an RFC 3339 string (any fractional precision) or null.
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" || s == `""` {
		t.Time = time.Time{}
		return nil
	}
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return &time.ParseError{Layout: time.RFC3339Nano, Value: s, Message: ": expected a quoted RFC 3339 time"}
	}
	parsed, err := time.Parse(time.RFC3339Nano, s[1:len(s)-1])
	if err != nil {
		return err
	}
	t.Time = parsed.Local()
	return nil
}

// Status is the meta/v1 Status returned for every error (and for some
// successful deletes): Reason and Code say what happened, Details name the
// object and, for Invalid, list the failing fields.
type Status struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata"`
	Status   string         `json:"status,omitempty"`
	Message  string         `json:"message,omitempty"`
	Reason   string         `json:"reason,omitempty"`
	Details  *StatusDetails `json:"details,omitempty"`
	Code     int32          `json:"code,omitempty"`
}

// StatusDetails names the object a Status is about and the causes of an error.
type StatusDetails struct {
	Name              string        `json:"name,omitempty"`
	Group             string        `json:"group,omitempty"`
	Kind              string        `json:"kind,omitempty"`
	UID               string        `json:"uid,omitempty"`
	Causes            []StatusCause `json:"causes,omitempty"`
	RetryAfterSeconds int32         `json:"retryAfterSeconds,omitempty"`
}

// StatusCause is one reason for an error, usually one invalid field.
type StatusCause struct {
	Type    string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	Field   string `json:"field,omitempty"`
}
