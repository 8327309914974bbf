package endpoints

// This file maps a pod event to the Services whose Endpoints it may
// change: the "services for pod" lookup and upstream's rule for which pod
// updates matter (GetServicesToUpdateOnPodChange, podEndpointsChanged and
// determineNeededServiceUpdates in k8s.io/endpointslice/util).

import (
	"maps"
	"slices"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/controller"
	"kplane/pkg/informer"
)

// servicesForPod returns the keys ("namespace/name") of the Services in the
// pod's namespace whose selector matches the pod's labels. Services without
// a selector are skipped: their Endpoints are someone else's.
func servicesForPod(services informer.NamespaceLister[*api.Service], pod *api.Pod) (map[string]bool, error) {
	list, err := services.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	keys := map[string]bool{}
	for _, svc := range list {
		if len(svc.Spec.Selector) == 0 {
			continue
		}
		if labels.SelectorFromSet(svc.Spec.Selector).Matches(pod.Labels) {
			keys[svc.Namespace+"/"+svc.Name] = true
		}
	}
	return keys, nil
}

// podEndpointsChanged compares two versions of a pod. podChanged says its
// address may have changed (marked for deletion, readiness flipped, IPs
// changed); labelsChanged says the set of Services selecting it may have
// changed (labels), or its hostname entry (hostname, subdomain). Anything
// else — a new annotation, a container restart count — changes no
// Endpoints, and upstream ignores it to spare the apiserver.
func podEndpointsChanged(oldPod, newPod *api.Pod) (podChanged, labelsChanged bool) {
	labelsChanged = !maps.Equal(oldPod.Labels, newPod.Labels) ||
		oldPod.Spec.Hostname != newPod.Spec.Hostname || oldPod.Spec.Subdomain != newPod.Spec.Subdomain

	switch {
	case (oldPod.DeletionTimestamp == nil) != (newPod.DeletionTimestamp == nil):
		podChanged = true
	case controller.IsPodReady(oldPod) != controller.IsPodReady(newPod):
		podChanged = true
	case !slices.Equal(podIPs(oldPod), podIPs(newPod)):
		podChanged = true
	}
	return podChanged, labelsChanged
}

// servicesToUpdate returns the Services to resync after a pod changed from
// oldPod to newPod. When only its labels changed, the Services that
// selected it before or after but not both (it joined or left them); when
// its address changed too, every Service selecting it before or after.
func servicesToUpdate(services informer.NamespaceLister[*api.Service], oldPod, newPod *api.Pod) (map[string]bool, error) {
	if oldPod.ResourceVersion == newPod.ResourceVersion {
		return nil, nil // a resync: nothing happened
	}
	podChanged, labelsChanged := podEndpointsChanged(oldPod, newPod)
	if !podChanged && !labelsChanged {
		return nil, nil
	}
	current, err := servicesForPod(services, newPod)
	if err != nil || !labelsChanged {
		return current, err
	}
	previous, err := servicesForPod(services, oldPod)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for key := range current {
		if podChanged || !previous[key] {
			out[key] = true
		}
	}
	for key := range previous {
		if podChanged || !current[key] {
			out[key] = true
		}
	}
	return out, nil
}
