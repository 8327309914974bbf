package deployment

// This file is the ReplicaSet arithmetic and ordering every other file of
// the controller builds on: reading a replica count, summing one over a
// Deployment's ReplicaSets, keeping the active ones, and the oldest-first
// order that decides which ReplicaSet goes first when several could.
//
// Callers often pass append(oldRSs, newRS) before the new ReplicaSet
// exists, so every helper that takes a list skips nil entries.

import (
	"strings"

	"kplane/pkg/api"
)

// replicas reads an optional replica count; nil is 0 (the apiserver
// defaults spec.replicas, so nil only appears in hand-built objects).
func replicas(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// specReplicas is a ReplicaSet's spec.replicas: the pods it is asked to
// run, which may be more or fewer than it has (status.replicas) while the
// ReplicaSet controller catches up.
func specReplicas(rs *api.ReplicaSet) int32 { return replicas(rs.Spec.Replicas) }

// sumReplicaSets adds count(rs) over the non-nil ReplicaSets: the
// Deployment's status counts, the pods asked for in a rollout step, the
// pods an old ReplicaSet may still hold.
func sumReplicaSets(rss []*api.ReplicaSet, count func(*api.ReplicaSet) int32) int32 {
	var total int32
	for _, rs := range rss {
		if rs != nil {
			total += count(rs)
		}
	}
	return total
}

// filterActive returns the non-nil ReplicaSets asked to run pods
// (spec.replicas > 0). Scaled-down ReplicaSets stay as revision history;
// they take no part in a rollout step or in proportional scaling.
func filterActive(rss []*api.ReplicaSet) []*api.ReplicaSet {
	var active []*api.ReplicaSet
	for _, rs := range rss {
		if rs != nil && specReplicas(rs) > 0 {
			active = append(active, rs)
		}
	}
	return active
}

// compareCreation orders ReplicaSets oldest first, by name when created in
// the same second, as upstream's ReplicaSetsByCreationTimestamp. The name
// makes the order total, so two controller-managers (or two syncs) pick the
// same ReplicaSet to scale first.
func compareCreation(a, b *api.ReplicaSet) int {
	ta, tb := a.CreationTimestamp.Time, b.CreationTimestamp.Time
	switch {
	case ta.Equal(tb):
		return strings.Compare(a.Name, b.Name)
	case ta.Before(tb):
		return -1
	default:
		return 1
	}
}
