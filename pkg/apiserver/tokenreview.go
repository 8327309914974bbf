package apiserver

import (
	"net/http"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/auth"
)

// serveTokenReview answers POST /apis/authentication.k8s.io/v1/tokenreviews:
// it authenticates spec.token with the server's token authenticators (the
// token file, then ServiceAccount tokens) and answers with status.user,
// storing nothing. Kubelets and add-on API servers use it to accept the
// cluster's tokens (upstream's --authentication-token-webhook); creating
// one needs the tokenreviews create right (system:auth-delegator).
//
// As upstream (pkg/registry/authentication/tokenreview/storage.go):
//   - an empty token is a 400 BadRequest; an unknown token is a 201 answer
//     with authenticated false and status.error saying why;
//   - spec.audiences are the audiences the caller accepts; none means the
//     apiserver's own. A static token is meant for the apiserver only, so
//     it authenticates for a review naming other audiences only if one of
//     them is the apiserver's. status.audiences says which of them hold.
func (s *Server) serveTokenReview(w http.ResponseWriter, r *http.Request) {
	var review api.TokenReview
	if err := decodeKind(r, &review, "TokenReview", "authentication.k8s.io/v1"); err != nil {
		response.WriteError(w, err)
		return
	}
	if review.Spec.Token == "" {
		response.WriteError(w, apierrors.NewBadRequest("token is required for TokenReview in authentication"))
		return
	}
	review.Status = api.TokenReviewStatus{}
	result, ok, err := s.authn.AuthenticateToken(r.Context(), review.Spec.Token, review.Spec.Audiences)
	if ok {
		review.Status.Authenticated = true
		review.Status.User = userInfo(result.User)
		review.Status.Audiences = result.Audiences
	} else if err != nil {
		review.Status.Error = err.Error()
	}
	// The token goes back to nobody: upstream clears it from the answer too.
	review.Spec.Token = ""
	review.TypeMeta = api.TypeMeta{Kind: "TokenReview", APIVersion: "authentication.k8s.io/v1"}
	response.WriteJSON(w, http.StatusCreated, &review)
}

// userInfo is user as the authentication API writes it.
func userInfo(user auth.User) api.UserInfo {
	return api.UserInfo{Username: user.Name, UID: user.UID, Groups: user.Groups, Extra: user.Extra}
}
