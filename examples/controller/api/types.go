// Package api holds the Go types of the Website custom resource
// (examples.kplane.dev/v1alpha1), the kind examples/controller reconciles.
// crd.yaml declares the same shape to the apiserver as an OpenAPI schema;
// these types are how the controller reads and writes it.
//
// A type becomes something kplane's client and informers can handle by
// embedding api.TypeMeta and api.ObjectMeta: that makes it an api.Object,
// so client.For[*Website] reads and writes it and
// informer.ForResource[*Website] caches it, exactly as for a Pod. No code
// generation is needed; sample-controller's hand-written types plus
// generated deepcopy and clientsets become these few lines.
package api

import (
	"kplane/pkg/api"
	"kplane/pkg/client"
)

// GroupName and Version are the API group and version crd.yaml registers
// Websites under: objects carry apiVersion "examples.kplane.dev/v1alpha1".
const (
	GroupName = "examples.kplane.dev"
	Version   = "v1alpha1"
	// Kind is the kind of a Website object.
	Kind = "Website"
)

// APIVersion is the apiVersion Website objects carry.
const APIVersion = GroupName + "/" + Version

// WebsitesResource is where the apiserver serves Websites once crd.yaml is
// applied: /apis/examples.kplane.dev/v1alpha1/namespaces/<ns>/websites.
// It is to a Website what client.PodsResource is to a Pod.
var WebsitesResource = client.Resource{
	Group:      GroupName,
	Version:    Version,
	Resource:   "websites",
	Kind:       Kind,
	Namespaced: true,
}

// Website is a small web site: a Deployment running spec.image with
// spec.replicas pods, behind a Service on spec.port. The controller creates
// and owns both and reports in status how many of the pods are ready.
type Website struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata,omitempty"`

	Spec   WebsiteSpec   `json:"spec"`
	Status WebsiteStatus `json:"status,omitempty"`
}

// WebsiteSpec is what the user asks for.
type WebsiteSpec struct {
	// Image is the container image that serves the site, e.g. "nginx:1.27".
	Image string `json:"image"`
	// Replicas is how many pods serve it; the CRD defaults it to 1 and a
	// CEL rule caps it at 10. A pointer, so that "not set" and 0 differ, as
	// in a Deployment; it is also what the scale subresource reads and
	// writes (specReplicasPath .spec.replicas).
	Replicas *int32 `json:"replicas,omitempty"`
	// Port is the port the container listens on and the Service exposes;
	// the CRD defaults it to 80.
	Port int32 `json:"port,omitempty"`
}

// WebsiteStatus is what the controller last observed. Only the controller
// writes it, through the status subresource (/status), so a user's edit of
// the spec and the controller's report never overwrite each other.
type WebsiteStatus struct {
	// ObservedGeneration is the metadata.generation of the spec this status
	// describes: while it is below the Website's generation, the controller
	// has not caught up with the latest spec yet.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Replicas is how many pods the Deployment has (the scale
	// subresource's statusReplicasPath).
	Replicas int32 `json:"replicas,omitempty"`
	// ReadyReplicas is how many of them are ready, copied from the
	// Deployment's status.
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// Selector is the label selector of the Website's pods, as a string
	// (the scale subresource's labelSelectorPath, which the
	// HorizontalPodAutoscaler reads).
	Selector string `json:"selector,omitempty"`
	// URL is where the site answers inside the cluster.
	URL string `json:"url,omitempty"`
	// Conditions holds the Ready condition: True once every replica is
	// ready, False with a reason and a message otherwise.
	Conditions []api.Condition `json:"conditions,omitempty"`
}

// WebsiteList is a page of Websites, as a list request returns them.
type WebsiteList = api.List[*Website]

// ConditionReady is the type of the condition that says whether the site
// is serving with every replica.
const ConditionReady = "Ready"

// The reasons of the Ready condition: one CamelCase word each, the
// vocabulary `kubectl describe` and a reader's scripts key on.
const (
	// ReasonAllReplicasReady: every replica the spec asks for is ready.
	ReasonAllReplicasReady = "AllReplicasReady"
	// ReasonReplicasNotReady: some replicas are still starting.
	ReasonReplicasNotReady = "ReplicasNotReady"
	// ReasonReconcileFailed: the controller could not write the Deployment
	// or the Service; the message says why.
	ReasonReconcileFailed = "ReconcileFailed"
)

// DesiredReplicas is spec.replicas, or 1 when it is not set (the CRD's
// default, for objects created before the default existed).
func (w *Website) DesiredReplicas() int32 {
	if w.Spec.Replicas == nil {
		return 1
	}
	return *w.Spec.Replicas
}

// ServingPort is spec.port, or 80 when it is not set (the CRD's default).
func (w *Website) ServingPort() int32 {
	if w.Spec.Port == 0 {
		return 80
	}
	return w.Spec.Port
}
