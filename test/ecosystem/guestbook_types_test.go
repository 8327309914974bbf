package ecosystem

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// The Guestbook kind, written as kubebuilder scaffolds a kind's Go types
// (api/v1/guestbook_types.go): a spec, a status with conditions, a list, and
// registration in a scheme. Its CustomResourceDefinition is
// testdata/charts/guestbook/crds/guestbooks.yaml.

// guestbookGroupVersion is the Guestbook's API group and version.
var guestbookGroupVersion = schema.GroupVersion{Group: "webapp.ecosystem.kplane.dev", Version: "v1"}

// guestbookSchemeBuilder registers Guestbook and GuestbookList.
var guestbookSchemeBuilder = &scheme.Builder{GroupVersion: guestbookGroupVersion}

func init() {
	guestbookSchemeBuilder.Register(&Guestbook{}, &GuestbookList{})
}

// Guestbook runs a web front end as a Deployment it owns.
type Guestbook struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GuestbookSpec   `json:"spec,omitempty"`
	Status GuestbookStatus `json:"status,omitempty"`
}

// GuestbookSpec is what a Guestbook should run.
type GuestbookSpec struct {
	// Image is the front end's container image.
	Image string `json:"image"`
	// Replicas is how many front-end pods run; the schema defaults it to 1.
	Replicas *int32 `json:"replicas,omitempty"`
}

// GuestbookStatus is what the controller last observed.
type GuestbookStatus struct {
	// ReadyReplicas are the ready pods of the Guestbook's Deployment.
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// ObservedGeneration is the generation of the spec this status
	// describes.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions hold Available: True once every replica is ready.
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// GuestbookList is a list of Guestbooks.
type GuestbookList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Guestbook `json:"items"`
}

// DeepCopy returns a deep copy, as controller-gen would generate it.
func (g *Guestbook) DeepCopy() *Guestbook {
	if g == nil {
		return nil
	}
	return g.DeepCopyObject().(*Guestbook)
}

// DeepCopyObject returns a deep copy, as controller-gen would generate it.
func (g *Guestbook) DeepCopyObject() runtime.Object {
	if g == nil {
		return nil
	}
	out := &Guestbook{TypeMeta: g.TypeMeta}
	g.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Image = g.Spec.Image
	if g.Spec.Replicas != nil {
		replicas := *g.Spec.Replicas
		out.Spec.Replicas = &replicas
	}
	out.Status.ReadyReplicas = g.Status.ReadyReplicas
	out.Status.ObservedGeneration = g.Status.ObservedGeneration
	if g.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(g.Status.Conditions))
		for i := range g.Status.Conditions {
			g.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
	return out
}

// DeepCopyObject returns a deep copy, as controller-gen would generate it.
func (l *GuestbookList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := &GuestbookList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Guestbook, len(l.Items))
		for i := range l.Items {
			out.Items[i] = *l.Items[i].DeepCopyObject().(*Guestbook)
		}
	}
	return out
}
