package apiserver

// SelfSubjectRulesReview (`kubectl auth can-i --list`): every rule the
// requesting user holds in one namespace, gathered from the authorizers
// that can list their rules (RBAC; the masters group holds everything).
// An authorizer that decides case by case (the Node authorizer) cannot,
// which is why the answer has an `incomplete` flag.
//
// Upstream: pkg/registry/authorization/selfsubjectrulesreview/rest.go and
// the union rule resolver of
// staging/src/k8s.io/apiserver/pkg/authorization/union.

import (
	"errors"
	"net/http"
	"slices"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
)

// serveSelfSubjectRulesReview answers POST
// /apis/authorization.k8s.io/v1/selfsubjectrulesreviews.
func (s *Server) serveSelfSubjectRulesReview(w http.ResponseWriter, r *http.Request) {
	review := &api.SelfSubjectRulesReview{}
	if err := decodeAccessReview(r, "SelfSubjectRulesReview", review); err != nil {
		response.WriteError(w, err)
		return
	}
	user, ok := auth.UserFrom(r.Context())
	if !ok {
		response.WriteError(w, apierrors.NewBadRequest("no user present on request"))
		return
	}
	if review.Spec.Namespace == "" {
		response.WriteError(w, apierrors.NewBadRequest("no namespace on request"))
		return
	}
	review.Status = s.rulesReviewStatus(r, user, review.Spec.Namespace)
	review.TypeMeta = api.TypeMeta{Kind: "SelfSubjectRulesReview", APIVersion: authorizationGroupVersion}
	response.WriteJSON(w, http.StatusCreated, review)
}

// rulesReviewStatus merges the rules of every rule resolver — the masters
// group's first — into one answer. A resolver's error does not hide the
// others' rules: it marks the answer incomplete and is reported in
// evaluationError, as upstream's union does.
func (s *Server) rulesReviewStatus(r *http.Request, user auth.User, namespace string) api.SubjectRulesReviewStatus {
	status := api.SubjectRulesReviewStatus{ResourceRules: []api.ResourceRule{}, NonResourceRules: []api.NonResourceRule{}}
	var resourceRules []authorizer.ResourceRule
	var nonResourceRules []authorizer.NonResourceRule
	if rr, nr, ok := authorizer.MastersRules(user); ok {
		resourceRules, nonResourceRules = rr, nr
	}
	var errs []error
	for _, resolver := range s.ruleResolvers {
		rr, nr, incomplete, err := resolver.RulesFor(r.Context(), user, namespace)
		resourceRules = append(resourceRules, rr...)
		nonResourceRules = append(nonResourceRules, nr...)
		status.Incomplete = status.Incomplete || incomplete
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, rule := range resourceRules {
		converted := api.ResourceRule{Verbs: rule.Verbs, APIGroups: rule.APIGroups, Resources: rule.Resources, ResourceNames: rule.ResourceNames}
		// The masters' rules usually come back from RBAC too (cluster-admin
		// is bound to system:masters); say each rule once.
		if !slices.ContainsFunc(status.ResourceRules, func(seen api.ResourceRule) bool { return sameResourceRule(seen, converted) }) {
			status.ResourceRules = append(status.ResourceRules, converted)
		}
	}
	for _, rule := range nonResourceRules {
		converted := api.NonResourceRule{Verbs: rule.Verbs, NonResourceURLs: rule.NonResourceURLs}
		if !slices.ContainsFunc(status.NonResourceRules, func(seen api.NonResourceRule) bool {
			return slices.Equal(seen.Verbs, converted.Verbs) && slices.Equal(seen.NonResourceURLs, converted.NonResourceURLs)
		}) {
			status.NonResourceRules = append(status.NonResourceRules, converted)
		}
	}
	if len(errs) > 0 {
		status.Incomplete = true
		status.EvaluationError = errors.Join(errs...).Error()
	}
	return status
}

// sameResourceRule reports whether two rules grant exactly the same.
func sameResourceRule(a, b api.ResourceRule) bool {
	return slices.Equal(a.Verbs, b.Verbs) && slices.Equal(a.APIGroups, b.APIGroups) &&
		slices.Equal(a.Resources, b.Resources) && slices.Equal(a.ResourceNames, b.ResourceNames)
}
