package deployment

// This file finds a Deployment's ReplicaSets and pods: which ReplicaSets it
// controls (adopting and releasing by selector), which of them is the "new"
// one (its template is the Deployment's), and which pods belong to each.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
)

// claimReplicaSets returns the ReplicaSets d controls, after adopting the
// orphans its selector matches and releasing its own that no longer match
// (controllerutil.RefManager holds the rules). Adoption re-reads d from the
// apiserver first, so a Deployment being deleted never adopts.
func (c *Controller) claimReplicaSets(ctx context.Context, d *api.Deployment) ([]*api.ReplicaSet, error) {
	all, err := c.replicaSets.Namespace(d.Namespace).List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("list replica sets of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	selector, err := labels.FromLabelSelector(d.Spec.Selector)
	if err != nil {
		// Validation rejects bad selectors; one that slipped through is not
		// fixed by retrying.
		return nil, controllerutil.DoNotRetry(fmt.Errorf("deployment %s/%s has an invalid selector: %w", d.Namespace, d.Name, err))
	}
	m := &controllerutil.RefManager{
		Owner:      d,
		APIVersion: controllerAPIVersion,
		Kind:       controllerKind,
		Selector:   selector,
		CanAdopt: controllerutil.RecheckDeletionTimestamp(d.UID, func(ctx context.Context) (*api.ObjectMeta, error) {
			fresh, err := c.client.Deployments(d.Namespace).Get(ctx, d.Name, client.GetOptions{})
			if err != nil {
				return nil, fmt.Errorf("get deployment %s/%s: %w", d.Namespace, d.Name, err)
			}
			return &fresh.ObjectMeta, nil
		}),
		Patch: func(ctx context.Context, name string, patch []byte) error {
			if _, err := c.client.ReplicaSets(d.Namespace).Patch(ctx, name, client.StrategicMergePatchType, patch, client.PatchOptions{}); err != nil {
				return fmt.Errorf("patch replica set %s/%s: %w", d.Namespace, name, err)
			}
			return nil
		},
	}
	claimed, err := controllerutil.Claim(ctx, m, all)
	if err != nil {
		return nil, fmt.Errorf("claim replica sets of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	return claimed, nil
}

// podsByReplicaSet groups the pods d's selector matches by the uid of the
// ReplicaSet in rsList that controls them. Inactive and terminating pods are
// kept: a Recreate rollout must wait until no old pod is left at all.
func (c *Controller) podsByReplicaSet(d *api.Deployment, rsList []*api.ReplicaSet) (map[string][]*api.Pod, error) {
	selector, err := labels.FromLabelSelector(d.Spec.Selector)
	if err != nil {
		return nil, controllerutil.DoNotRetry(fmt.Errorf("deployment %s/%s has an invalid selector: %w", d.Namespace, d.Name, err))
	}
	pods, err := c.pods.Namespace(d.Namespace).List(selector)
	if err != nil {
		return nil, fmt.Errorf("list pods of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	podMap := make(map[string][]*api.Pod, len(rsList))
	for _, rs := range rsList {
		podMap[rs.UID] = nil
	}
	for _, pod := range pods {
		ref := controllerutil.GetControllerOf(&pod.ObjectMeta)
		if ref == nil {
			continue
		}
		if _, ours := podMap[ref.UID]; ours {
			podMap[ref.UID] = append(podMap[ref.UID], pod)
		}
	}
	return podMap, nil
}

// findNewReplicaSet returns the ReplicaSet whose template is d's (ignoring
// the pod-template-hash label), or nil. Should several match — upstream
// has seen it after upgrades — the oldest wins, deterministically.
func findNewReplicaSet(d *api.Deployment, rsList []*api.ReplicaSet) *api.ReplicaSet {
	sorted := slices.Clone(rsList)
	slices.SortStableFunc(sorted, compareCreation)
	for _, rs := range sorted {
		if equalIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			return rs
		}
	}
	return nil
}

// findOldReplicaSets returns every ReplicaSet of rsList except the new one.
func findOldReplicaSets(d *api.Deployment, rsList []*api.ReplicaSet) []*api.ReplicaSet {
	newRS := findNewReplicaSet(d, rsList)
	var old []*api.ReplicaSet
	for _, rs := range rsList {
		if newRS != nil && rs.UID == newRS.UID {
			continue
		}
		old = append(old, rs)
	}
	return old
}

// equalIgnoreHash reports whether two pod templates are the same apart from
// the pod-template-hash label, which the ReplicaSet's copy carries and the
// Deployment's does not. They are compared as JSON, which treats nil and
// empty maps and lists alike, as upstream's semantic equality does.
func equalIgnoreHash(a, b *api.PodTemplateSpec) bool {
	return bytes.Equal(templateWithoutHash(a), templateWithoutHash(b))
}

// templateWithoutHash encodes t without its pod-template-hash label.
func templateWithoutHash(t *api.PodTemplateSpec) []byte {
	copied := api.DeepCopyValue(*t)
	delete(copied.Labels, api.DefaultDeploymentUniqueLabelKey)
	encoded, _ := json.Marshal(copied)
	return encoded
}
