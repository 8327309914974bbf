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
	Kind       string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,2,opt,name=apiVersion"`
}

// GetTypeMeta returns the TypeMeta itself, so embedding types satisfy Object.
func (t *TypeMeta) GetTypeMeta() *TypeMeta { return t }

// ObjectMeta is the metadata stored with every object: identity (name,
// namespace, uid), optimistic concurrency (resourceVersion), spec history
// (generation), lifecycle (deletionTimestamp, finalizers) and relations
// (labels, ownerReferences).
type ObjectMeta struct {
	Name                       string               `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	GenerateName               string               `json:"generateName,omitempty" protobuf:"bytes,2,opt,name=generateName"`
	Namespace                  string               `json:"namespace,omitempty" protobuf:"bytes,3,opt,name=namespace"`
	UID                        string               `json:"uid,omitempty" protobuf:"bytes,5,opt,name=uid,casttype=k8s.io/kubernetes/pkg/types.UID"`
	ResourceVersion            string               `json:"resourceVersion,omitempty" protobuf:"bytes,6,opt,name=resourceVersion"`
	Generation                 int64                `json:"generation,omitempty" protobuf:"varint,7,opt,name=generation"`
	CreationTimestamp          Time                 `json:"creationTimestamp,omitempty" protobuf:"bytes,8,opt,name=creationTimestamp"`
	DeletionTimestamp          *Time                `json:"deletionTimestamp,omitempty" protobuf:"bytes,9,opt,name=deletionTimestamp"`
	DeletionGracePeriodSeconds *int64               `json:"deletionGracePeriodSeconds,omitempty" protobuf:"varint,10,opt,name=deletionGracePeriodSeconds"`
	Labels                     map[string]string    `json:"labels,omitempty" protobuf:"bytes,11,rep,name=labels" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	Annotations                map[string]string    `json:"annotations,omitempty" protobuf:"bytes,12,rep,name=annotations" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	OwnerReferences            []OwnerReference     `json:"ownerReferences,omitempty" patchStrategy:"merge" patchMergeKey:"uid" protobuf:"bytes,13,rep,name=ownerReferences"`
	Finalizers                 []string             `json:"finalizers,omitempty" patchStrategy:"merge" protobuf:"bytes,14,rep,name=finalizers"`
	ManagedFields              []ManagedFieldsEntry `json:"managedFields,omitempty" protobuf:"bytes,17,rep,name=managedFields"`
}

// GetObjectMeta returns the ObjectMeta itself, so embedding types satisfy Object.
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

// ManagedFieldsEntry records which manager last wrote an object. kplane keeps
// the entries clients send but does not compute field ownership.
type ManagedFieldsEntry struct {
	Manager     string `json:"manager,omitempty" protobuf:"bytes,1,opt,name=manager"`
	Operation   string `json:"operation,omitempty" protobuf:"bytes,2,opt,name=operation,casttype=ManagedFieldsOperationType"`
	APIVersion  string `json:"apiVersion,omitempty" protobuf:"bytes,3,opt,name=apiVersion"`
	Time        *Time  `json:"time,omitempty" protobuf:"bytes,4,opt,name=time"`
	FieldsType  string `json:"fieldsType,omitempty" protobuf:"bytes,6,opt,name=fieldsType"`
	FieldsV1    any    `json:"fieldsV1,omitempty" protobuf:"bytes,7,opt,name=fieldsV1"`
	Subresource string `json:"subresource,omitempty" protobuf:"bytes,8,opt,name=subresource"`
}

// OwnerReference points from a dependent to the object that owns it; the
// garbage collector deletes dependents whose owners are gone.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion" protobuf:"bytes,5,opt,name=apiVersion"`
	Kind               string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	Name               string `json:"name" protobuf:"bytes,3,opt,name=name"`
	UID                string `json:"uid" protobuf:"bytes,4,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	Controller         *bool  `json:"controller,omitempty" protobuf:"varint,6,opt,name=controller"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty" protobuf:"varint,7,opt,name=blockOwnerDeletion"`
}

// ListMeta is the metadata of a list: the store revision it was read at and,
// for a paginated list, the token that fetches the next page.
type ListMeta struct {
	ResourceVersion    string `json:"resourceVersion,omitempty" protobuf:"bytes,2,opt,name=resourceVersion"`
	Continue           string `json:"continue,omitempty" protobuf:"bytes,3,opt,name=continue"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty" protobuf:"varint,4,opt,name=remainingItemCount"`
}

// LabelSelector selects objects by label: every matchLabels pair and every
// matchExpressions requirement must hold. An empty selector matches everything.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty" protobuf:"bytes,1,rep,name=matchLabels" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,2,rep,name=matchExpressions"`
}

// LabelSelectorRequirement is one expression of a LabelSelector, e.g.
// `tier In (frontend, web)`. Operator is In, NotIn, Exists or DoesNotExist.
type LabelSelectorRequirement struct {
	Key      string   `json:"key" protobuf:"bytes,1,opt,name=key"`
	Operator string   `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=LabelSelectorOperator"`
	Values   []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}

// Condition is the meta/v1 condition shape used by newer status types.
type Condition struct {
	Type               string `json:"type" protobuf:"bytes,1,opt,name=type"`
	Status             string `json:"status" protobuf:"bytes,2,opt,name=status"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty" protobuf:"varint,3,opt,name=observedGeneration"`
	LastTransitionTime Time   `json:"lastTransitionTime" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	Reason             string `json:"reason" protobuf:"bytes,5,opt,name=reason"`
	Message            string `json:"message" protobuf:"bytes,6,opt,name=message"`
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
	ListMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	Status   string         `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	Message  string         `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	Reason   string         `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason,casttype=StatusReason"`
	Details  *StatusDetails `json:"details,omitempty" protobuf:"bytes,5,opt,name=details"`
	Code     int32          `json:"code,omitempty" protobuf:"varint,6,opt,name=code"`
}

// StatusDetails names the object a Status is about and the causes of an error.
type StatusDetails struct {
	Name              string        `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	Group             string        `json:"group,omitempty" protobuf:"bytes,2,opt,name=group"`
	Kind              string        `json:"kind,omitempty" protobuf:"bytes,3,opt,name=kind"`
	UID               string        `json:"uid,omitempty" protobuf:"bytes,6,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	Causes            []StatusCause `json:"causes,omitempty" protobuf:"bytes,4,rep,name=causes"`
	RetryAfterSeconds int32         `json:"retryAfterSeconds,omitempty" protobuf:"varint,5,opt,name=retryAfterSeconds"`
}

// StatusCause is one reason for an error, usually one invalid field.
type StatusCause struct {
	Type    string `json:"reason,omitempty" protobuf:"bytes,1,opt,name=reason,casttype=CauseType"`
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	Field   string `json:"field,omitempty" protobuf:"bytes,3,opt,name=field"`
}

// CauseTypeResourceVersionTooLarge is the cause of the 504 a read at a
// resourceVersion the server has not reached gets; client-go's reflector
// looks for it and relists from the latest version instead of retrying.
const CauseTypeResourceVersionTooLarge = "ResourceVersionTooLarge"
