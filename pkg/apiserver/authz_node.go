package apiserver

import (
	"errors"

	"kplane/pkg/authorization/authorizer"
)

// nodeAuthorizer is the Node authorizer: what each kubelet may read and
// write. Not built yet.
func (s *Server) nodeAuthorizer() (authorizer.Authorizer, error) {
	return nil, errors.New("--authorization-mode: Node is not built yet")
}
