// Package replicationcontroller is the ReplicationController controller.
// A ReplicationController is the ReplicaSet's predecessor (core/v1, a
// selector that is a plain label map, a template pointer) and is managed
// by exactly the same logic: this package only adapts
// ReplicationControllers to the ReplicaSet controller, replicaset.Controller,
// through a replicaset.Kind. Where to start reading: New and
// replicationControllerKind below, then the replicaset package. See
// docs/controllers/replicationcontroller.md.
package replicationcontroller

import (
	"context"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
	"kplane/pkg/controllers/replicaset"
	"kplane/pkg/events"
	"kplane/pkg/informer"
)

// Name is the controller's name as --controllers spells it: its
// workqueue's and its logs'.
const Name = "replicationcontroller"

// Options configure the controller; they are the ReplicaSet controller's.
type Options = replicaset.Options

// Controller is the ReplicationController controller: the ReplicaSet
// controller run over ReplicationControllers.
type Controller = replicaset.Controller[*api.ReplicationController]

// New builds the ReplicationController controller on the shared informers
// (it registers the ReplicationController and Pod informers); it writes
// through c and records events with recorder (whose source is
// "replication-controller").
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	return replicaset.NewForKind(replicationControllerKind(c, informers), c, informers, recorder, opts)
}

// replicationControllerKind adapts ReplicationControllers to the
// ReplicaSet controller.
func replicationControllerKind(c *client.Client, informers *informer.SharedInformerFactory) replicaset.Kind[*api.ReplicationController] {
	return replicaset.Kind[*api.ReplicationController]{
		Name:       Name,
		APIVersion: "v1",
		Kind:       "ReplicationController",
		Resource:   "replicationcontrollers",
		Informer:   informers.ReplicationControllers(),
		View:       viewReplicationController,
		Get: func(ctx context.Context, namespace, name string) (*api.ReplicationController, error) {
			return c.ReplicationControllers(namespace).Get(ctx, name, client.GetOptions{})
		},
		UpdateStatus: func(ctx context.Context, rc *api.ReplicationController, status api.ReplicaSetStatus) (*api.ReplicationController, error) {
			updated := api.DeepCopy(rc)
			updated.Status = toRCStatus(status)
			return c.ReplicationControllers(rc.Namespace).UpdateStatus(ctx, updated, client.UpdateOptions{})
		},
	}
}

// viewReplicationController reads what the controller needs from a
// ReplicationController. Its selector is a set of label equalities; an
// empty one (which validation refuses) would match everything, as
// upstream's conversion to a ReplicaSet gives.
func viewReplicationController(rc *api.ReplicationController) (replicaset.Owner, error) {
	replicas := int32(1)
	if rc.Spec.Replicas != nil {
		replicas = *rc.Spec.Replicas
	}
	template := rc.Spec.Template
	if template == nil {
		// Validation requires a template; without one, creates fail with
		// the apiserver's error (a FailedCreate event), as upstream.
		template = &api.PodTemplateSpec{}
	}
	return replicaset.Owner{
		Selector:        labels.SelectorFromSet(rc.Spec.Selector),
		Replicas:        replicas,
		MinReadySeconds: rc.Spec.MinReadySeconds,
		Template:        template,
		Status:          toRSStatus(rc.Status),
	}, nil
}
