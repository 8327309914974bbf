package replicaset

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/controllers/controllerutil"
)

// The reasons of the ReplicaFailure condition, as upstream's.
const (
	ReasonFailedCreate = "FailedCreate"
	ReasonFailedDelete = "FailedDelete"
)

// calculateStatus counts the owner's pods (the active pods it controls)
// into a new status, as upstream's calculateStatus:
//
//   - replicas: every pod;
//   - fullyLabeledReplicas: pods carrying all of the template's labels (the
//     selector may ask for fewer);
//   - readyReplicas: pods whose Ready condition is True;
//   - availableReplicas: pods ready for at least minReadySeconds at now;
//   - observedGeneration: the generation this sync acted on;
//   - a ReplicaFailure condition while creates or deletes fail (manageErr),
//     removed by the first sync that manages replicas without error.
func calculateStatus(view Owner, generation int64, pods []*api.Pod, manageErr error, now time.Time) api.ReplicaSetStatus {
	status := api.DeepCopyValue(view.Status)
	var template map[string]string
	if view.Template != nil {
		template = view.Template.Labels
	}
	templateLabels := labels.SelectorFromSet(template)
	var fullyLabeled, ready, available int32
	for _, pod := range pods {
		if templateLabels.Matches(pod.Labels) {
			fullyLabeled++
		}
		if controllerutil.IsPodReady(pod) {
			ready++
			if controllerutil.IsPodAvailable(pod, view.MinReadySeconds, now) {
				available++
			}
		}
	}

	failure := findCondition(status.Conditions, api.ReplicaSetReplicaFailure)
	switch {
	case manageErr != nil && failure == nil:
		reason := ReasonFailedCreate
		if len(pods) > int(view.Replicas) {
			reason = ReasonFailedDelete
		}
		status.Conditions = append(status.Conditions, api.ReplicaSetCondition{
			Type:               api.ReplicaSetReplicaFailure,
			Status:             api.ConditionTrue,
			LastTransitionTime: api.NewTime(now.UTC().Truncate(time.Second)),
			Reason:             reason,
			Message:            manageErr.Error(),
		})
	case manageErr == nil && failure != nil:
		status.Conditions = removeCondition(status.Conditions, api.ReplicaSetReplicaFailure)
	}

	status.Replicas = int32(len(pods))
	status.FullyLabeledReplicas = fullyLabeled
	status.ReadyReplicas = ready
	status.AvailableReplicas = available
	status.ObservedGeneration = generation
	return status
}

// findCondition returns the condition of type t, or nil.
func findCondition(conditions []api.ReplicaSetCondition, t api.ReplicaSetConditionType) *api.ReplicaSetCondition {
	for i := range conditions {
		if conditions[i].Type == t {
			return &conditions[i]
		}
	}
	return nil
}

// removeCondition returns conditions without those of type t (nil if none
// is left, so that an emptied list compares equal to a missing one).
func removeCondition(conditions []api.ReplicaSetCondition, t api.ReplicaSetConditionType) []api.ReplicaSetCondition {
	var kept []api.ReplicaSetCondition
	for _, c := range conditions {
		if c.Type != t {
			kept = append(kept, c)
		}
	}
	return kept
}

// statusEqual reports whether writing status over current would change
// nothing, so the steady state costs no API call.
func statusEqual(current, status api.ReplicaSetStatus) bool {
	return current.Replicas == status.Replicas &&
		current.FullyLabeledReplicas == status.FullyLabeledReplicas &&
		current.ReadyReplicas == status.ReadyReplicas &&
		current.AvailableReplicas == status.AvailableReplicas &&
		current.ObservedGeneration == status.ObservedGeneration &&
		reflect.DeepEqual(current.TerminatingReplicas, status.TerminatingReplicas) &&
		slices.EqualFunc(current.Conditions, status.Conditions, func(a, b api.ReplicaSetCondition) bool {
			return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
				a.LastTransitionTime.Equal(b.LastTransitionTime.Time)
		})
}

// updateStatus writes status if it differs from the owner's. On a conflict
// (someone wrote the owner since the cache saw it) it reads the owner
// fresh and tries once more; any other failure is returned and the key
// retried with back-off.
func (c *Controller[T]) updateStatus(ctx context.Context, owner T, view Owner, status api.ReplicaSetStatus) error {
	if statusEqual(view.Status, status) {
		return nil
	}
	meta := owner.GetObjectMeta()
	c.log.Debug("updating status", "key", keyOf(owner),
		"replicas", fmt.Sprintf("%d->%d (want %d)", view.Status.Replicas, status.Replicas, view.Replicas),
		"readyReplicas", fmt.Sprintf("%d->%d", view.Status.ReadyReplicas, status.ReadyReplicas),
		"availableReplicas", fmt.Sprintf("%d->%d", view.Status.AvailableReplicas, status.AvailableReplicas),
		"observedGeneration", status.ObservedGeneration)
	_, err := c.kind.UpdateStatus(ctx, owner, status)
	if apierrors.IsConflict(err) {
		fresh, getErr := c.kind.Get(ctx, meta.Namespace, meta.Name)
		if getErr != nil {
			return fmt.Errorf("update status of %s %s: re-read after conflict: %w", c.kind.Kind, keyOf(owner), getErr)
		}
		// status keeps the generation this sync acted on, not the fresh
		// one: claiming to have seen a newer spec would be a lie.
		_, err = c.kind.UpdateStatus(ctx, fresh, status)
	}
	if err != nil {
		return fmt.Errorf("update status of %s %s: %w", c.kind.Kind, keyOf(owner), err)
	}
	return nil
}
