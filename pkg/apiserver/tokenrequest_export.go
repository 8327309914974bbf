package apiserver

import "kplane/pkg/auth"

// ServiceAccountTokens is the authenticator of the ServiceAccount tokens
// this server issues (bound and legacy), for tests and for the
// authenticator chain.
func (s *Server) ServiceAccountTokens() auth.TokenAuthenticator { return s.serviceAccountTokens }
