package statefulset

// This file keeps a StatefulSet's ControllerRevisions, as upstream's
// getStatefulSetRevisions and truncateHistory do, on top of the shared
// helpers in pkg/controller/history.go.

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
)

// setRevisions are the revisions one sync works with.
type setRevisions struct {
	// current is the revision status.currentRevision names (the update
	// revision for a new set); update is the one of spec.template now.
	current, update *api.ControllerRevision
	// currentTemplate and updateTemplate are their pod templates.
	currentTemplate, updateTemplate *api.PodTemplateSpec
	// collisionCount is status.collisionCount after this sync.
	collisionCount int32
}

// syncRevisions finds or creates the update revision of set among its
// revisions (sorted oldest first) and finds the current one:
//
//   - the newest revision equal to the template → it is the update
//     revision, nothing is written;
//   - an older equal revision (a rollback to an earlier template) → it is
//     re-numbered as the newest and becomes the update revision;
//   - none → a new revision "<set>-<hash>" numbered one past the newest.
func (c *Controller) syncRevisions(ctx context.Context, set *api.StatefulSet, revisions []*api.ControllerRevision) (setRevisions, error) {
	var out setRevisions
	if set.Status.CollisionCount != nil {
		out.collisionCount = *set.Status.CollisionCount
	}
	data, err := api.RevisionData(&set.Spec.Template)
	if err != nil {
		return out, err
	}
	candidate := controllerutil.NewControllerRevision(set, "apps/v1", "StatefulSet", set.Spec.Template.Labels, data,
		controllerutil.NextRevision(revisions), &out.collisionCount)

	equal := controllerutil.FindEqualRevisions(revisions, candidate)
	switch {
	case len(equal) > 0 && equal[len(equal)-1] == revisions[len(revisions)-1]:
		out.update = equal[len(equal)-1]
	case len(equal) > 0:
		older := api.DeepCopy(equal[len(equal)-1])
		older.Revision = candidate.Revision
		updated, err := c.client.ControllerRevisions(set.Namespace).Update(ctx, older, client.UpdateOptions{})
		if err != nil {
			return out, fmt.Errorf("renumber revision %s: %w", older.Name, err)
		}
		out.update = updated
	default:
		created, err := controllerutil.CreateControllerRevision(ctx, c.client, set, candidate, &out.collisionCount)
		if err != nil {
			return out, err
		}
		out.update = created
	}

	out.current = out.update
	for _, r := range revisions {
		if r.Name == set.Status.CurrentRevision {
			out.current = r
			break
		}
	}
	if out.updateTemplate, err = api.TemplateFromRevision(out.update); err != nil {
		return out, err
	}
	if out.currentTemplate, err = api.TemplateFromRevision(out.current); err != nil {
		return out, err
	}
	return out, nil
}

// truncateHistory deletes the oldest revisions beyond
// spec.revisionHistoryLimit that neither a pod nor the status uses.
func (c *Controller) truncateHistory(ctx context.Context, set *api.StatefulSet, pods []*api.Pod, revisions []*api.ControllerRevision, status api.StatefulSetStatus) error {
	live := map[string]bool{status.CurrentRevision: true, status.UpdateRevision: true}
	for _, pod := range pods {
		live[revisionOf(pod)] = true
	}
	limit := controllerutil.DefaultRevisionHistoryLimit
	if set.Spec.RevisionHistoryLimit != nil {
		limit = int(*set.Spec.RevisionHistoryLimit)
	}
	return controllerutil.TruncateHistory(ctx, c.client, revisions, live, limit)
}
