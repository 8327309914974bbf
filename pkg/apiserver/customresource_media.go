package apiserver

import (
	"net/http"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// Custom resources are JSON only, as upstream's: their objects have no
// protobuf form (there is no Go type, hence no generated message). A
// client that asks for "application/vnd.kubernetes.protobuf,
// application/json" — client-go's setting for clients that prefer
// protobuf — gets JSON, one that asks for protobuf alone gets 406, and a
// protobuf body gets 415, each with upstream's message. The scale
// subresource is an autoscaling/v1 Scale, a built-in kind, and is left
// out.

// customResourceMediaTypes are the media types upstream's custom resource
// handler serves objects in (its serializers but protobuf).
var customResourceMediaTypes = []string{"application/json", "application/yaml"}

// checkCustomResourceAccept answers 406 when a request for a custom
// resource accepts none of its media types. A range asking for a
// transformation (as=Table, as=PartialObjectMetadata) is a meta.k8s.io
// kind, not the custom object, and is left to the handlers.
func checkCustomResourceAccept(r *http.Request) error {
	for _, accepted := range parseAccept(r.Header.Get("Accept")) {
		if accepted.params["as"] != "" {
			return nil
		}
		for _, mediaType := range customResourceMediaTypes {
			if accepted.matches(mediaType) {
				return nil
			}
		}
	}
	return &apierrors.StatusError{ErrStatus: api.Status{Status: "Failure", Code: http.StatusNotAcceptable, Reason: apierrors.ReasonNotAcceptable,
		Message: "only the following media types are accepted: " + strings.Join(customResourceMediaTypes, ", ")}}
}

// errCustomResourceBodyMediaType is upstream's 415 for a custom object
// sent in a media type it cannot decode (protobuf, CBOR).
func errCustomResourceBodyMediaType() error {
	return &apierrors.StatusError{ErrStatus: api.Status{Status: "Failure", Code: http.StatusUnsupportedMediaType, Reason: apierrors.ReasonUnsupportedMediaType,
		Message: "the body of the request was in an unknown format - accepted media types include: " + strings.Join(customResourceMediaTypes, ", ")}}
}
