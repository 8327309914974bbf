package resourcequota

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/quota"
)

// sync brings the quota named key (namespace/name) up to date: status.hard
// is spec.hard, status.used is recounted for every hard resource. It writes
// only when something differs, so running it twice writes once. A
// conflict (admission charged the quota meanwhile) is retried with
// back-off, from the newer quota.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, _ := strings.Cut(key, "/")
	cached, err := c.quotas.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.decisions.Forget(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get quota %s from cache: %w", key, err)
	}
	used, err := c.calculateUsage(ctx, cached)
	if err != nil {
		return fmt.Errorf("count usage of quota %s: %w", key, err)
	}
	if quota.Equals(cached.Status.Hard, cached.Spec.Hard) && quota.Equals(cached.Status.Used, used) {
		return nil
	}
	c.recordStatus(cached, used)
	updated := *cached
	updated.Status = api.ResourceQuotaStatus{Hard: cached.Spec.Hard, Used: used}
	if _, err := c.client.ResourceQuotas(namespace).UpdateStatus(ctx, &updated, client.UpdateOptions{}); err != nil {
		return fmt.Errorf("update status of quota %s: %w", key, err)
	}
	c.log.Debug("quota status updated", "quota", key, "used", quota.PrettyPrint(used))
	return nil
}

// calculateUsage counts what the namespace's objects charge for each of
// q's hard resources (upstream's CalculateUsage): every hard name gets a
// figure, zero when nothing charges it. A name no evaluator charges keeps
// the figure the quota had, as upstream keeps observations it cannot make.
func (c *Controller) calculateUsage(ctx context.Context, q *api.ResourceQuota) (api.ResourceList, error) {
	hard := quota.ResourceNames(q.Spec.Hard)
	used := quota.Mask(q.Status.Used, hard)
	now := c.clock.Now()
	for _, gr := range c.resourcesCharged(hard) {
		objects, err := c.objectsIn(ctx, gr, q.Namespace)
		if err != nil {
			return nil, err
		}
		usage, err := quota.CalculateUsage(q, quota.EvaluatorFor(gr), objects, now)
		if err != nil {
			return nil, err
		}
		for name, amount := range usage {
			used[name] = amount
		}
	}
	return used, nil
}

// resourcesCharged returns the resources whose objects charge one of names:
// the resources the controller watches (counted.go) by their own names
// (pods, services, claims; configmaps, secrets, replicationcontrollers and
// resourcequotas by their legacy ones), any other by its
// count/<resource>.<group> name.
func (c *Controller) resourcesCharged(names []api.ResourceName) []quota.GroupResource {
	seen := map[quota.GroupResource]bool{}
	var result []quota.GroupResource
	consider := func(gr quota.GroupResource) {
		if !seen[gr] && len(quota.EvaluatorFor(gr).MatchingResources(names)) > 0 {
			seen[gr] = true
			result = append(result, gr)
		}
	}
	watched := slices.SortedFunc(maps.Keys(c.counted), func(a, b quota.GroupResource) int {
		return cmp.Compare(a.String(), b.String())
	})
	for _, gr := range watched {
		consider(gr)
	}
	for _, name := range names {
		if counted, ok := strings.CutPrefix(name, "count/"); ok {
			resource, group, _ := strings.Cut(counted, ".")
			consider(quota.GroupResource{Group: group, Resource: resource})
		}
	}
	return result
}

// objectsIn returns the objects of gr in namespace: from the informer's
// cache for the resources the controller watches, else with a live list of
// their metadata. A count of a resource the apiserver does not serve is
// zero.
func (c *Controller) objectsIn(ctx context.Context, gr quota.GroupResource, namespace string) ([]api.Object, error) {
	if list, ok := c.counted[gr]; ok {
		return list(namespace)
	}
	res, ok := servedResource(gr)
	if !ok {
		return nil, nil
	}
	list, err := c.client.Dynamic(res).Namespace(namespace).List(ctx, client.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list %s in %s: %w", gr, namespace, err)
	}
	objects := make([]api.Object, len(list.Items))
	for i := range list.Items {
		objects[i] = &api.PartialObjectMetadata{}
	}
	return objects, nil
}

// servedResource finds gr among the namespaced resources kplane serves.
func servedResource(gr quota.GroupResource) (client.Resource, bool) {
	for _, res := range client.BuiltinResources() {
		if res.Group == gr.Group && res.Resource == gr.Resource && res.Namespaced {
			return res, true
		}
	}
	return client.Resource{}, false
}
