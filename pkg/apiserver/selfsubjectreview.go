package apiserver

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/auth"
)

// selfSubjectReviewVersions are the versions of authentication.k8s.io that
// serve SelfSubjectReview: v1 since Kubernetes 1.28, and the beta and alpha
// versions older kubectl (1.26, 1.27) asks for first.
var selfSubjectReviewVersions = map[string]bool{"v1": true, "v1beta1": true, "v1alpha1": true}

// serveSelfSubjectReview answers POST
// /apis/authentication.k8s.io/{v1,v1beta1,v1alpha1}/selfsubjectreviews,
// which is `kubectl auth whoami`: the review comes back (201, stored
// nowhere) with status.userInfo set to the user the request was
// authenticated as, or the one it impersonates (upstream:
// pkg/registry/authentication/selfsubjectreview/rest.go). Anyone
// authenticated may ask: the bootstrap policy's system:basic-user grants
// it to system:authenticated.
func (s *Server) serveSelfSubjectReview(w http.ResponseWriter, r *http.Request) {
	version := chi.URLParam(r, "version")
	if !selfSubjectReviewVersions[version] {
		response.WriteError(w, response.NotFoundPath())
		return
	}
	var review api.SelfSubjectReview
	// A body of any served version is taken (the answer is in the URL's);
	// the review carries nothing a version changes.
	groupVersions := []string{"authentication.k8s.io/" + version}
	for v := range selfSubjectReviewVersions {
		if v != version {
			groupVersions = append(groupVersions, "authentication.k8s.io/"+v)
		}
	}
	if err := decodeKind(r, &review, "SelfSubjectReview", groupVersions...); err != nil {
		response.WriteError(w, err)
		return
	}
	user, ok := auth.UserFrom(r.Context())
	if !ok {
		response.WriteError(w, apierrors.NewInternalError(errNoUser))
		return
	}
	review.TypeMeta = api.TypeMeta{Kind: "SelfSubjectReview", APIVersion: "authentication.k8s.io/" + version}
	review.Status = api.SelfSubjectReviewStatus{UserInfo: userInfo(user)}
	response.WriteJSON(w, http.StatusCreated, &review)
}
