package statefulset

// This file carries out plan's actions against the API, as upstream's
// stateful_pod_control.go: claims before their pod, pods under their fixed
// names, and the events `kubectl describe sts` shows (with PodControl's
// reasons, upstream's messages).

import (
	"context"
	"errors"
	"fmt"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
)

// apply makes the pod writes of actions, in order, and returns the errors
// joined. A write another controller-manager (or an earlier sync on a
// stale cache) already made is not an error: AlreadyExists on create,
// NotFound or a uid precondition failure on delete.
func (c *Controller) apply(ctx context.Context, set *api.StatefulSet, revs setRevisions, actions []action) error {
	var errs []error
	for _, a := range actions {
		c.log.Info("statefulset step", "statefulset", set.Namespace+"/"+set.Name, "action", a.Type,
			"ordinal", a.Ordinal, "reason", a.Reason, "revision", a.Revision)
		switch a.Type {
		case actionCreate:
			template := revs.updateTemplate
			if a.Revision == revs.current.Name {
				template = revs.currentTemplate
			}
			if err := c.createPod(ctx, set, newPod(set, template, a.Revision, a.Ordinal)); err != nil {
				errs = append(errs, err)
			}
		case actionDelete:
			if err := c.deletePodOf(ctx, set, a.Pod); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// createPod creates pod's claims, then pod.
func (c *Controller) createPod(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error {
	ordinal := ordinalOf(pod)
	for _, claim := range newClaims(set, ordinal) {
		if err := c.createClaim(ctx, set, pod, claim); err != nil {
			return err
		}
	}
	_, err := c.client.Pods(set.Namespace).Create(ctx, pod, client.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		c.log.Debug("pod already exists", "pod", pod.Name)
		return nil
	case err != nil:
		c.recorder.Eventf(set, api.EventTypeWarning, controllerutil.ReasonFailedCreate, "create Pod %s in StatefulSet %s failed error: %v", pod.Name, set.Name, err)
		return fmt.Errorf("create pod %s/%s: %w", set.Namespace, pod.Name, err)
	}
	c.recorder.Eventf(set, api.EventTypeNormal, controllerutil.ReasonSuccessfulCreate, "create Pod %s in StatefulSet %s successful", pod.Name, set.Name)
	return nil
}

// createClaim creates claim unless the cache already has it. A claim being
// deleted blocks the pod: it would lose its storage right after starting.
func (c *Controller) createClaim(ctx context.Context, set *api.StatefulSet, pod *api.Pod, claim *api.PersistentVolumeClaim) error {
	existing, err := c.claimLister.Namespace(set.Namespace).Get(claim.Name)
	if err == nil {
		if existing.DeletionTimestamp != nil {
			return fmt.Errorf("claim %s/%s is being deleted", set.Namespace, claim.Name)
		}
		return nil
	}
	_, err = c.client.PersistentVolumeClaims(set.Namespace).Create(ctx, claim, client.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		return nil
	case err != nil:
		c.recorder.Eventf(set, api.EventTypeWarning, controllerutil.ReasonFailedCreate, "create Claim %s for Pod %s in StatefulSet %s failed error: %v", claim.Name, pod.Name, set.Name, err)
		return fmt.Errorf("create claim %s/%s: %w", set.Namespace, claim.Name, err)
	}
	c.recorder.Eventf(set, api.EventTypeNormal, controllerutil.ReasonSuccessfulCreate, "create Claim %s Pod %s in StatefulSet %s success", claim.Name, pod.Name, set.Name)
	return nil
}

// deletePodOf deletes pod, but only the very pod the plan saw: the uid
// precondition keeps a stale cache from deleting its replacement.
func (c *Controller) deletePodOf(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error {
	uid := pod.UID
	err := c.client.Pods(set.Namespace).Delete(ctx, pod.Name, client.DeleteOptions{Preconditions: &api.Preconditions{UID: &uid}})
	switch {
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
		c.log.Debug("pod already gone or replaced", "pod", pod.Name, "err", err)
		return nil
	case err != nil:
		c.recorder.Eventf(set, api.EventTypeWarning, controllerutil.ReasonFailedDelete, "delete Pod %s in StatefulSet %s failed error: %v", pod.Name, set.Name, err)
		return fmt.Errorf("delete pod %s/%s: %w", set.Namespace, pod.Name, err)
	}
	c.recorder.Eventf(set, api.EventTypeNormal, controllerutil.ReasonSuccessfulDelete, "delete Pod %s in StatefulSet %s successful", pod.Name, set.Name)
	return nil
}
