package main

// This file computes a Website's status from what the controller observed:
// a pure function, so sync only compares its result with the status the
// Website has and writes it when they differ.

import (
	"fmt"

	websitev1alpha1 "kplane/examples/controller/api"
	"kplane/pkg/api"
	"kplane/pkg/api/conditions"
	"kplane/pkg/api/labels"
)

// computeStatus returns the status website should have, given its
// Deployment as last written or observed (nil if there is none) and the
// error of this sync's writes (nil if they succeeded). now stamps the
// Ready condition's lastTransitionTime when its status changes.
func computeStatus(website *websitev1alpha1.Website, deployment *api.Deployment, syncErr error, now api.Time) websitev1alpha1.WebsiteStatus {
	status := websitev1alpha1.WebsiteStatus{
		ObservedGeneration: website.Generation,
		Selector:           labels.SelectorFromSet(podLabels(website)).String(),
		URL:                fmt.Sprintf("http://%s.%s.svc.cluster.local:%d", website.Name, website.Namespace, website.ServingPort()),
		// Keep the conditions, so that an unchanged Ready keeps its
		// lastTransitionTime.
		Conditions: append([]api.Condition(nil), website.Status.Conditions...),
	}
	if deployment != nil {
		status.Replicas = deployment.Status.Replicas
		status.ReadyReplicas = deployment.Status.ReadyReplicas
	}
	conditions.Set(&status.Conditions, readyCondition(website, status.ReadyReplicas, syncErr), now)
	return status
}

// readyCondition says whether the site serves with every replica: True once
// the Deployment reports as many ready replicas as spec.replicas, False
// while some are starting or when this sync's writes failed.
func readyCondition(website *websitev1alpha1.Website, readyReplicas int32, syncErr error) api.Condition {
	cond := api.Condition{Type: websitev1alpha1.ConditionReady, ObservedGeneration: website.Generation}
	want := website.DesiredReplicas()
	switch {
	case syncErr != nil:
		cond.Status, cond.Reason = string(api.ConditionFalse), websitev1alpha1.ReasonReconcileFailed
		cond.Message = syncErr.Error()
	case readyReplicas >= want:
		cond.Status, cond.Reason = string(api.ConditionTrue), websitev1alpha1.ReasonAllReplicasReady
		cond.Message = fmt.Sprintf("%d of %d replicas are ready", readyReplicas, want)
	default:
		cond.Status, cond.Reason = string(api.ConditionFalse), websitev1alpha1.ReasonReplicasNotReady
		cond.Message = fmt.Sprintf("%d of %d replicas are ready", readyReplicas, want)
	}
	return cond
}
