package controllerutil

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/events"
)

// PodControl creates and deletes pods on an owner's behalf through the
// apiserver and records the SuccessfulCreate / FailedCreate /
// SuccessfulDelete / FailedDelete events that `kubectl describe rs` shows.
// It is the one place the ReplicaSet, ReplicationController, DaemonSet and
// Job controllers write pods; their unit tests see those writes on
// test/framework/fakeapi.
type PodControl struct {
	Client   *client.Client
	Recorder events.EventRecorder
}

// The reasons of the events PodControl records, as upstream's.
const (
	ReasonSuccessfulCreate = "SuccessfulCreate"
	ReasonFailedCreate     = "FailedCreate"
	ReasonSuccessfulDelete = "SuccessfulDelete"
	ReasonFailedDelete     = "FailedDelete"
)

// PodFromTemplate builds the pod a controller creates: the template's
// labels, annotations, finalizers and spec, generateName "<owner name>-" and
// the controller ownerReference.
func PodFromTemplate(template *api.PodTemplateSpec, owner api.Object, ownerRef api.OwnerReference) *api.Pod {
	t := api.DeepCopyValue(*template)
	return &api.Pod{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: api.ObjectMeta{
			GenerateName:    PodNamePrefix(owner.GetObjectMeta().Name),
			Namespace:       owner.GetObjectMeta().Namespace,
			Labels:          t.Labels,
			Annotations:     t.Annotations,
			Finalizers:      t.Finalizers,
			OwnerReferences: []api.OwnerReference{ownerRef},
		},
		Spec: t.Spec,
	}
}

// PodNamePrefix is the generateName for an owner's pods: its name and a
// dash, shortened so that the 5 random characters still fit in 63.
func PodNamePrefix(ownerName string) string {
	const maxPrefix = 63 - 5
	prefix := ownerName + "-"
	if len(prefix) > maxPrefix {
		prefix = prefix[:maxPrefix]
	}
	return prefix
}

// CreatePod creates a pod from template in namespace, named
// "<owner name>-<5 random characters>" by the apiserver (generateName),
// with ownerRef as its controller.
func (r PodControl) CreatePod(ctx context.Context, namespace string, template *api.PodTemplateSpec, owner api.Object, ownerRef api.OwnerReference) error {
	pod := PodFromTemplate(template, owner, ownerRef)
	created, err := r.Client.Pods(namespace).Create(ctx, pod, client.CreateOptions{})
	if err != nil {
		r.Recorder.Eventf(owner, api.EventTypeWarning, ReasonFailedCreate, "Error creating: %v", err)
		return fmt.Errorf("create pod for %s/%s: %w", namespace, owner.GetObjectMeta().Name, err)
	}
	r.Recorder.Eventf(owner, api.EventTypeNormal, ReasonSuccessfulCreate, "Created pod: %s", created.Name)
	return nil
}

// DeletePod deletes the pod namespace/name owned by owner.
func (r PodControl) DeletePod(ctx context.Context, namespace, name string, owner api.Object) error {
	if err := r.Client.Pods(namespace).Delete(ctx, name, client.DeleteOptions{}); err != nil {
		r.Recorder.Eventf(owner, api.EventTypeWarning, ReasonFailedDelete, "Error deleting: %v", err)
		return fmt.Errorf("delete pod %s/%s: %w", namespace, name, err)
	}
	r.Recorder.Eventf(owner, api.EventTypeNormal, ReasonSuccessfulDelete, "Deleted pod: %s", name)
	return nil
}

// PatchPod applies a strategic merge patch to a pod (adoption, release).
func (r PodControl) PatchPod(ctx context.Context, namespace, name string, patch []byte) error {
	_, err := r.Client.Pods(namespace).Patch(ctx, name, client.StrategicMergePatchType, patch, client.PatchOptions{})
	return err
}
