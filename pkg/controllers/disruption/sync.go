package disruption

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/api/conditions"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/api/poddisruptionbudget"
	"kplane/pkg/client"
	"kplane/pkg/informer"
)

// The Events the controller records, upstream's reasons and words.
const (
	eventNoPods                  = "NoPods"
	eventCalculateExpectedFailed = "CalculateExpectedPodCountFailed"
	eventUnmanagedPods           = "UnmanagedPods"
	eventNotDeleted              = "NotDeleted"
)

// sync recomputes the status of the budget key names and writes it when it
// changed (a "pod:" key is a pod to check for a stale DisruptionTarget
// condition instead, see stale.go). A conflict (the eviction subresource wrote the status first) is
// retried; any other failure sets disruptionsAllowed to 0 with
// DisruptionAllowed=False (SyncFailed), so that evictions stop rather than
// go ahead on numbers the controller could not compute (upstream's
// failSafe).
func (c *Controller) sync(ctx context.Context, key string) error {
	if podKey, ok := isStalePodKey(key); ok {
		return c.syncStalePod(ctx, podKey) // stale.go
	}
	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	budget, err := c.budgets.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.decisions.Forget(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get budget %s from cache: %w", key, err)
	}
	err = c.trySync(ctx, budget)
	if err == nil || apierrors.IsConflict(err) {
		return err
	}
	c.log.Error("sync budget failed; allowing no disruptions", "budget", key, "err", err)
	if failErr := c.failSafe(ctx, budget, err); failErr != nil {
		return fmt.Errorf("%w (and setting the budget to allow none failed: %v)", err, failErr)
	}
	return err
}

// trySync computes the budget's numbers from the pods it selects and writes
// the status, and parks the key until the first live disruptedPods entry
// expires.
func (c *Controller) trySync(ctx context.Context, budget *api.PodDisruptionBudget) error {
	pods, err := c.podsOf(budget)
	if err != nil {
		c.recorder.Eventf(budget, api.EventTypeWarning, eventNoPods, "Failed to get pods: %v", err)
		return err
	}
	if len(pods) == 0 {
		c.recorder.Eventf(budget, api.EventTypeNormal, eventNoPods, "No matching pods found")
	}

	var scale int32
	var unmanaged []string
	if needsScale(budget) {
		if scale, unmanaged, err = c.expectedScale(pods); err != nil {
			c.recorder.Eventf(budget, api.EventTypeWarning, eventCalculateExpectedFailed, "Failed to calculate the number of expected pods: %v", err)
			return err
		}
	}
	expected, desired, err := desiredHealthy(budget, int32(len(pods)), scale)
	if err != nil {
		c.recorder.Eventf(budget, api.EventTypeWarning, eventCalculateExpectedFailed, "Failed to calculate the number of expected pods: %v", err)
		return err
	}
	if len(unmanaged) > 0 {
		c.recorder.Eventf(budget, api.EventTypeWarning, eventUnmanagedPods, "Pods selected by this PodDisruptionBudget (selector: %s) were found "+
			"to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. "+
			"To account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value.", selectorString(budget.Spec.Selector))
	}

	now := c.clock.Now()
	disrupted, expired, recheck := liveDisruptedPods(pods, budget.Status.DisruptedPods, now)
	for _, podName := range expired {
		pod := &api.Pod{TypeMeta: api.TypeMeta{Kind: "Pod", APIVersion: "v1"}, ObjectMeta: api.ObjectMeta{Namespace: budget.Namespace, Name: podName}}
		c.recorder.Eventf(pod, api.EventTypeWarning, eventNotDeleted, "Pod was expected by PDB %s/%s to be deleted but it wasn't", budget.Namespace, budget.Name)
	}
	healthy := countHealthy(pods, disrupted)
	next := api.PodDisruptionBudgetStatus{
		CurrentHealthy: healthy, DesiredHealthy: desired, ExpectedPods: expected,
		DisruptionsAllowed: disruptionsAllowed(healthy, desired, expected), DisruptedPods: disrupted,
	}
	c.recordCounts(budget, len(pods), unmanaged, scale, &next)

	if err := c.writeStatus(ctx, budget, next); err != nil {
		return err
	}
	if !recheck.IsZero() {
		c.queue.AddAfter(keyOf(budget), recheck.Sub(now))
	}
	return nil
}

