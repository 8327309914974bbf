package apiserver

import (
	"net/http"

	"kplane/pkg/auth"
)

// authenticate names the request's user (auth.UserFrom) or answers 401.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return auth.Middleware(s.tokens, auth.DefaultPublicPaths)(next)
}
