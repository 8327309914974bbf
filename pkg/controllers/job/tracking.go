package job

// This file counts a Job's finished pods the way upstream has since 1.26,
// with the batch.kubernetes.io/job-tracking finalizer and
// status.uncountedTerminatedPods, so that status.succeeded and
// status.failed only ever grow and never miss a pod, whoever deletes it.
//
// Every pod the controller creates carries the finalizer, so the pod
// object cannot disappear before the controller has seen how it ended. A
// finished pod is counted in three steps, each safe to interrupt:
//
//  1. record: its UID is added to status.uncountedTerminatedPods.succeeded
//     (or .failed) — a status write;
//  2. release: its finalizer is removed — a pod patch; the pod may now go;
//  3. count: the UIDs whose pods no longer carry the finalizer (or are gone)
//     move from uncountedTerminatedPods into status.succeeded/failed — the
//     sync's final status write.
//
// A crash between 1 and 2 leaves the UID recorded and the finalizer on: the
// next sync releases it. A crash between 2 and 3 leaves the UID recorded
// and the finalizer gone: the next sync counts it. So a finished pod
// carrying the finalizer is not yet counted, and one without it has been
// (or is recorded and about to be). The counts are never recomputed from
// the pods that happen to be visible.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// MaxUncountedPods caps the UIDs status.uncountedTerminatedPods holds at
// once (upstream's 500: the lists stay under about 20 KB, and one sync of a
// huge Job does not starve the others). Finished pods beyond it wait for
// the next sync, which the status write itself triggers.
const MaxUncountedPods = 500

// hasTrackingFinalizer reports whether the pod carries the Job controller's
// finalizer.
func hasTrackingFinalizer(p *api.Pod) bool {
	return slices.Contains(p.Finalizers, api.JobTrackingFinalizer)
}

// podOutcome is what a pod means for its Job's counts.
type podOutcome int

const (
	outcomeNone      podOutcome = iota // still pending or running
	outcomeSucceeded                   // phase Succeeded
	outcomeFailed                      // phase Failed, or deleted before it finished
)

// outcomeOf is the pod's podOutcome. A pod being deleted that has not
// finished counts as failed, as upstream's isPodFailed: it will never
// finish, and an orphaned or evicted pod may never reach phase Failed.
func outcomeOf(p *api.Pod) podOutcome {
	switch {
	case p.Status.Phase == api.PodSucceeded:
		return outcomeSucceeded
	case p.Status.Phase == api.PodFailed, p.DeletionTimestamp != nil:
		return outcomeFailed
	}
	return outcomeNone
}

// trackingPlan is what steps 1 and 2 do in one sync.
type trackingPlan struct {
	// status is the Job's status with the newly finished pods' UIDs
	// appended to uncountedTerminatedPods.
	status api.JobStatus
	// recorded is how many UIDs were appended: if none, step 1 writes
	// nothing.
	recorded int
	// release are the pods whose finalizer step 2 removes: every finished
	// pod still carrying it (recorded now or by an earlier sync) and, when
	// the Job is being deleted, every other pod too (not counted).
	release []*api.Pod
}

// planTracking works out steps 1 and 2 from the Job's status and its pods.
// pending holds the UIDs whose finalizer removal is already on its way
// (finalizerRemovals): those pods are treated as released, whatever the
// cached copy shows. releaseAll is set for a Job being deleted, which must
// let all its pods go.
func planTracking(status api.JobStatus, pods []*api.Pod, pending map[string]bool, releaseAll bool) trackingPlan {
	plan := trackingPlan{status: api.DeepCopyValue(status)}
	uncounted := plan.status.UncountedTerminatedPods
	if uncounted == nil {
		uncounted = &api.UncountedTerminatedPods{}
	}
	for _, p := range pods {
		if !hasTrackingFinalizer(p) || pending[p.UID] {
			continue // counted by an earlier sync, or never tracked
		}
		outcome := outcomeOf(p)
		switch {
		case outcome == outcomeNone && !releaseAll:
			continue // still running: keep tracking it
		case outcome == outcomeNone:
			// the Job is being deleted: let it go uncounted
		case slices.Contains(uncounted.Succeeded, p.UID) || slices.Contains(uncounted.Failed, p.UID):
			// recorded by an earlier sync that did not get to release it
		case len(uncounted.Succeeded)+len(uncounted.Failed) >= MaxUncountedPods:
			continue // no room left: a later sync records it
		case outcome == outcomeSucceeded:
			uncounted.Succeeded = append(uncounted.Succeeded, p.UID)
			plan.recorded++
		default:
			uncounted.Failed = append(uncounted.Failed, p.UID)
			plan.recorded++
		}
		plan.release = append(plan.release, p)
	}
	plan.status.UncountedTerminatedPods = uncounted
	return plan
}

