package apiserver

// SelfSubjectRulesReview (`kubectl auth can-i --list`): every rule the
// requesting user holds in one namespace, gathered from the authorizers
// that can list their rules (AlwaysAllow, RBAC). An authorizer that
// decides case by case (the Node authorizer) cannot, which is why the
// answer has an `incomplete` flag. The masters group's shortcut lists
// nothing: a master's rules are those of the cluster-admin binding.
//
// Upstream: pkg/registry/authorization/selfsubjectrulesreview/rest.go and
// the union rule resolver of
// staging/src/k8s.io/apiserver/pkg/authorization/union.

import (
	"errors"
	"net/http"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/auth"
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

// rulesReviewStatus puts together the rules of every rule resolver, in
// the order of --authorization-mode, as upstream's union rule resolver
// does: every resolver's rules, repeats and all; incomplete when a
// resolver says its rules are; a resolver's error, which does not hide the
// others' rules, in evaluationError.
func (s *Server) rulesReviewStatus(r *http.Request, user auth.User, namespace string) api.SubjectRulesReviewStatus {
	status := api.SubjectRulesReviewStatus{ResourceRules: []api.ResourceRule{}, NonResourceRules: []api.NonResourceRule{}}
	var errs []error
	for _, resolver := range s.ruleResolvers {
		resourceRules, nonResourceRules, incomplete, err := resolver.RulesFor(r.Context(), user, namespace)
		for _, rule := range resourceRules {
			status.ResourceRules = append(status.ResourceRules,
				api.ResourceRule{Verbs: rule.Verbs, APIGroups: rule.APIGroups, Resources: rule.Resources, ResourceNames: rule.ResourceNames})
		}
		for _, rule := range nonResourceRules {
			status.NonResourceRules = append(status.NonResourceRules, api.NonResourceRule{Verbs: rule.Verbs, NonResourceURLs: rule.NonResourceURLs})
		}
		status.Incomplete = status.Incomplete || incomplete
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		status.EvaluationError = errors.Join(errs...).Error()
	}
	return status
}
