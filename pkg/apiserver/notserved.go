package apiserver

import (
	"fmt"
	"net/http"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
)

// This file answers the requests for APIs kplane knows of but does not
// serve yet. Each answer says so plainly and names what to use instead,
// so that a user who tries `kubectl auth whoami` learns
// what to do next rather than reading a message about some other cause.
//
// The Status is 405 MethodNotAllowed: the path exists (it is in discovery,
// as on a real cluster) but the server does not carry out the request.
// Upstream answers 404 NotFound when a feature is switched off; kplane does
// not, because kubectl replaces a 404 with its own advice (`kubectl auth
// whoami` tells the user to enable a feature gate kplane has no flag for),
// which is the misleading message this file exists to avoid.

// notServed is the Status for a resource or subresource kplane does not
// serve yet; instead says what to use in its place, details name the object
// the request was about (if any).
func notServed(resource, instead string, details *api.StatusDetails) *apierrors.StatusError {
	return apierrors.FromStatus(api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   "Failure",
		Code:     http.StatusMethodNotAllowed,
		Reason:   apierrors.ReasonMethodNotAllowed,
		Message:  fmt.Sprintf("%s is not served by kplane yet: %s", resource, instead),
		Details:  details,
	})
}

// serveSelfSubjectReviewNotServed answers `kubectl auth whoami`, which
// creates a SelfSubjectReview in authentication.k8s.io (v1, then v1beta1,
// then v1alpha1).
func serveSelfSubjectReviewNotServed(w http.ResponseWriter, _ *http.Request) {
	response.WriteError(w, notServed("selfsubjectreviews.authentication.k8s.io",
		"you are the user of your kubeconfig's current context (`kubectl config view --minify -o jsonpath='{.users[0].name}'`)",
		&api.StatusDetails{Group: "authentication.k8s.io", Kind: "selfsubjectreviews"}))
}
