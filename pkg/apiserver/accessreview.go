package apiserver

// This file serves the access reviews of authorization.k8s.io/v1: questions
// put to the apiserver's authorizers ("may this user do that?") without
// doing the request. They are create-only and never stored: the answer is
// the posted object with its status filled in, 201 Created.
//
//	POST /apis/authorization.k8s.io/v1/subjectaccessreviews            may user U …? (kubelets, webhooks)
//	POST /apis/authorization.k8s.io/v1/namespaces/N/localsubjectaccessreviews  the same, inside namespace N
//	POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews        may I …? (`kubectl auth can-i`)
//	POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews         what may I do? (accessreview_rules.go)
//
// Whether the caller may ask at all was already decided by the handler
// chain's authorize step, like any create: upstream's system:basic-user
// role lets every authenticated user create the self reviews, while
// subjectaccessreviews need a right of their own (system:auth-delegator).
//
// The validation and its messages follow upstream's
// pkg/apis/authorization/validation/validation.go; the evaluation follows
// pkg/registry/authorization/{subjectaccessreview,localsubjectaccessreview,
// selfsubjectaccessreview}/rest.go and util/helpers.go.

import (
	"net/http"
	"reflect"

	"github.com/go-chi/chi/v5"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
)

// authorizationGroupVersion is the apiVersion of every access review.
const authorizationGroupVersion = api.AuthorizationGroupName + "/v1"

// routeAccessReviews routes the four reviews' POSTs, and answers any other
// method on a create-only resource (these and the authentication reviews)
// with 405 rather than the wildcard route's 404, as upstream does.
func (s *Server) routeAccessReviews(r chi.Router) {
	r.Post("/apis/authorization.k8s.io/v1/subjectaccessreviews", s.serveSubjectAccessReview)
	r.Post("/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews", s.serveLocalSubjectAccessReview)
	r.Post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", s.serveSelfSubjectAccessReview)
	r.Post("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", s.serveSelfSubjectRulesReview)
	for _, res := range s.reg.virtual {
		if !res.createOnly {
			continue
		}
		for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			r.MethodFunc(method, createOnlyPath(res), serveMethodNotAllowed)
		}
	}
}

// serveSubjectAccessReview answers "may spec.user (in spec.groups) do
// this?", asked on behalf of someone else.
func (s *Server) serveSubjectAccessReview(w http.ResponseWriter, r *http.Request) {
	review := &api.SubjectAccessReview{}
	if err := decodeAccessReview(r, "SubjectAccessReview", review); err != nil {
		response.WriteError(w, err)
		return
	}
	errs := validateAccessReviewSpec(review.Spec.ResourceAttributes, review.Spec.NonResourceAttributes)
	if review.Spec.User == "" && len(review.Spec.Groups) == 0 {
		errs = append(errs, apierrors.Invalid("spec.user", review.Spec.User, "at least one of user or group must be specified"))
	}
	errs = append(errs, validateEmptyMetadata(review.ObjectMeta, false)...)
	if len(errs) > 0 {
		response.WriteError(w, apierrors.NewInvalid("SubjectAccessReview", api.AuthorizationGroupName, "", errs))
		return
	}
	review.Status = s.reviewAccess(r, specUser(review.Spec), review.Spec.ResourceAttributes, review.Spec.NonResourceAttributes)
	review.TypeMeta = api.TypeMeta{Kind: "SubjectAccessReview", APIVersion: authorizationGroupVersion}
	response.WriteJSON(w, http.StatusCreated, review)
}

