package deployment

// This file keeps a Deployment's rollout history. The history IS the
// ReplicaSets: each one carries the pod template of one revision and the
// annotation deployment.kubernetes.io/revision. `kubectl rollout history`
// lists them; `kubectl rollout undo` picks one, strips its
// pod-template-hash label and patches its template back into the
// Deployment, after which this controller finds that old ReplicaSet as the
// "new" one and gives it the next revision number. revisionHistoryLimit
// bounds how many scaled-down ReplicaSets are kept for that.

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// Annotations the controller reads and writes besides the revision,
// desired-replicas and max-replicas ones declared in pkg/api.
const (
	// annotationRevisionHistory lists the earlier revisions a ReplicaSet
	// served before a rollback gave it a new one, e.g. "1,3".
	annotationRevisionHistory = "deployment.kubernetes.io/revision-history"
	// annotationLastApplied is kubectl apply's record of the last applied
	// object; it describes the Deployment, not its ReplicaSets.
	annotationLastApplied = "kubectl.kubernetes.io/last-applied-configuration"
	// annotationDeprecatedRollbackTo is extensions/v1beta1's rollbackTo,
	// carried as an annotation in later versions.
	annotationDeprecatedRollbackTo = "deprecated.deployment.rollback.to"
	// maxRevisionHistoryChars bounds annotationRevisionHistory, as
	// upstream's maxRevHistoryLengthInChars.
	maxRevisionHistoryChars = 2000
)

// annotationsToSkip are the Deployment annotations not copied to its
// ReplicaSets (and, symmetrically, not copied back by kubectl's undo): they
// describe one object, not the revision. Everything else — notably
// kubernetes.io/change-cause, which `rollout history` shows as CHANGE-CAUSE —
// travels with the revision.
var annotationsToSkip = map[string]bool{
	annotationLastApplied:                   true,
	api.DeploymentRevisionAnnotation:        true,
	annotationRevisionHistory:               true,
	api.DeploymentDesiredReplicasAnnotation: true,
	api.DeploymentMaxReplicasAnnotation:     true,
	annotationDeprecatedRollbackTo:          true,
}

// revision reads obj's revision annotation; a missing one is revision 0.
func revision(obj api.Object) (int64, error) {
	v, ok := obj.GetObjectMeta().Annotations[api.DeploymentRevisionAnnotation]
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("revision annotation %q of %s: %w", v, obj.GetObjectMeta().Name, err)
	}
	return n, nil
}

// maxRevision is the highest revision among rss; unreadable annotations
// are skipped, as upstream does.
func maxRevision(rss []*api.ReplicaSet) int64 {
	var highest int64
	for _, rs := range rss {
		if v, err := revision(rs); err == nil && v > highest {
			highest = v
		}
	}
	return highest
}

// setNewReplicaSetAnnotations brings the new ReplicaSet's annotations up to
// date and reports whether any changed, as upstream's
// SetNewReplicaSetAnnotations:
//   - the Deployment's annotations are copied, except annotationsToSkip;
//   - the revision becomes newRevision (max old revision + 1) unless it is
//     already higher (an old ReplicaSet may have been deleted since);
//   - a ReplicaSet that had a revision and gets a higher one is being
//     rolled back to, so its previous number joins the revision-history;
//   - a ReplicaSet about to be created (exists false) also gets the
//     desired-replicas and max-replicas annotations.
func setNewReplicaSetAnnotations(d *api.Deployment, rs *api.ReplicaSet, newRevision int64, exists bool) bool {
	changed := copyDeploymentAnnotations(d, rs)
	oldValue, had := rs.Annotations[api.DeploymentRevisionAnnotation]
	var oldRevision int64
	if oldValue != "" {
		parsed, err := strconv.ParseInt(oldValue, 10, 64)
		if err != nil {
			// Not ours to repair: upstream leaves such a ReplicaSet alone.
			return changed
		}
		oldRevision = parsed
	}
	if oldRevision < newRevision {
		rs.Annotations[api.DeploymentRevisionAnnotation] = strconv.FormatInt(newRevision, 10)
		changed = true
		if had && oldValue != "" {
			appendRevisionHistory(rs, oldValue)
		}
	}
	if !exists && setReplicasAnnotations(rs, replicas(d.Spec.Replicas), replicas(d.Spec.Replicas)+maxSurge(d)) {
		changed = true
	}
	return changed
}

// appendRevisionHistory adds oldRevision to rs's revision-history,
// dropping the oldest entries to stay within maxRevisionHistoryChars.
func appendRevisionHistory(rs *api.ReplicaSet, oldRevision string) {
	history := rs.Annotations[annotationRevisionHistory]
	if history == "" {
		rs.Annotations[annotationRevisionHistory] = oldRevision
		return
	}
	entries := append(strings.Split(history, ","), oldRevision)
	for len(strings.Join(entries, ",")) > maxRevisionHistoryChars && len(entries) > 1 {
		entries = entries[1:]
	}
	rs.Annotations[annotationRevisionHistory] = strings.Join(entries, ",")
}

