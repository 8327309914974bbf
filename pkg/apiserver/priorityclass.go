package apiserver

// This file holds what the apiserver itself does for PriorityClasses
// beyond storing them: it creates the system classes (system-node-critical
// and system-cluster-critical) at every start, as upstream's
// scheduling/bootstrap-system-priority-classes post-start hook does, and
// refuses to delete them. Resolving pods' classes is admission's
// (admission_priority.go).

import (
	"context"
	"errors"
	"fmt"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// bootstrapSystemPriorityClasses creates the system classes that are
// missing. A class already there is left as it is; one a peer apiserver
// creates at the same moment is fine too.
func (s *Server) bootstrapSystemPriorityClasses(ctx context.Context) error {
	res := s.reg.byPluralAny["priorityclasses"]
	for _, class := range api.SystemPriorityClasses() {
		_, err := s.getStored(ctx, res, "", class.Name)
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("get PriorityClass %s: %w", class.Name, err)
		}
		if _, err := s.create(ctx, res, class, false); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create PriorityClass %s: %w", class.Name, err)
		}
		s.log.Info("created system PriorityClass", "name", class.Name, "value", class.Value)
	}
	return nil
}

// refuseSystemPriorityClassDelete is upstream's guard on deleting one
// PriorityClass: the system classes stay, whether or not they are stored
// (403 Forbidden). Like upstream's, it guards the single-object DELETE
// only; a deletecollection of every class removes them too, until the
// next start creates them again.
func refuseSystemPriorityClassDelete(res *resource, name string) error {
	if res.group != "scheduling.k8s.io" || res.plural != "priorityclasses" || !api.IsSystemPriorityClassName(name) {
		return nil
	}
	return apierrors.NewForbidden(res.qualified(), name, errors.New("this is a system priority class and cannot be deleted"))
}
