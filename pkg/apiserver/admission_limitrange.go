package apiserver

// This file is upstream's LimitRanger admission plugin
// (plugin/pkg/admission/limitranger/admission.go): the LimitRanges of a
// namespace give its pods default requests and limits and bound what its
// pods, containers and claims may ask for. It acts in both admission
// phases, as upstream's plugin does:
//
//   - mutating (admitLimitRangeDefaults, from admit after defaulting, on a
//     pod's create): fill the limits and requests a container leaves out
//     from each LimitRange's Container defaults, and say so in the
//     kubernetes.io/limit-ranger annotation. The pod's QoS class is
//     computed after this, so it reflects the defaults.
//   - validating (validateLimitRanges, from validatingAdmission, on a pod's
//     create and a claim's create or resize): refuse, 403 Forbidden with
//     upstream's message, a container, pod or claim outside min, max or
//     maxLimitRequestRatio.
//
// Pods are checked on create only: their containers' resources cannot be
// changed afterwards (upstream skips pod updates for the same reason).
// The rules themselves are pure functions in admission_limitrange_rules.go.

import (
	"context"
	"fmt"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/quota"
)

// admitLimitRangeDefaults is the mutating half: it fills a new pod's
// missing requests and limits from the namespace's LimitRanges.
func (s *Server) admitLimitRangeDefaults(ctx context.Context, res *resource, pod *api.Pod) error {
	ranges, err := s.limitRanges(ctx, pod.Namespace)
	if err != nil {
		return limitRangeLookupError(res, pod.Name, "create", err)
	}
	for _, lr := range ranges {
		applyLimitRangeDefaults(lr, pod)
	}
	return nil
}

// validateLimitRanges is the validating half: a new pod, or a claim that
// is created or asks for a different amount of storage, must fit every
// LimitRange of its namespace. The first LimitRange that refuses it
// answers, with all of its objections.
func (s *Server) validateLimitRanges(ctx context.Context, res *resource, obj, old api.Object) error {
	var check func(*api.LimitRange) error
	switch o := obj.(type) {
	case *api.Pod:
		if old != nil {
			return nil
		}
		check = func(lr *api.LimitRange) error { return validatePodAgainstLimitRange(lr, o) }
	case *api.PersistentVolumeClaim:
		if oldClaim, ok := old.(*api.PersistentVolumeClaim); ok && quota.Equals(oldClaim.Spec.Resources.Requests, o.Spec.Resources.Requests) {
			// Upstream checks every update of the claim itself (its
			// status writes never reach here: validatingAdmission skips
			// them). kplane checks the updates that matter: a resize. A
			// claim that a LimitRange created later would refuse can
			// still be labelled.
			return nil
		}
		check = func(lr *api.LimitRange) error { return validateClaimAgainstLimitRange(lr, o) }
	default:
		return nil
	}
	if old != nil && old.GetObjectMeta().DeletionTimestamp != nil {
		// An object on its way out is not held to limits (upstream too).
		return nil
	}
	meta := obj.GetObjectMeta()
	ranges, err := s.limitRanges(ctx, meta.Namespace)
	if err != nil {
		verb := "create"
		if old != nil {
			verb = "update"
		}
		return limitRangeLookupError(res, meta.Name, verb, err)
	}
	for _, lr := range ranges {
		if err := check(lr); err != nil {
			return apierrors.NewForbidden(res.qualified(), meta.Name, err)
		}
	}
	return nil
}

// limitRanges returns the LimitRanges of a namespace, in name order (the
// order of their keys). It reads the watch cache, as upstream's plugin
// reads its informer, with a consistent read: the cache first catches up
// with etcd's current revision, so a LimitRange created a moment ago is
// already there (upstream makes a "live lookup" for the same reason). A
// namespace that read found empty is taken as empty for
// limitRangeMissTTL, as upstream keeps its live lookup, unless this
// server writes a LimitRange meanwhile (limitrange_misses.go).
func (s *Server) limitRanges(ctx context.Context, namespace string) ([]*api.LimitRange, error) {
	if s.limitRangeMisses.has(namespace, time.Now()) {
		return nil, nil
	}
	epoch := s.limitRangeMisses.begin()
	res := s.reg.byPluralAny["limitranges"]
	entries, _, err := s.caches[res].List(ctx, res.keyPrefix(namespace), 0)
	if err != nil {
		return nil, fmt.Errorf("list limitranges in %s from the watch cache: %w", namespace, err)
	}
	if len(entries) == 0 {
		s.limitRangeMisses.record(namespace, epoch, time.Now())
		return nil, nil
	}
	ranges := make([]*api.LimitRange, len(entries))
	for i, e := range entries {
		ranges[i] = e.Object.(*storedObject).obj.(*api.LimitRange)
	}
	return ranges, nil
}

// limitRangeLookupError refuses a write whose LimitRanges could not be
// read: admitting it unchecked could let through what a LimitRange
// forbids. Upstream refuses with the same words.
func limitRangeLookupError(res *resource, name, verb string, err error) error {
	return apierrors.NewForbidden(res.qualified(), name,
		fmt.Errorf("unable to %s %s at this time because there was an error enforcing limit ranges: %w", verb, res.plural, err))
}
