package main

// This file words what one sync decided, for the process's debug journal:
// `ctl why website/NAME` prints the latest such decision of the Website
// controller next to those of the built-in controllers, and `ctl trace
// website/NAME` shows it in the object's pipeline. Like the status, it is
// computed by a pure function from what sync already knows.

import (
	"fmt"
	"strconv"
	"strings"

	websitev1alpha1 "kplane/examples/controller/api"
	"kplane/pkg/debug"
)

// websitesGroupResource is how the debug journals name Websites:
// "websites.examples.kplane.dev", the resource.group `ctl` asks them for.
var websitesGroupResource = websitev1alpha1.WebsitesResource.Resource + "." + websitev1alpha1.WebsitesResource.Group

// The steps syncDeployment and syncService report for the decision.
const (
	// stepCreated: the object did not exist and was created.
	stepCreated = "created"
	// stepInSync: the object already matched the spec; nothing written.
	stepInSync = "in sync"
)

// stepUpdated is the step of an object put back to the spec: which fields
// drifted, as the Updated Event says them ("replicas 2 → 3").
func stepUpdated(drift []string) string {
	return "updated: " + strings.Join(drift, ", ")
}

// syncDecision is the decision of one sync of website: the spec it read,
// what it did to the Deployment and the Service (a step is "" when the
// sync failed before it), and the Ready condition it computed.
//
//	replicas 2, image nginx:1.27, port 80: Deployment created, Service created; Ready False ReplicasNotReady: 0 of 2 replicas are ready
func syncDecision(website *websitev1alpha1.Website, deploymentStep, serviceStep string, status websitev1alpha1.WebsiteStatus) debug.Decision {
	var steps []string
	if deploymentStep != "" {
		steps = append(steps, "Deployment "+deploymentStep)
	}
	if serviceStep != "" {
		steps = append(steps, "Service "+serviceStep)
	}
	ready := "Ready unknown"
	for _, cond := range status.Conditions {
		if cond.Type == websitev1alpha1.ConditionReady {
			ready = fmt.Sprintf("Ready %s %s: %s", cond.Status, cond.Reason, cond.Message)
		}
	}
	spec := fmt.Sprintf("replicas %d, image %s, port %d", website.DesiredReplicas(), website.Spec.Image, website.ServingPort())
	message := spec + ": " + ready
	if len(steps) > 0 {
		message = spec + ": " + strings.Join(steps, ", ") + "; " + ready
	}
	return debug.Decision{
		Message: message,
		Values: map[string]string{
			"replicas":      strconv.Itoa(int(website.DesiredReplicas())),
			"readyReplicas": strconv.Itoa(int(status.ReadyReplicas)),
		},
		// The sync is sample-controller's syncHandler: compare the spec
		// with the owned objects, make one step, write the status.
		Source: "staging/src/k8s.io/sample-controller/controller.go",
	}
}
