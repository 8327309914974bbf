package replicaset

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
	"kplane/pkg/informer"
)

// Kind tells the controller (Controller[T]) how to read and write one
// kind of replica owner. ReplicaSet and ReplicationController do the same
// job — keep spec.replicas pods matching a selector — and differ only in
// their Go types: an RC's selector is a plain map and its template a
// pointer. Upstream handles RCs by converting them to ReplicaSets on the
// way in and back on the way out (pkg/controller/replication); kplane keeps
// the objects as they are and gives the controller this small adapter
// instead, so events and ownerReferences name the real object.
type Kind[T api.Object] struct {
	// Name is the controller's name: the workqueue's name and the
	// "controller" attribute of its logs ("replicaset").
	Name string
	// APIVersion and Kind go into the ownerReferences of the pods ("apps/v1",
	// "ReplicaSet"). A pod's controllerRef is resolved to an owner of this
	// kind only if its Kind matches, as upstream's resolveControllerRef.
	APIVersion, Kind string
	// Resource is the owners' resource as the debug journal names it
	// ("replicasets.apps"): the decision records about an owner carry it,
	// so `ctl why rs/NAME` finds them.
	Resource string
	// Informer is the owners' shared informer: its lister feeds sync, its
	// events enqueue owners.
	Informer informer.TypedInformer[T]
	// View reads the fields the replica logic needs from an owner. An
	// error (a selector that cannot be parsed) stops the sync of that owner
	// until the owner changes.
	View func(owner T) (Owner, error)
	// Get reads an owner fresh from the apiserver, bypassing the cache:
	// before adopting pods (is it being deleted?) and to retry a status
	// update that hit a conflict.
	Get func(ctx context.Context, namespace, name string) (T, error)
	// UpdateStatus writes status to a copy of owner through the status
	// subresource; owner's resourceVersion makes it an optimistic update.
	UpdateStatus func(ctx context.Context, owner T, status api.ReplicaSetStatus) (T, error)
}

// Owner is the controller's view of one ReplicaSet or ReplicationController:
// what it asks for and what its status says now. The status uses the
// ReplicaSet's shape for both kinds (the fields are the same; an RC has no
// terminatingReplicas).
type Owner struct {
	// Selector picks the owner's pods; a nil LabelSelector matches nothing.
	Selector labels.Selector
	// Replicas is spec.replicas (defaulted to 1).
	Replicas int32
	// MinReadySeconds is how long a pod must have been ready to count as
	// available.
	MinReadySeconds int32
	// Template is the pod template new pods are made from.
	Template *api.PodTemplateSpec
	// Status is the owner's current status.
	Status api.ReplicaSetStatus
}

// replicaSetKind adapts ReplicaSets to the controller.
func replicaSetKind(c *client.Client, informers *informer.SharedInformerFactory) Kind[*api.ReplicaSet] {
	return Kind[*api.ReplicaSet]{
		Name:       Name,
		APIVersion: "apps/v1",
		Kind:       "ReplicaSet",
		Resource:   "replicasets.apps",
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

// viewReplicaSet reads what the controller needs from a ReplicaSet.
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
