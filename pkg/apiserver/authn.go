package apiserver

import (
	"net/http"

	"kplane/pkg/auth"
)

// authenticate names the request's user (auth.UserFrom) or answers 401:
// the client certificate first, then the bearer token, as kube-apiserver's
// authenticator chain orders them (auth.Chain tells how).
func (s *Server) authenticate(next http.Handler) http.Handler {
	return auth.Middleware(authenticatorFunc(func(r *http.Request) (auth.User, bool, error) {
		return s.authenticator().AuthenticateRequest(r)
	}), auth.DefaultPublicPaths)(next)
}

// authenticator is the server's authenticator chain: client certificates
// signed by the cluster CA, the token file, and ServiceAccount tokens once
// s.serviceAccountTokens is set. It is put together per use (a few words
// of memory) so that it always sees the current ServiceAccount
// authenticator, whenever Run sets it.
func (s *Server) authenticator() auth.Chain {
	chain := auth.Chain{
		StaticTokens: []auth.TokenAuthenticator{s.tokens},
		APIAudiences: s.apiAudiences(),
	}
	if s.clientCAs != nil {
		chain.X509 = &auth.X509Authenticator{Roots: s.clientCAs}
	}
	if s.serviceAccountTokens != nil {
		chain.AudienceTokens = []auth.TokenAuthenticator{s.serviceAccountTokens}
	}
	return chain
}

// apiAudiences are the audiences the apiserver answers to (upstream's
// --api-audiences, which defaults to the ServiceAccount issuers; see
// setUpServiceAccountTokens). A bearer token must be meant for one of
// them; a static token is taken to be meant for all of them.
func (s *Server) apiAudiences() []string {
	if s.serviceAccounts != nil && len(s.serviceAccounts.audiences) > 0 {
		return s.serviceAccounts.audiences
	}
	return []string{auth.DefaultAPIAudience}
}

// authenticatorFunc lets a function serve as an auth.RequestAuthenticator.
type authenticatorFunc func(r *http.Request) (auth.User, bool, error)

func (f authenticatorFunc) AuthenticateRequest(r *http.Request) (auth.User, bool, error) {
	return f(r)
}
