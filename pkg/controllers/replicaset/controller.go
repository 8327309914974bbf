// Package replicaset is the ReplicaSet controller: it keeps spec.replicas
// pods matching each ReplicaSet's selector running, adopting orphans that
// match and releasing pods relabelled out of the selector, creating pods
// in slow-start batches and deleting the least valuable first, and reports
// the counts in status.
//
// The logic lives in Manager (manager.go, handlers.go, sync.go,
// replicas.go, status.go), which works on any kind through a small
// adapter, Kind; this file wires ReplicaSets into it, and
// pkg/controllers/replicationcontroller wires ReplicationControllers. See
// docs/controllers/replicaset.md.
package replicaset

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
)

// Name is the controller's name: its workqueue's and its logs'.
const Name = "replicaset"

// Controller is the ReplicaSet controller.
type Controller struct {
	manager *Manager[*api.ReplicaSet]
}

// New builds the ReplicaSet controller on the shared informers (it
// registers the ReplicaSet and Pod informers); pods are created and deleted
// through c, and their events recorded with recorder (whose source is
// "replicaset-controller").
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	podControl := controllerutil.RealPodControl{Client: c, Recorder: recorder}
	return newController(replicaSetKind(c, informers), informers, podControl, opts)
}

// newController is New with the API access injected, for tests.
func newController(kind Kind[*api.ReplicaSet], informers *informer.SharedInformerFactory, podControl controllerutil.PodControl, opts Options) (*Controller, error) {
	m, err := NewManager(kind, informers, podControl, opts)
	if err != nil {
		return nil, err
	}
	return &Controller{manager: m}, nil
}

// Run waits for the caches to sync and runs workers workers until ctx
// ends.
func (c *Controller) Run(ctx context.Context, workers int) { c.manager.Run(ctx, workers) }

// sync reconciles the ReplicaSet under key; see Manager.Sync.
func (c *Controller) sync(ctx context.Context, key string) error { return c.manager.Sync(ctx, key) }

// replicaSetKind adapts ReplicaSets to the Manager.
func replicaSetKind(c *client.Client, informers *informer.SharedInformerFactory) Kind[*api.ReplicaSet] {
	return Kind[*api.ReplicaSet]{
		Name:       Name,
		APIVersion: "apps/v1",
		Kind:       "ReplicaSet",
		Informer:   informers.ReplicaSets(),
		View:       viewReplicaSet,
		Get: func(ctx context.Context, namespace, name string) (*api.ReplicaSet, error) {
			return c.ReplicaSets(namespace).Get(ctx, name, client.GetOptions{})
		},
		UpdateStatus: func(ctx context.Context, rs *api.ReplicaSet, status api.ReplicaSetStatus) (*api.ReplicaSet, error) {
			updated := api.DeepCopy(rs)
			updated.Status = status
			return c.ReplicaSets(rs.Namespace).UpdateStatus(ctx, updated, client.UpdateOptions{})
		},
	}
}

// viewReplicaSet reads what the Manager needs from a ReplicaSet.
func viewReplicaSet(rs *api.ReplicaSet) (Owner, error) {
	selector, err := labels.FromLabelSelector(rs.Spec.Selector)
	if err != nil {
		return Owner{}, fmt.Errorf("invalid selector: %w", err)
	}
	replicas := int32(1)
	if rs.Spec.Replicas != nil {
		replicas = *rs.Spec.Replicas
	}
	return Owner{
		Selector:        selector,
		Replicas:        replicas,
		MinReadySeconds: rs.Spec.MinReadySeconds,
		Template:        &rs.Spec.Template,
		Status:          rs.Status,
	}, nil
}
