package garbagecollector

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// TestForegroundDeletionOfEveryKind: an object deleted in the foreground
// gets the foregroundDeletion finalizer, and only the collector takes it
// off. So the collector must watch every kind that can be deleted, not
// only the workload kinds it has typed informers for — a Namespace or an
// HPA deleted with --cascade=foreground once waited forever. A Namespace
// still keeps its spec.finalizers (the namespace controller's work, which
// does not run here), so for it the test waits for the metadata finalizer
// to go.
func TestForegroundDeletionOfEveryKind(t *testing.T) {
	_, c := startServerAndCollector(t)
	ctx := context.Background()
	objects := []struct {
		resource client.Resource
		object   map[string]any
	}{
		{client.NamespacesResource, map[string]any{"apiVersion": "v1", "kind": "Namespace",
			"metadata": map[string]any{"name": "lesson"}}},
		{client.HorizontalPodAutoscalersResource, map[string]any{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
			"metadata": map[string]any{"name": "web", "namespace": "default"},
			"spec":     map[string]any{"maxReplicas": 3, "scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}}},
		{client.LeasesResource, map[string]any{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
			"metadata": map[string]any{"name": "lock", "namespace": "default"}}},
		{client.PodDisruptionBudgetsResource, map[string]any{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
			"metadata": map[string]any{"name": "web", "namespace": "default"},
			"spec":     map[string]any{"minAvailable": 1, "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}}}}},
		{client.ConfigMapsResource, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "settings", "namespace": "default"}}},
	}
	foreground := api.DeletePropagationForeground
	for _, o := range objects {
		meta := o.object["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		ns, _ := meta["namespace"].(string)
		objects := c.Dynamic(o.resource).Namespace(ns)
		if _, err := objects.Create(ctx, o.object, client.CreateOptions{}); err != nil {
			t.Fatalf("create %s %s: %v", o.resource, name, err)
		}
		if err := objects.Delete(ctx, name, client.DeleteOptions{PropagationPolicy: &foreground}); err != nil {
			t.Fatalf("delete %s %s in the foreground: %v", o.resource, name, err)
		}
		framework.Eventually(t, waitTimeout, func() (bool, string) {
			got, err := objects.Get(ctx, name, client.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, ""
			}
			if err != nil {
				return false, err.Error()
			}
			finalizers, _ := got["metadata"].(map[string]any)["finalizers"].([]any)
			if o.resource == client.NamespacesResource && !slices.Contains(finalizers, any(api.FinalizerDeleteDependents)) {
				return true, ""
			}
			return false, fmt.Sprintf("%s %s still exists with finalizers %v", o.resource, name, finalizers)
		})
	}
}
