package apiserver

import (
	"errors"

	"kplane/pkg/authorization/authorizer"
)

// rbacAuthorizer is the RBAC authorizer over this server's Roles and
// bindings. Not built yet.
func (s *Server) rbacAuthorizer() (authorizer.Authorizer, error) {
	return nil, errors.New("--authorization-mode: RBAC is not built yet")
}