// podsOf lists the pods of the budget's namespace its selector matches.
func (c *Controller) podsOf(budget *api.PodDisruptionBudget) ([]*api.Pod, error) {
	selector, err := labels.FromLabelSelector(budget.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("budget %s/%s: selector: %w", budget.Namespace, budget.Name, err)
	}
	return c.pods.Namespace(budget.Namespace).List(selector)
}

// writeStatus writes next (with the budget's generation as observed and
// its DisruptionAllowed condition set to match) unless the stored status
// already says the same.
func (c *Controller) writeStatus(ctx context.Context, budget *api.PodDisruptionBudget, next api.PodDisruptionBudgetStatus) error {
	current := budget.Status
	if current.CurrentHealthy == next.CurrentHealthy && current.DesiredHealthy == next.DesiredHealthy &&
		current.ExpectedPods == next.ExpectedPods && current.DisruptionsAllowed == next.DisruptionsAllowed &&
		sameDisruptedPods(current.DisruptedPods, next.DisruptedPods) && poddisruptionbudget.ConditionsAreUpToDate(budget) {
		return nil
	}
	updated := api.DeepCopy(budget)
	next.ObservedGeneration = budget.Generation
	next.Conditions = updated.Status.Conditions
	updated.Status = next
	poddisruptionbudget.UpdateDisruptionAllowedCondition(updated, c.now())
	_, err := c.client.PodDisruptionBudgets(budget.Namespace).UpdateStatus(ctx, updated, client.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("update status of budget %s/%s: %w", budget.Namespace, budget.Name, err)
	}
	return nil
}

// failSafe writes disruptionsAllowed 0 and DisruptionAllowed=False
// (SyncFailed, with cause's message), keeping the rest of the status.
func (c *Controller) failSafe(ctx context.Context, budget *api.PodDisruptionBudget, cause error) error {
	updated := api.DeepCopy(budget)
	updated.Status.DisruptionsAllowed = 0
	conditions.Set(&updated.Status.Conditions, api.Condition{
		Type: api.DisruptionAllowedCondition, Status: string(api.ConditionFalse), Reason: api.SyncFailedReason,
		Message: cause.Error(), ObservedGeneration: updated.Status.ObservedGeneration,
	}, c.now())
	_, err := c.client.PodDisruptionBudgets(budget.Namespace).UpdateStatus(ctx, updated, client.UpdateOptions{})
	return err
}

// sameDisruptedPods compares two disruptedPods maps, nil and empty alike.
func sameDisruptedPods(a, b map[string]api.Time) bool {
	return maps.EqualFunc(a, b, func(x, y api.Time) bool { return x.Equal(y.Time) })
}

// selectorString renders a label selector as upstream's %v of a
// *metav1.LabelSelector does, closely enough for a message: its
// matchLabels and matchExpressions.
func selectorString(selector *api.LabelSelector) string {
	if selector == nil {
		return "nil"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(selector.MatchLabels)) {
		parts = append(parts, k+"="+selector.MatchLabels[k])
	}
	for _, e := range selector.MatchExpressions {
		parts = append(parts, fmt.Sprintf("%s %s (%s)", e.Key, e.Operator, strings.Join(e.Values, ",")))
	}
	return "&LabelSelector{" + strings.Join(parts, ",") + "}"
}

// now is the controller's clock as a stored timestamp (whole seconds).
func (c *Controller) now() api.Time {
	return api.NewTime(c.clock.Now().UTC().Truncate(time.Second))
}
