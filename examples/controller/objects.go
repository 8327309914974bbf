package main

// This file holds the pure functions of the reconcile: what a Website's
// Deployment and Service should look like, and how an existing one differs
// from that. They read no cache and write nothing, so they are where the
// table tests go and what sync in controller.go calls before it writes.

import (
	"fmt"
	"maps"

	websitev1alpha1 "kplane/examples/controller/api"
	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
)

// websiteLabel is the label that ties a Website's pods to it: the
// Deployment's selector, the pod template's labels and the Service's
// selector are all websiteLabel=<website name>.
const websiteLabel = "examples.kplane.dev/website"

// containerName is the name of the one container of a Website's pods.
const containerName = "web"

// podLabels are the labels of a Website's pods.
func podLabels(website *websitev1alpha1.Website) map[string]string {
	return map[string]string{websiteLabel: website.Name}
}

// controllerRef is the ownerReference the Deployment and the Service carry:
// controller: true makes the Website their one managing controller, and
// blockOwnerDeletion: true makes a foreground deletion of the Website wait
// for them. When the Website is deleted, the garbage collector follows
// this reference and deletes them too.
func controllerRef(website *websitev1alpha1.Website) api.OwnerReference {
	return controllerutil.NewControllerRef(website, websitev1alpha1.APIVersion, websitev1alpha1.Kind)
}

// newDeployment is the Deployment a Website asks for: spec.replicas pods of
// spec.image listening on spec.port, named after the Website and owned by
// it.
func newDeployment(website *websitev1alpha1.Website) *api.Deployment {
	replicas := website.DesiredReplicas()
	return &api.Deployment{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: api.ObjectMeta{
			Name:            website.Name,
			Namespace:       website.Namespace,
			Labels:          podLabels(website),
			OwnerReferences: []api.OwnerReference{controllerRef(website)},
		},
		Spec: api.DeploymentSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: podLabels(website)},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: podLabels(website)},
				Spec: api.PodSpec{Containers: []api.Container{{
					Name:  containerName,
					Image: website.Spec.Image,
					Ports: []api.ContainerPort{{ContainerPort: website.ServingPort(), Protocol: api.ProtocolTCP}},
				}}},
			},
		},
	}
}

// deploymentDrift lists how deployment differs from what website asks for,
// in the fields the controller owns (replicas, image, port), as
// "replicas 2 → 3". The apiserver fills in many other fields (the
// strategy, imagePullPolicy, …); comparing whole specs would see a
// difference on every sync and update forever.
func deploymentDrift(deployment *api.Deployment, website *websitev1alpha1.Website) []string {
	var drift []string
	if have, want := replicasOf(deployment), website.DesiredReplicas(); have != want {
		drift = append(drift, fmt.Sprintf("replicas %d → %d", have, want))
	}
	container := webContainer(deployment)
	if container == nil {
		return append(drift, "container "+containerName+" missing")
	}
	if container.Image != website.Spec.Image {
		drift = append(drift, fmt.Sprintf("image %s → %s", container.Image, website.Spec.Image))
	}
	if have, want := containerPort(container), website.ServingPort(); have != want {
		drift = append(drift, fmt.Sprintf("port %d → %d", have, want))
	}
	return drift
}

// updateDeployment sets, in a copy of deployment, the fields the controller
// owns to what website asks for, leaving the rest as the apiserver has it.
func updateDeployment(deployment *api.Deployment, website *websitev1alpha1.Website) *api.Deployment {
	updated := api.DeepCopy(deployment)
	desired := newDeployment(website)
	updated.Spec.Replicas = desired.Spec.Replicas
	if container := webContainer(updated); container != nil {
		container.Image = website.Spec.Image
		container.Ports = desired.Spec.Template.Spec.Containers[0].Ports
	} else {
		updated.Spec.Template.Spec.Containers = append(updated.Spec.Template.Spec.Containers, desired.Spec.Template.Spec.Containers[0])
	}
	return updated
}

// newService is the Service a Website asks for: spec.port on a cluster IP,
// sent to the same port of the Website's pods.
func newService(website *websitev1alpha1.Website) *api.Service {
	return &api.Service{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: api.ObjectMeta{
			Name:            website.Name,
			Namespace:       website.Namespace,
			Labels:          podLabels(website),
			OwnerReferences: []api.OwnerReference{controllerRef(website)},
		},
		Spec: api.ServiceSpec{
			Type:     api.ServiceTypeClusterIP,
			Selector: podLabels(website),
			Ports:    []api.ServicePort{servicePort(website)},
		},
	}
}

// servicePort is the one port of a Website's Service.
func servicePort(website *websitev1alpha1.Website) api.ServicePort {
	port := website.ServingPort()
	return api.ServicePort{Name: "http", Protocol: api.ProtocolTCP, Port: port, TargetPort: api.FromInt32(port)}
}

// serviceDrift lists how service differs from what website asks for, in
// the fields the controller owns (the selector and the port): what someone
// editing the Service by hand changed.
func serviceDrift(service *api.Service, website *websitev1alpha1.Website) []string {
	var drift []string
	if want := podLabels(website); !maps.Equal(service.Spec.Selector, want) {
		drift = append(drift, fmt.Sprintf("selector %v → %v", service.Spec.Selector, want))
	}
	want := servicePort(website)
	if len(service.Spec.Ports) != 1 {
		return append(drift, fmt.Sprintf("%d ports → 1", len(service.Spec.Ports)))
	}
	have := service.Spec.Ports[0]
	if have.Port != want.Port || have.TargetPort != want.TargetPort {
		drift = append(drift, fmt.Sprintf("port %d→%s → %d→%s", have.Port, have.TargetPort.String(), want.Port, want.TargetPort.String()))
	}
	return drift
}

// updateService sets, in a copy of service, the selector and the port to
// what website asks for, keeping what the apiserver allocated (the
// cluster IP).
func updateService(service *api.Service, website *websitev1alpha1.Website) *api.Service {
	updated := api.DeepCopy(service)
	updated.Spec.Selector = podLabels(website)
	updated.Spec.Ports = []api.ServicePort{servicePort(website)}
	return updated
}

// webContainer returns the Website's container in deployment's pod
// template, or nil.
func webContainer(deployment *api.Deployment) *api.Container {
	containers := deployment.Spec.Template.Spec.Containers
	for i := range containers {
		if containers[i].Name == containerName {
			return &containers[i]
		}
	}
	return nil
}

// containerPort is the first port container declares, 0 for none.
func containerPort(container *api.Container) int32 {
	if len(container.Ports) == 0 {
		return 0
	}
	return container.Ports[0].ContainerPort
}

// replicasOf is a Deployment's spec.replicas; the apiserver defaults an
// unset one to 1.
func replicasOf(deployment *api.Deployment) int32 {
	if deployment.Spec.Replicas == nil {
		return 1
	}
	return *deployment.Spec.Replicas
}
