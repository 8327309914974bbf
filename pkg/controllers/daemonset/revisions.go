package daemonset

// This file keeps a DaemonSet's ControllerRevisions with the shared
// helpers in pkg/controllers/controllerutil/history.go: one revision per
// template the DaemonSet has run, the current one numbered highest, so
// that `kubectl rollout history/undo ds` work. The revision's hash is what
// the pods carry in their controller-revision-hash label.

import (
	"context"
	"fmt"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
)

// revisionState is what a sync needs from the history.
type revisionState struct {
	// hash identifies the current template; new pods are labelled with it.
	hash string
	// old are the DaemonSet's other revisions.
	old []*api.ControllerRevision
	// collisionCount is the status.collisionCount to record: bumped when
	// the current revision's name was taken by a different template.
	collisionCount *int32
}

// constructHistory claims ds's revisions and makes sure one holds its
// current template, numbered above every other (upstream's
// constructHistory).
func (c *Controller) constructHistory(ctx context.Context, ds *api.DaemonSet, selector labels.Selector) (revisionState, error) {
	all, err := c.revisionLister.Namespace(ds.Namespace).List(nil)
	if err != nil {
		return revisionState{}, fmt.Errorf("list revisions: %w", err)
	}
	owned, err := controllerutil.ClaimRevisions(ctx, c.client, ds, apiVersion, kind, selector, c.canAdopt(ds), all)
	if err != nil {
		return revisionState{}, fmt.Errorf("claim revisions: %w", err)
	}
	data, err := api.RevisionData(&ds.Spec.Template)
	if err != nil {
		return revisionState{}, err
	}
	collisionCount := int32Value(ds.Status.CollisionCount)
	candidate := controllerutil.NewControllerRevision(ds, apiVersion, kind, ds.Spec.Template.Labels, data, 0, &collisionCount)

	var current, old []*api.ControllerRevision
	for _, r := range owned {
		if controllerutil.EqualRevision(r, candidate) {
			current = append(current, r)
		} else {
			old = append(old, r)
		}
	}
	next := controllerutil.NextRevision(old)
	var cur *api.ControllerRevision
	if len(current) == 0 {
		candidate.Revision = next
		cur, err = controllerutil.CreateControllerRevision(ctx, c.client, ds, candidate, &collisionCount)
		if err != nil {
			return revisionState{}, err
		}
	} else {
		// Two controller-managers leading at once may both have created
		// it; the newest wins, the others age out with the history.
		controllerutil.SortRevisions(current)
		cur = current[len(current)-1]
		old = append(old, current[:len(current)-1]...)
		if cur.Revision < next {
			// A rollback to an old template: renumber its revision as the
			// newest instead of making a copy.
			updated := api.DeepCopy(cur)
			updated.Revision = next
			if cur, err = c.client.ControllerRevisions(ds.Namespace).Update(ctx, updated, client.UpdateOptions{}); err != nil {
				return revisionState{}, fmt.Errorf("renumber revision %s: %w", updated.Name, err)
			}
		}
	}
	state := revisionState{hash: revisionHash(cur), old: old}
	if ds.Status.CollisionCount != nil || collisionCount != 0 {
		state.collisionCount = &collisionCount
	}
	return state, nil
}

// cleanupHistory deletes the oldest of old beyond spec.revisionHistoryLimit
// that no pod in pods still carries (upstream's cleanupHistory).
func (c *Controller) cleanupHistory(ctx context.Context, ds *api.DaemonSet, old []*api.ControllerRevision, pods []*api.Pod) error {
	limit := controllerutil.DefaultRevisionHistoryLimit
	if ds.Spec.RevisionHistoryLimit != nil {
		limit = int(*ds.Spec.RevisionHistoryLimit)
	}
	if len(old) <= limit {
		return nil
	}
	podHashes := map[string]bool{}
	for _, pod := range pods {
		if hash := pod.Labels[api.ControllerRevisionHashLabelKey]; hash != "" {
			podHashes[hash] = true
		}
	}
	live := map[string]bool{}
	for _, r := range old {
		if podHashes[revisionHash(r)] {
			live[r.Name] = true
		}
	}
	sorted := append([]*api.ControllerRevision(nil), old...)
	controllerutil.SortRevisions(sorted)
	return controllerutil.TruncateHistory(ctx, c.client, sorted, live, limit)
}

// revisionHash is the hash a revision's pods are labelled with: its
// controller-revision-hash label, or the controller.kubernetes.io/hash
// label a revision made by an earlier kplane carries, or else the suffix
// of its "<ds>-<hash>" name.
func revisionHash(r *api.ControllerRevision) string {
	for _, label := range []string{controllerutil.RevisionHashLabelFor(kind), controllerutil.RevisionHashLabel} {
		if hash := r.Labels[label]; hash != "" {
			return hash
		}
	}
	if i := strings.LastIndex(r.Name, "-"); i >= 0 {
		return r.Name[i+1:]
	}
	return r.Name
}
