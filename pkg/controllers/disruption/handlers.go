package disruption

// The informer handlers: they only work out which budgets a change
// concerns and enqueue their keys.

import (
	"kplane/pkg/api"
	"kplane/pkg/api/poddisruptionbudget"
	"kplane/pkg/informer"
)

// budgetChanged enqueues an added or updated budget.
func (c *Controller) budgetChanged(obj api.Object) {
	if budget, ok := obj.(*api.PodDisruptionBudget); ok {
		c.queue.Add(keyOf(budget))
	}
}

// budgetDeleted enqueues a deleted budget (the sync finds it gone and
// forgets it). obj may be a tombstone.
func (c *Controller) budgetDeleted(obj any) {
	if budget, ok := informer.DeletedObject[*api.PodDisruptionBudget](obj); ok {
		c.queue.Add(keyOf(budget))
	}
}

// podChanged enqueues the budgets that select a pod: its readiness, its
// deletion or its labels may change their numbers; and, when the pod has a
// DisruptionTarget condition but is not being deleted, its own key for the
// moment that condition turns stale (stale.go). Upstream enqueues only
// the first budget found (and warns about the others, which eviction
// refuses anyway); kplane enqueues each, so every one of them stays right.
func (c *Controller) podChanged(obj api.Object) {
	if pod, ok := obj.(*api.Pod); ok {
		c.enqueueBudgetsOf(pod)
		c.enqueueIfStaleCondition(pod)
	}
}

// podDeleted enqueues the budgets of a deleted pod. obj may be a
// tombstone, whose labels may be stale: a budget that selected the pod's
// later labels learns of it at its next sync.
func (c *Controller) podDeleted(obj any) {
	if pod, ok := informer.DeletedObject[*api.Pod](obj); ok {
		c.enqueueBudgetsOf(pod)
	}
}

// enqueueBudgetsOf enqueues every budget of pod's namespace that selects it.
func (c *Controller) enqueueBudgetsOf(pod *api.Pod) {
	budgets, err := c.budgets.Namespace(pod.Namespace).List(nil)
	if err != nil {
		c.log.Error("list budgets from cache", "namespace", pod.Namespace, "err", err)
		return
	}
	for _, budget := range budgets {
		if poddisruptionbudget.Selects(budget, pod.Labels) {
			c.queue.Add(keyOf(budget))
		}
	}
}

// keyOf returns obj's "namespace/name" key.
func keyOf(obj api.Object) string {
	key, _ := informer.MetaNamespaceKeyFunc(obj)
	return key
}
