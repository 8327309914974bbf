package apiserver

import (
	"context"

	"kplane/pkg/api"
)

// validatingAdmission runs after an object has been admitted, defaulted
// and validated, just before it is written: upstream's validating admission
// phase. Its plugins only accept or refuse; what they charge (a
// ResourceQuota's usage) is charged here, last, so that nothing refused
// later is counted. old is nil on a create.
func (s *Server) validatingAdmission(ctx context.Context, res *resource, obj, old api.Object, dryRun bool) error {
	return nil
}
