package authorizer

import (
	"fmt"

	apierrors "kplane/pkg/api/errors"
)

// Forbidden is the 403 the apiserver answers when no authorizer allowed a
// request, worded as upstream's:
//
//	pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"
//	pods "web-0" is forbidden: User "alice" cannot get resource "pods/log" in API group "" in the namespace "default"
//	nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope
//	forbidden: User "alice" cannot get path "/metrics"
//
// followed by ": " and reason when an authorizer gave one.
func Forbidden(a Attributes, reason string) *apierrors.StatusError {
	msg := ForbiddenMessage(a)
	if reason != "" {
		msg += ": " + reason
	}
	var res apierrors.Resource
	if a.ResourceRequest {
		res = apierrors.Resource{Group: a.APIGroup, Resource: a.Resource}
	}
	return apierrors.NewForbidden(res, a.Name, fmt.Errorf("%s", msg))
}

// ForbiddenMessage is the sentence that says who may not do what.
func ForbiddenMessage(a Attributes) string {
	if !a.ResourceRequest {
		return fmt.Sprintf("User %q cannot %s path %q", a.User.Name, a.Verb, a.Path)
	}
	resource := a.Resource
	if a.Subresource != "" {
		resource += "/" + a.Subresource
	}
	if a.Namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q",
			a.User.Name, a.Verb, resource, a.APIGroup, a.Namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope",
		a.User.Name, a.Verb, resource, a.APIGroup)
}
