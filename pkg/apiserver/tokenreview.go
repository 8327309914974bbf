package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
)

// serveTokenReview answers POST /apis/authentication.k8s.io/v1/tokenreviews:
// it authenticates spec.token against the token file and answers the
// review with status.authenticated and status.user filled in, storing
// nothing. Components' debug servers use it to accept the cluster's tokens
// (upstream's kubelet does the same with --authentication-token-webhook).
//
// Like upstream (pkg/registry/authentication/tokenreview/storage.go), an
// empty token is a 400 BadRequest and an unknown token is a 201 answer
// with authenticated false, not an error. kplane has no authorizer, so any
// authenticated caller may ask (upstream needs RBAC's
// system:auth-delegator role).
func (s *Server) serveTokenReview(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	var review api.TokenReview
	if err := json.Unmarshal(body, &review); err != nil {
		response.WriteError(w, apierrors.NewBadRequest(fmt.Sprintf("decode TokenReview: %v", err)))
		return
	}
	if review.Kind != "" && review.Kind != "TokenReview" {
		response.WriteError(w, apierrors.NewBadRequest(fmt.Sprintf("expected a TokenReview, got kind %q", review.Kind)))
		return
	}
	if review.Spec.Token == "" {
		response.WriteError(w, apierrors.NewBadRequest("token is required for TokenReview in authentication"))
		return
	}
	review.Status = api.TokenReviewStatus{}
	if user, ok := s.tokens.Authenticate(review.Spec.Token); ok && len(review.Spec.Audiences) == 0 {
		review.Status.Authenticated = true
		review.Status.User = api.UserInfo{Username: user.Name, Groups: user.Groups}
	}
	// The token goes back to nobody: upstream clears it from the answer too.
	review.Spec.Token = ""
	review.TypeMeta = api.TypeMeta{Kind: "TokenReview", APIVersion: "authentication.k8s.io/v1"}
	response.WriteJSON(w, http.StatusCreated, &review)
}
