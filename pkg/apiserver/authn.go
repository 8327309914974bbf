package apiserver

import (
	"crypto/x509"
	"net/http"

	"kplane/pkg/auth"
)

// authenticate names the request's user (auth.UserFrom) or answers 401:
// the client certificate first, then the bearer token, as kube-apiserver's
// authenticator chain orders them (auth.Chain tells how).
func (s *Server) authenticate(next http.Handler) http.Handler {
	return auth.Middleware(s.authn, auth.DefaultPublicPaths)(next)
}

// newAuthenticator is the server's authenticator chain: client certificates
// signed by clientCAs (the cluster CA), the token file, and ServiceAccount
// tokens. Start builds it once, after setUpServiceAccountTokens, and both
// the request filter and TokenReview use it. A bearer token must be meant
// for one of the apiserver's audiences (upstream's --api-audiences, which
// default to the ServiceAccount issuers); a static token is taken to be
// meant for all of them.
func (s *Server) newAuthenticator(clientCAs *x509.CertPool) auth.Chain {
	return auth.Chain{
		X509:           &auth.X509Authenticator{Roots: clientCAs},
		StaticTokens:   []auth.TokenAuthenticator{s.tokens},
		AudienceTokens: []auth.TokenAuthenticator{s.serviceAccountTokens},
		APIAudiences:   s.serviceAccounts.audiences,
	}
}
