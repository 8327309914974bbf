package namespace

// This file empties a namespace: for every namespaced resource the
// apiserver serves, one DELETE of the whole collection, then a LIST to see
// what is left. It is upstream's deleteAllContent /
// deleteAllContentForGroupVersionResource
// (pkg/controller/namespace/deletion/namespaced_resources_deleter.go).

import (
	"context"
	"errors"
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/restmapper"
)

// namespacedResources is every resource that lives in a namespace: the
// built-in ones in client.BuiltinResources order, then those discovery
// lists beside them (custom resources) that can be deleted, in discovery
// order, and events at the end: events about the objects being deleted (a
// pod's Killing, say) keep arriving during the pass, and deleting them
// last lets them be read for as long as possible. Upstream walks its
// discovery map in no particular order.
func namespacedResources(discovered []restmapper.APIResource) []client.Resource {
	var out []client.Resource
	for _, res := range client.BuiltinResources() {
		if res.Namespaced && res != client.EventsResource {
			out = append(out, res)
		}
	}
	for _, r := range discovered {
		res := r.Client()
		if r.Preferred && res.Namespaced && r.HasVerb("delete") && !client.IsBuiltin(res) {
			out = append(out, res)
		}
	}
	return append(out, client.EventsResource)
}

// discoverResources returns the resources to empty a namespace of. When
// discovery fails it returns the built-in ones with the error: as
// upstream says, a failed discovery is not fatal, since there are still
// resources to work on; but the pass then fails, so the namespace is not
// finalized with custom objects left behind.
func (c *Controller) discoverResources(ctx context.Context) ([]client.Resource, error) {
	discovered, err := c.discover(ctx)
	if err != nil {
		return namespacedResources(nil), fmt.Errorf("discover the namespaced resources: %w", err)
	}
	return namespacedResources(discovered), nil
}

// resourceLabel names a resource as upstream's condition messages do:
// "<resource>.<group>", so core pods print as "pods.".
func resourceLabel(res client.Resource) string {
	return res.Resource + "." + res.Group
}

// resourceOutcome is what one resource's deletion left behind.
type resourceOutcome struct {
	// estimate is how many seconds the remaining objects may still take
	// (0: none expected to take longer).
	estimate int64
	// remaining is how many objects are still listed.
	remaining int
	// finalizers counts the remaining objects per finalizer they carry.
	finalizers map[string]int
}

// deleteContent deletes everything in ns, records the outcome in ns's
// status conditions, and returns the longest estimate of any resource:
// 0 means the namespace is empty. It carries on past a failing resource
// and returns the failures joined, as upstream does, so one broken
// resource does not stop the others from being cleaned up. It returns ns
// as last written (its status conditions may have been updated).
func (c *Controller) deleteContent(ctx context.Context, ns *api.Namespace) (int64, *api.Namespace, error) {
	totals := newContentTotals()
	var estimate int64
	var errs []error
	resources, err := c.discoverResources(ctx)
	if err != nil {
		errs = append(errs, err)
		totals.discoveryErr = err
	}
	for _, res := range resources {
		outcome, err := c.deleteResource(ctx, res, ns)
		if err != nil {
			errs = append(errs, err)
			totals.deleteErrors = append(totals.deleteErrors, err)
		}
		estimate = max(estimate, outcome.estimate)
		if outcome.remaining > 0 {
			totals.remaining[resourceLabel(res)] = outcome.remaining
			for f, n := range outcome.finalizers {
				totals.finalizers[f] += n
			}
		}
	}

	// The conditions are written even when all is well, so that a
	// condition that said "content remains" turns into "all removed".
	if updateConditions(&ns.Status, failingConditions(totals, c.now()), c.now()) {
		updated, err := c.client.Namespaces().UpdateStatus(ctx, ns, client.UpdateOptions{})
		if err != nil {
			// Not fatal: the next pass writes them again (upstream only logs too).
			c.log.Info("could not update namespace status conditions", "namespace", ns.Name, "err", err)
		} else {
			ns = updated
		}
	}
	c.recordContent(ns, totals, estimate)
	c.log.Debug("namespace content pass", "namespace", ns.Name, "estimateSeconds", estimate, "remaining", totals.remaining)
	return estimate, ns, errors.Join(errs...)
}

// deleteResource deletes every object of res in ns and lists what is left.
func (c *Controller) deleteResource(ctx context.Context, res client.Resource, ns *api.Namespace) (resourceOutcome, error) {
	var estimate int64
	if res == client.PodsResource {
		// Estimate before deleting, from the pods' own grace periods: a pod
		// already marked for deletion is still stopping.
		pods, err := c.client.Pods(ns.Name).List(ctx, client.ListOptions{})
		if err != nil {
			return resourceOutcome{}, fmt.Errorf("list pods to estimate their termination: %w", err)
		}
		estimate = podTerminationEstimate(pods.Items, ns.DeletionTimestamp.Time, c.clock.Now())
	}

	objects := c.client.Dynamic(res).Namespace(ns.Name)
	// Background propagation: the namespace controller deletes every kind
	// itself, so it does not want the garbage collector's orphan finalizer
	// to hold anything back (upstream passes the same policy).
	background := api.DeletePropagationBackground
	if err := objects.DeleteCollection(ctx, client.DeleteOptions{PropagationPolicy: &background}, client.ListOptions{}); err != nil {
		return resourceOutcome{estimate: estimate}, fmt.Errorf("delete collection of %s: %w", res, err)
	}

	list, err := objects.List(ctx, client.ListOptions{})
	if err != nil {
		return resourceOutcome{estimate: estimate}, fmt.Errorf("list remaining %s: %w", res, err)
	}
	if len(list.Items) == 0 {
		return resourceOutcome{}, nil
	}
	outcome := resourceOutcome{estimate: estimate, remaining: len(list.Items), finalizers: map[string]int{}}
	for _, item := range list.Items {
		for _, f := range itemFinalizers(item) {
			outcome.finalizers[f]++
		}
	}
	switch {
	case estimate > 0:
		// Graceful deletion in progress: expected.
	case len(outcome.finalizers) > 0:
		// Something (the garbage collector, usually) still has work to do.
		outcome.estimate = finalizerEstimateSeconds
	default:
		// Nothing explains why they are still here; retry with back-off.
		return outcome, fmt.Errorf("unexpected items still remain in namespace: %s for resource: %s", ns.Name, res)
	}
	return outcome, nil
}

// itemFinalizers reads metadata.finalizers of an object in map form.
func itemFinalizers(item map[string]any) []string {
	meta, _ := item["metadata"].(map[string]any)
	list, _ := meta["finalizers"].([]any)
	out := make([]string, 0, len(list))
	for _, f := range list {
		if s, ok := f.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
