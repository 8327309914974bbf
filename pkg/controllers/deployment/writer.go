package deployment

// This file is the controller's only door to the apiserver for writes (and
// the one fresh read adoption needs). Everything else is read from the
// informers' listers. Keeping the writes behind a small interface lets the
// fixture tests record "which ReplicaSets did one sync create, update or
// delete" without an apiserver, as sample-controller's fake clientset does.

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// apiWriter is every API call the deployment controller makes.
//
// Updates send the object's resourceVersion, so a write based on a stale
// cache (or racing a second controller-manager that briefly also leads)
// fails with a Conflict and the key is retried with fresh data.
type apiWriter interface {
	// CreateReplicaSet creates rs and returns it as stored.
	CreateReplicaSet(ctx context.Context, rs *api.ReplicaSet) (*api.ReplicaSet, error)
	// UpdateReplicaSet replaces rs (spec and metadata).
	UpdateReplicaSet(ctx context.Context, rs *api.ReplicaSet) (*api.ReplicaSet, error)
	// DeleteReplicaSet deletes rs if its uid and resourceVersion still match.
	DeleteReplicaSet(ctx context.Context, rs *api.ReplicaSet) error
	// PatchReplicaSet applies a strategic merge patch (adoption, release).
	PatchReplicaSet(ctx context.Context, namespace, name string, patch []byte) error
	// GetDeployment reads a Deployment from the apiserver, bypassing the
	// cache (adoption must not trust a cached deletionTimestamp).
	GetDeployment(ctx context.Context, namespace, name string) (*api.Deployment, error)
	// UpdateDeployment replaces d's metadata and spec (the controller only
	// changes its revision annotation this way).
	UpdateDeployment(ctx context.Context, d *api.Deployment) (*api.Deployment, error)
	// UpdateDeploymentStatus replaces d's status.
	UpdateDeploymentStatus(ctx context.Context, d *api.Deployment) (*api.Deployment, error)
}

// clientWriter is the apiWriter that talks to the apiserver.
type clientWriter struct {
	client *client.Client
}

// CreateReplicaSet implements apiWriter.
func (w clientWriter) CreateReplicaSet(ctx context.Context, rs *api.ReplicaSet) (*api.ReplicaSet, error) {
	created, err := w.client.ReplicaSets(rs.Namespace).Create(ctx, rs, client.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create replica set %s/%s: %w", rs.Namespace, rs.Name, err)
	}
	return created, nil
}

// UpdateReplicaSet implements apiWriter.
func (w clientWriter) UpdateReplicaSet(ctx context.Context, rs *api.ReplicaSet) (*api.ReplicaSet, error) {
	updated, err := w.client.ReplicaSets(rs.Namespace).Update(ctx, rs, client.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("update replica set %s/%s: %w", rs.Namespace, rs.Name, err)
	}
	return updated, nil
}

// DeleteReplicaSet implements apiWriter.
func (w clientWriter) DeleteReplicaSet(ctx context.Context, rs *api.ReplicaSet) error {
	uid, rv := rs.UID, rs.ResourceVersion
	opts := client.DeleteOptions{Preconditions: &api.Preconditions{UID: &uid, ResourceVersion: &rv}}
	if err := w.client.ReplicaSets(rs.Namespace).Delete(ctx, rs.Name, opts); err != nil {
		return fmt.Errorf("delete replica set %s/%s: %w", rs.Namespace, rs.Name, err)
	}
	return nil
}

// PatchReplicaSet implements apiWriter.
func (w clientWriter) PatchReplicaSet(ctx context.Context, namespace, name string, patch []byte) error {
	_, err := w.client.ReplicaSets(namespace).Patch(ctx, name, client.StrategicMergePatchType, patch, client.PatchOptions{})
	if err != nil {
		return fmt.Errorf("patch replica set %s/%s: %w", namespace, name, err)
	}
	return nil
}

// GetDeployment implements apiWriter.
func (w clientWriter) GetDeployment(ctx context.Context, namespace, name string) (*api.Deployment, error) {
	d, err := w.client.Deployments(namespace).Get(ctx, name, client.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("get deployment %s/%s: %w", namespace, name, err)
	}
	return d, nil
}

// UpdateDeployment implements apiWriter.
func (w clientWriter) UpdateDeployment(ctx context.Context, d *api.Deployment) (*api.Deployment, error) {
	updated, err := w.client.Deployments(d.Namespace).Update(ctx, d, client.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("update deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	return updated, nil
}

// UpdateDeploymentStatus implements apiWriter.
func (w clientWriter) UpdateDeploymentStatus(ctx context.Context, d *api.Deployment) (*api.Deployment, error) {
	updated, err := w.client.Deployments(d.Namespace).UpdateStatus(ctx, d, client.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("update status of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	return updated, nil
}
