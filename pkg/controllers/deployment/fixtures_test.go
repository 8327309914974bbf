package deployment

import (
	"strconv"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
)

// t0 is the fixtures' "now"; ReplicaSets are created at t0 plus a few
// seconds so creation order is explicit.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

func intOrStr(s string) *api.IntOrString {
	if n, err := strconv.Atoi(s); err == nil {
		v := api.FromInt(n)
		return &v
	}
	v := api.FromString(s)
	return &v
}

// newDeployment returns a defaulted-looking RollingUpdate Deployment
// "web" with the given replicas, surge and unavailability, running image.
func newDeployment(replicaCount int32, surge, unavailable, image string) *api.Deployment {
	return &api.Deployment{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: api.ObjectMeta{
			Name: "web", Namespace: "default", UID: "uid-web", Generation: 1, ResourceVersion: "10",
			CreationTimestamp: api.NewTime(t0),
		},
		Spec: api.DeploymentSpec{
			Replicas: ptr(replicaCount),
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: image}}},
			},
			Strategy: api.DeploymentStrategy{
				Type:          api.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &api.RollingUpdateDeployment{MaxSurge: intOrStr(surge), MaxUnavailable: intOrStr(unavailable)},
			},
			RevisionHistoryLimit:    ptr(int32(10)),
			ProgressDeadlineSeconds: ptr(int32(600)),
		},
	}
}

// recreate switches d to the Recreate strategy.
func recreate(d *api.Deployment) *api.Deployment {
	d.Spec.Strategy = api.DeploymentStrategy{Type: api.RecreateDeploymentStrategyType}
	return d
}

// rsFor returns the ReplicaSet d would own for a template running image,
// created createdSec seconds after t0, sized size with available pods
// available (status.replicas = size) and the given revision.
func rsFor(d *api.Deployment, image string, size, available int32, rev int, createdSec int) *api.ReplicaSet {
	template := api.DeepCopyValue(d.Spec.Template)
	template.Spec.Containers[0].Image = image
	hash := controllerutil.ComputeHash(&template, nil)
	template.Labels = withLabel(template.Labels, api.DefaultDeploymentUniqueLabelKey, hash)
	return &api.ReplicaSet{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: api.ObjectMeta{
			Name: d.Name + "-" + hash, Namespace: d.Namespace, UID: "uid-rs-" + image,
			ResourceVersion: "5", Generation: 1,
			CreationTimestamp: api.NewTime(t0.Add(time.Duration(createdSec) * time.Second)),
			Labels:            template.Labels,
			Annotations: map[string]string{
				api.DeploymentRevisionAnnotation:        strconv.Itoa(rev),
				api.DeploymentDesiredReplicasAnnotation: strconv.Itoa(int(replicas(d.Spec.Replicas))),
				api.DeploymentMaxReplicasAnnotation:     strconv.Itoa(int(replicas(d.Spec.Replicas) + maxSurge(d))),
			},
			OwnerReferences: []api.OwnerReference{controllerutil.NewControllerRef(d, "apps/v1", "Deployment")},
		},
		Spec: api.ReplicaSetSpec{
			Replicas: ptr(size),
			Selector: &api.LabelSelector{MatchLabels: withLabel(d.Spec.Selector.MatchLabels, api.DefaultDeploymentUniqueLabelKey, hash)},
			Template: template,
		},
		Status: api.ReplicaSetStatus{
			Replicas: size, ReadyReplicas: available, AvailableReplicas: available, ObservedGeneration: 1,
		},
	}
}

// plainRS returns a bare ReplicaSet for the pure-function tables: a name,
// a size, available pods, a creation offset and optional annotations.
func plainRS(name string, size, available int32, createdSec int, annotations map[string]string) *api.ReplicaSet {
	return &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{
			Name: name, Namespace: "default", UID: "uid-" + name,
			CreationTimestamp: api.NewTime(t0.Add(time.Duration(createdSec) * time.Second)),
			Annotations:       annotations,
		},
		Spec:   api.ReplicaSetSpec{Replicas: ptr(size)},
		Status: api.ReplicaSetStatus{Replicas: size, AvailableReplicas: available, ReadyReplicas: available},
	}
}
