package apiserver

import (
	"context"

	"kplane/pkg/api"
)

// validatingAdmission runs after an object has been admitted, defaulted
// and validated, just before it is written: upstream's validating admission
// phase. Its plugins only accept or refuse; what they charge (a
// ResourceQuota's usage) is charged here, last, so that nothing refused
// later is counted. old is nil on a create. The caller calls giveBack
// when obj's write certainly did not happen (see admission_quota.go).
//
// A write of the /status subresource (statusOnly) skips both plugins, as
// upstream's ResourceQuota and LimitRanger skip subresources: it cannot
// change what an object asks for or charges, and skipping it spares every
// Service and claim status write in a namespace with a quota a read of
// its quotas.
func (s *Server) validatingAdmission(ctx context.Context, res *resource, obj, old api.Object, statusOnly, dryRun bool) (giveBack func(), err error) {
	// NodeRestriction keeps a kubelet to its own objects, status writes
	// included (admission_noderestriction.go).
	if err := s.nodeRestrictWrite(ctx, res, obj, old, statusOnly); err != nil {
		return noGiveBack, err
	}
	if statusOnly {
		return noGiveBack, nil
	}
	// LimitRanger first, as upstream orders its plugins: a pod over a
	// LimitRange's max is refused before any quota is charged for it.
	if err := s.validateLimitRanges(ctx, res, obj, old); err != nil {
		return noGiveBack, err
	}
	// Priority: at most one PriorityClass is the global default
	// (admission_priority.go).
	if class, ok := obj.(*api.PriorityClass); ok {
		if err := s.admitPriorityClass(ctx, res, class, old); err != nil {
			return noGiveBack, err
		}
	}
	// ResourceQuota comes last: it charges (admission_quota.go).
	return s.admitQuota(ctx, res, obj, old, dryRun)
}