// serveLocalSubjectAccessReview answers a SubjectAccessReview posted into
// a namespace: its question must be about that namespace, so that a
// namespace's admin can be given the right to ask it without the right to
// ask about the whole cluster.
func (s *Server) serveLocalSubjectAccessReview(w http.ResponseWriter, r *http.Request) {
	namespace := chi.URLParam(r, "namespace")
	review := &api.LocalSubjectAccessReview{}
	if err := decodeAccessReview(r, "LocalSubjectAccessReview", review); err != nil {
		response.WriteError(w, err)
		return
	}
	// As for any namespaced create, the object takes the URL's namespace
	// when it names none, and must not name another.
	if review.Namespace == "" {
		review.Namespace = namespace
	}
	if review.Namespace != namespace {
		response.WriteError(w, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request"))
		return
	}
	errs := validateAccessReviewSpec(review.Spec.ResourceAttributes, review.Spec.NonResourceAttributes)
	if review.Spec.User == "" && len(review.Spec.Groups) == 0 {
		errs = append(errs, apierrors.Invalid("spec.user", review.Spec.User, "at least one of user or group must be specified"))
	}
	errs = append(errs, validateEmptyMetadata(review.ObjectMeta, true)...)
	if ra := review.Spec.ResourceAttributes; ra != nil && ra.Namespace != review.Namespace {
		errs = append(errs, apierrors.Invalid("spec.resourceAttributes.namespace", ra.Namespace, "must match metadata.namespace"))
	}
	if review.Spec.NonResourceAttributes != nil {
		errs = append(errs, apierrors.Invalid("spec.nonResourceAttributes", review.Spec.NonResourceAttributes, "disallowed on this kind of request"))
	}
	if len(errs) > 0 {
		response.WriteError(w, apierrors.NewInvalid("LocalSubjectAccessReview", api.AuthorizationGroupName, "", errs))
		return
	}
	review.Status = s.reviewAccess(r, specUser(review.Spec), review.Spec.ResourceAttributes, nil)
	review.TypeMeta = api.TypeMeta{Kind: "LocalSubjectAccessReview", APIVersion: authorizationGroupVersion}
	response.WriteJSON(w, http.StatusCreated, review)
}

// serveSelfSubjectAccessReview answers "may I do this?" for the requesting
// user — after impersonation, so `kubectl auth can-i --as alice` asks
// about alice.
func (s *Server) serveSelfSubjectAccessReview(w http.ResponseWriter, r *http.Request) {
	review := &api.SelfSubjectAccessReview{}
	if err := decodeAccessReview(r, "SelfSubjectAccessReview", review); err != nil {
		response.WriteError(w, err)
		return
	}
	errs := validateAccessReviewSpec(review.Spec.ResourceAttributes, review.Spec.NonResourceAttributes)
	errs = append(errs, validateEmptyMetadata(review.ObjectMeta, false)...)
	if len(errs) > 0 {
		response.WriteError(w, apierrors.NewInvalid("SelfSubjectAccessReview", api.AuthorizationGroupName, "", errs))
		return
	}
	user, ok := auth.UserFrom(r.Context())
	if !ok {
		response.WriteError(w, apierrors.NewBadRequest("no user present on request"))
		return
	}
	review.Status = s.reviewAccess(r, user, review.Spec.ResourceAttributes, review.Spec.NonResourceAttributes)
	review.TypeMeta = api.TypeMeta{Kind: "SelfSubjectAccessReview", APIVersion: authorizationGroupVersion}
	response.WriteJSON(w, http.StatusCreated, review)
}

// reviewAccess asks the server's authorizers — the same union the
// authorize step uses — about a request user would make, and words the
// answer as a SubjectAccessReviewStatus. Exactly one of resource and
// nonResource is set (validation made sure).
func (s *Server) reviewAccess(r *http.Request, user auth.User, resource *api.ResourceAttributes, nonResource *api.NonResourceAttributes) api.SubjectAccessReviewStatus {
	decision, reason, err := s.authorizer.Authorize(r.Context(), reviewAttributes(user, resource, nonResource))
	status := api.SubjectAccessReviewStatus{
		Allowed: decision == authorizer.DecisionAllow,
		Denied:  decision == authorizer.DecisionDeny,
		Reason:  reason,
	}
	if err != nil {
		status.EvaluationError = err.Error()
	}
	return status
}

// reviewAttributes are the authorizer attributes of the request a review
// asks about: a resource request, or a non-resource one (a URL path).
func reviewAttributes(user auth.User, resource *api.ResourceAttributes, nonResource *api.NonResourceAttributes) authorizer.Attributes {
	if resource != nil {
		return authorizer.Attributes{
			User:            user,
			Verb:            resource.Verb,
			ResourceRequest: true,
			APIGroup:        resource.Group,
			APIVersion:      resource.Version,
			Namespace:       resource.Namespace,
			Resource:        resource.Resource,
			Subresource:     resource.Subresource,
			Name:            resource.Name,
		}
	}
	return authorizer.Attributes{User: user, Verb: nonResource.Verb, Path: nonResource.Path}
}

// specUser is the user a SubjectAccessReview asks about. Unlike an
// authenticated request, it gets no implicit system:authenticated group:
// the review names every group the answer may depend on, as upstream's.
func specUser(spec api.SubjectAccessReviewSpec) auth.User {
	return auth.User{Name: spec.User, UID: spec.UID, Groups: spec.Groups, Extra: spec.Extra}
}

// validateAccessReviewSpec checks that a review asks exactly one question:
// about a resource or about a non-resource URL.
func validateAccessReviewSpec(resource *api.ResourceAttributes, nonResource *api.NonResourceAttributes) apierrors.FieldErrorList {
	var errs apierrors.FieldErrorList
	if resource != nil && nonResource != nil {
		errs = append(errs, apierrors.Invalid("spec.nonResourceAttributes", nonResource, "cannot be specified in combination with resourceAttributes"))
	}
	if resource == nil && nonResource == nil {
		errs = append(errs, apierrors.Invalid("spec.resourceAttributes", nonResource, "exactly one of nonResourceAttributes or resourceAttributes must be specified"))
	}
	return errs
}

// validateEmptyMetadata checks that a review carries no metadata: it is
// never stored, so a name or labels would mean nothing. managedFields are
// let through (server-side apply clients send them), and so is the
// namespace of a LocalSubjectAccessReview when namespaceAllowed.
func validateEmptyMetadata(meta api.ObjectMeta, namespaceAllowed bool) apierrors.FieldErrorList {
	rest := meta
	rest.ManagedFields = nil
	detail := "must be empty"
	if namespaceAllowed {
		rest.Namespace = ""
		detail = "must be empty except for namespace"
	}
	if reflect.DeepEqual(rest, api.ObjectMeta{}) {
		return nil
	}
	return apierrors.FieldErrorList{apierrors.Invalid("metadata", meta, detail)}
}

// decodeAccessReview reads an authorization.k8s.io/v1 review of kind from
// the request body into review (decodeKind tells how).
func decodeAccessReview(r *http.Request, kind string, review api.Object) error {
	return decodeKind(r, review, kind, authorizationGroupVersion)
}