// copyDeploymentAnnotations copies d's annotations, except
// annotationsToSkip, onto rs and reports whether any changed. The revision
// in particular is not copied: the ReplicaSet's own is authoritative and
// flows the other way (ReplicaSet → Deployment).
func copyDeploymentAnnotations(d *api.Deployment, rs *api.ReplicaSet) bool {
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	changed := false
	for k, v := range d.Annotations {
		if annotationsToSkip[k] {
			continue
		}
		if cur, ok := rs.Annotations[k]; ok && cur == v {
			continue
		}
		rs.Annotations[k] = v
		changed = true
	}
	return changed
}

// setReplicasAnnotations records the Deployment's size (desired) and its
// size plus surge (maxReplicas) on rs and reports whether they changed.
// Proportional scaling (scale.go) reads maxReplicas back to know how big
// the Deployment was when this ReplicaSet got its size; a desired-replicas
// different from spec.replicas is how a sync recognises a scaling event.
func setReplicasAnnotations(rs *api.ReplicaSet, desired, maxReplicas int32) bool {
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	changed := false
	for key, want := range map[string]string{
		api.DeploymentDesiredReplicasAnnotation: strconv.Itoa(int(desired)),
		api.DeploymentMaxReplicasAnnotation:     strconv.Itoa(int(maxReplicas)),
	} {
		if rs.Annotations[key] != want {
			rs.Annotations[key] = want
			changed = true
		}
	}
	return changed
}

// replicasAnnotation reads an integer annotation of rs.
func replicasAnnotation(rs *api.ReplicaSet, key string) (int32, bool) {
	v, ok := rs.Annotations[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}

// setDeploymentRevision copies the new ReplicaSet's revision onto d's
// annotations (where `kubectl rollout status --revision` reads it) and
// reports whether it changed.
func setDeploymentRevision(d *api.Deployment, rev string) bool {
	if d.Annotations[api.DeploymentRevisionAnnotation] == rev {
		return false
	}
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[api.DeploymentRevisionAnnotation] = rev
	return true
}

// hasRevisionHistoryLimit reports whether d bounds its history; MaxInt32
// means "keep everything", as upstream.
func hasRevisionHistoryLimit(d *api.Deployment) bool {
	return d.Spec.RevisionHistoryLimit != nil && *d.Spec.RevisionHistoryLimit != math.MaxInt32
}

// replicaSetsToCleanup chooses the old ReplicaSets to delete so that at
// most limit remain, as upstream's cleanupDeployment: ReplicaSets already
// being deleted do not count, the lowest revisions go first, and a
// ReplicaSet is only deleted when it is fully scaled down (spec and status
// replicas 0) and its controller has observed that (generation ≤
// observedGeneration). A candidate that fails those tests is skipped, not
// replaced by the next one, so the history may briefly exceed the limit.
func replicaSetsToCleanup(oldRSs []*api.ReplicaSet, limit int32) []*api.ReplicaSet {
	var alive []*api.ReplicaSet
	for _, rs := range oldRSs {
		if rs != nil && rs.DeletionTimestamp == nil {
			alive = append(alive, rs)
		}
	}
	excess := len(alive) - int(limit)
	if excess <= 0 {
		return nil
	}
	sortByRevision(alive)
	var doomed []*api.ReplicaSet
	for _, rs := range alive[:excess] {
		if rs.Status.Replicas != 0 || specReplicas(rs) != 0 || rs.Generation > rs.Status.ObservedGeneration {
			continue
		}
		doomed = append(doomed, rs)
	}
	return doomed
}

// cleanupDeployment deletes the old ReplicaSets beyond d's
// revisionHistoryLimit. The delete carries the ReplicaSet's uid and
// resourceVersion as preconditions, so a ReplicaSet another controller
// instance has just scaled up again (a rollback) is not deleted. It stops
// at the first error rather than hammering a struggling apiserver.
func (c *Controller) cleanupDeployment(ctx context.Context, oldRSs []*api.ReplicaSet, d *api.Deployment) error {
	if !hasRevisionHistoryLimit(d) {
		return nil
	}
	for _, rs := range replicaSetsToCleanup(oldRSs, *d.Spec.RevisionHistoryLimit) {
		c.log.Info("deleting old replica set beyond revisionHistoryLimit", "deployment", d.Namespace+"/"+d.Name,
			"replicaSet", rs.Name, "revision", rs.Annotations[api.DeploymentRevisionAnnotation])
		uid, resourceVersion := rs.UID, rs.ResourceVersion
		opts := client.DeleteOptions{Preconditions: &api.Preconditions{UID: &uid, ResourceVersion: &resourceVersion}}
		if err := c.client.ReplicaSets(rs.Namespace).Delete(ctx, rs.Name, opts); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("clean up old replica set %s/%s: %w", rs.Namespace, rs.Name, err)
		}
	}
	return nil
}

// sortByRevision orders ReplicaSets by ascending revision; equal or
// unreadable revisions fall back to creation order, as upstream's
// ReplicaSetsByRevision.
func sortByRevision(rss []*api.ReplicaSet) {
	slices.SortStableFunc(rss, func(a, b *api.ReplicaSet) int {
		ra, errA := revision(a)
		rb, errB := revision(b)
		if errA != nil || errB != nil || ra == rb {
			return compareCreation(a, b)
		}
		if ra < rb {
			return -1
		}
		return 1
	})
}
