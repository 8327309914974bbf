package printers

import (
	"fmt"
	"strings"
	"time"

	"kplane/pkg/api"
)

// This file prints the controllers that keep pods running:
// ReplicationController, ReplicaSet, Deployment, StatefulSet and DaemonSet,
// and the ControllerRevisions StatefulSets and DaemonSets keep.

// The CONTAINERS, IMAGES and SELECTOR columns every workload shows with -o wide.
var (
	containersColumn = wide(text("Containers", "The names of the containers in the pod template."))
	imagesColumn     = wide(text("Images", "The images of the containers in the pod template."))
	selectorColumn   = wide(text("Selector", "The label selector of the pods the controller owns."))
)

// containerCells returns the CONTAINERS and IMAGES cells: the template's
// container names and images, each joined by ",".
func containerCells(containers []api.Container) (names, images string) {
	n := make([]string, len(containers))
	i := make([]string, len(containers))
	for k, c := range containers {
		n[k], i[k] = c.Name, c.Image
	}
	return strings.Join(n, ","), strings.Join(i, ",")
}

// replicas returns spec.replicas, or 1, the default the apiserver fills in.
func replicas(r *int32) int64 {
	if r == nil {
		return 1
	}
	return int64(*r)
}

var replicationControllerColumns = []api.TableColumnDefinition{
	nameColumn,
	integer("Desired", "How many pods the controller should run (spec.replicas)."),
	integer("Current", "How many pods the controller runs now."),
	integer("Ready", "How many of those pods are ready."),
	ageColumn,
	containersColumn,
	imagesColumn,
	selectorColumn,
}

func replicationControllerCells(rc *api.ReplicationController, now time.Time) []any {
	var containers []api.Container
	if rc.Spec.Template != nil {
		containers = rc.Spec.Template.Spec.Containers
	}
	names, images := containerCells(containers)
	return []any{
		rc.Name,
		replicas(rc.Spec.Replicas),
		int64(rc.Status.Replicas),
		int64(rc.Status.ReadyReplicas),
		age(rc.CreationTimestamp, now),
		names, images,
		formatLabels(rc.Spec.Selector),
	}
}

var replicaSetColumns = []api.TableColumnDefinition{
	nameColumn,
	integer("Desired", "How many pods the replica set should run (spec.replicas)."),
	integer("Current", "How many pods the replica set runs now."),
	integer("Ready", "How many of those pods are ready."),
	ageColumn,
	containersColumn,
	imagesColumn,
	selectorColumn,
}

func replicaSetCells(rs *api.ReplicaSet, now time.Time) []any {
	names, images := containerCells(rs.Spec.Template.Spec.Containers)
	return []any{
		rs.Name,
		replicas(rs.Spec.Replicas),
		int64(rs.Status.Replicas),
		int64(rs.Status.ReadyReplicas),
		age(rs.CreationTimestamp, now),
		names, images,
		formatLabelSelector(rs.Spec.Selector),
	}
}

// Upstream declares UP-TO-DATE and AVAILABLE as strings although their cells
// are numbers; the declaration is kept as upstream has it.
var deploymentColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Ready", "Ready pods out of desired pods."),
	text("Up-to-date", "How many pods run the current pod template."),
	text("Available", "How many pods have been ready for at least minReadySeconds."),
	ageColumn,
	containersColumn,
	imagesColumn,
	selectorColumn,
}

func deploymentCells(d *api.Deployment, now time.Time) []any {
	names, images := containerCells(d.Spec.Template.Spec.Containers)
	return []any{
		d.Name,
		fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, replicas(d.Spec.Replicas)),
		int64(d.Status.UpdatedReplicas),
		int64(d.Status.AvailableReplicas),
		age(d.CreationTimestamp, now),
		names, images,
		deploymentSelector(d.Spec.Selector),
	}
}

var statefulSetColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Ready", "Ready pods out of desired pods."),
	ageColumn,
	containersColumn,
	imagesColumn,
}

func statefulSetCells(sts *api.StatefulSet, now time.Time) []any {
	names, images := containerCells(sts.Spec.Template.Spec.Containers)
	return []any{
		sts.Name,
		fmt.Sprintf("%d/%d", sts.Status.ReadyReplicas, replicas(sts.Spec.Replicas)),
		age(sts.CreationTimestamp, now),
		names, images,
	}
}

var daemonSetColumns = []api.TableColumnDefinition{
	nameColumn,
	integer("Desired", "How many nodes should run the daemon pod."),
	integer("Current", "How many nodes run a daemon pod."),
	integer("Ready", "How many of those pods are ready."),
	integer("Up-to-date", "How many nodes run the current pod template."),
	integer("Available", "How many nodes run a daemon pod that has been ready for minReadySeconds."),
	text("Node Selector", "The node labels the pod template requires."),
	ageColumn,
	containersColumn,
	imagesColumn,
	selectorColumn,
}

func daemonSetCells(ds *api.DaemonSet, now time.Time) []any {
	names, images := containerCells(ds.Spec.Template.Spec.Containers)
	return []any{
		ds.Name,
		int64(ds.Status.DesiredNumberScheduled),
		int64(ds.Status.CurrentNumberScheduled),
		int64(ds.Status.NumberReady),
		int64(ds.Status.UpdatedNumberScheduled),
		int64(ds.Status.NumberAvailable),
		formatLabels(ds.Spec.Template.Spec.NodeSelector),
		age(ds.CreationTimestamp, now),
		names, images,
		formatLabelSelector(ds.Spec.Selector),
	}
}

var controllerRevisionColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Controller", "The StatefulSet or DaemonSet that owns the revision, as kind.group/name."),
	text("Revision", "The revision number."),
	ageColumn,
}

func controllerRevisionCells(cr *api.ControllerRevision, now time.Time) []any {
	controller := none
	if ref := controllerOf(&cr.ObjectMeta); ref != nil {
		controller = kindAndName(ref.APIVersion, ref.Kind, ref.Name)
	}
	return []any{cr.Name, controller, cr.Revision, age(cr.CreationTimestamp, now)}
}