// trackedUIDs are the UIDs of the pods that still carry the finalizer, not
// counting those whose removal is pending.
func trackedUIDs(pods []*api.Pod, pending map[string]bool) map[string]bool {
	tracked := map[string]bool{}
	for _, p := range pods {
		if hasTrackingFinalizer(p) && !pending[p.UID] {
			tracked[p.UID] = true
		}
	}
	return tracked
}

// countReleased is step 3: it moves the UIDs in uncountedTerminatedPods
// whose pods are no longer tracked into status.succeeded and
// status.failed. The counts only ever grow. uncountedTerminatedPods is
// left empty rather than nil, as upstream's Jobs show
// `uncountedTerminatedPods: {}`.
func countReleased(status *api.JobStatus, tracked map[string]bool) {
	uncounted := status.UncountedTerminatedPods
	if uncounted == nil {
		uncounted = &api.UncountedTerminatedPods{}
	}
	var succeeded, failed []string
	for _, uid := range uncounted.Succeeded {
		if tracked[uid] {
			succeeded = append(succeeded, uid)
		}
	}
	for _, uid := range uncounted.Failed {
		if tracked[uid] {
			failed = append(failed, uid)
		}
	}
	status.Succeeded += int32(len(uncounted.Succeeded) - len(succeeded))
	status.Failed += int32(len(uncounted.Failed) - len(failed))
	status.UncountedTerminatedPods = &api.UncountedTerminatedPods{Succeeded: succeeded, Failed: failed}
}

// hasUncounted reports whether some finished pods are recorded but not yet
// counted: the Job may not be declared Complete or Failed until they are
// (upstream waits for the same).
func hasUncounted(status *api.JobStatus) bool {
	u := status.UncountedTerminatedPods
	return u != nil && len(u.Succeeded)+len(u.Failed) > 0
}

// trackFinishedPods carries out steps 1 and 2 for the Job under key and
// returns the Job as stored after step 1. Step 3 is left to the caller,
// which folds it into its own status write: countReleased on the status it
// is about to write, with trackedUIDs(pods, released).
//
// released must be the Job's pending removals read before pods was listed
// (finalizerRemovals.pendingFor): a removal that the informer shows during
// this sync then still counts as pending, although the pods listed earlier
// show the finalizer. trackFinishedPods adds the pods it releases.
//
// If the step-1 write fails nothing was released; if a release fails the
// error is returned and the next sync retries it. Either way the Job's
// counts stay right: a UID is recorded before its finalizer goes.
func (c *Controller) trackFinishedPods(ctx context.Context, key string, job *api.Job, pods []*api.Pod, released map[string]bool, releaseAll bool) (*api.Job, error) {
	plan := planTracking(job.Status, pods, released, releaseAll)
	if plan.recorded > 0 {
		updated := api.DeepCopy(job)
		updated.Status = plan.status
		stored, err := c.client.Jobs(updated.Namespace).UpdateStatus(ctx, updated, client.UpdateOptions{})
		if err != nil {
			return job, fmt.Errorf("record finished pods of job %s in uncountedTerminatedPods: %w", key, err)
		}
		job = stored
		c.log.Debug("recorded finished pods", "key", key, "count", plan.recorded)
	}
	uids, err := c.removeFinalizers(ctx, key, plan.release)
	for _, uid := range uids {
		released[uid] = true
	}
	return job, err
}

// removeFinalizers takes the tracking finalizer off pods, expecting each
// removal first (finalizerRemovals), and returns the UIDs of the pods it
// released. A pod that is already gone counts as released; any other
// failure clears its expectation, so the pod stays tracked and the next
// sync tries again.
func (c *Controller) removeFinalizers(ctx context.Context, key string, pods []*api.Pod) ([]string, error) {
	if len(pods) == 0 {
		return nil, nil
	}
	uids := make([]string, len(pods))
	for i, p := range pods {
		uids[i] = p.UID
	}
	c.removals.expect(key, uids)
	var released []string
	var errs []error
	for _, p := range pods {
		err := c.podControl.PatchPod(ctx, p.Namespace, p.Name, removeFinalizerPatch())
		if err != nil && !apierrors.IsNotFound(err) {
			c.removals.observed(key, p.UID)
			errs = append(errs, fmt.Errorf("remove the tracking finalizer of pod %s/%s: %w", p.Namespace, p.Name, err))
			continue
		}
		released = append(released, p.UID)
	}
	c.log.Debug("removed tracking finalizers", "key", key, "count", len(released))
	return released, errors.Join(errs...)
}

// removeFinalizerPatch is the strategic merge patch that removes the
// tracking finalizer and leaves the pod's other finalizers alone.
func removeFinalizerPatch() []byte {
	patch, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{
			"$deleteFromPrimitiveList/finalizers": []string{api.JobTrackingFinalizer},
		},
	})
	return patch
}

// addFinalizerPatch is the strategic merge patch that adds the tracking
// finalizer (finalizers merge as a set, so the others stay).
func addFinalizerPatch() []byte {
	patch, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"finalizers": []string{api.JobTrackingFinalizer}},
	})
	return patch
}
