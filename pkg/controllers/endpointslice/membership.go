package endpointslice

// This file maps a pod event to the Services whose slices it may change
// (upstream's GetPodServiceMemberships and GetServicesToUpdateOnPodChange
// in k8s.io/endpointslice/util). The endpoints controller applies the same
// rules to its Endpoints.

import (
	"maps"
	"slices"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/controller"
	"kplane/pkg/informer"
)

// servicesForPod returns the keys of the Services in the pod's namespace
// whose selector matches the pod's labels. Services without a selector
// are skipped: their slices are written by someone else.
func servicesForPod(services informer.NamespaceLister[*api.Service], pod *api.Pod) (map[string]bool, error) {
	list, err := services.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	keys := map[string]bool{}
	for _, svc := range list {
		if len(svc.Spec.Selector) > 0 && labels.SelectorFromSet(svc.Spec.Selector).Matches(pod.Labels) {
			keys[svc.Namespace+"/"+svc.Name] = true
		}
	}
	return keys, nil
}

// podChanges compares two versions of a pod. endpointChanged says its
// endpoint may read differently (deletion started, readiness flipped, IPs
// changed); membershipChanged says the Services selecting it, or its
// hostname entry, may have changed. Anything else — an annotation, a
// restart count — changes no slice.
func podChanges(oldPod, newPod *api.Pod) (endpointChanged, membershipChanged bool) {
	membershipChanged = !maps.Equal(oldPod.Labels, newPod.Labels) ||
		oldPod.Spec.Hostname != newPod.Spec.Hostname || oldPod.Spec.Subdomain != newPod.Spec.Subdomain
	endpointChanged = (oldPod.DeletionTimestamp == nil) != (newPod.DeletionTimestamp == nil) ||
		controller.IsPodReady(oldPod) != controller.IsPodReady(newPod) ||
		!slices.Equal(podIPs(oldPod), podIPs(newPod))
	return endpointChanged, membershipChanged
}

// servicesToUpdate returns the Services to resync after a pod changed from
// oldPod to newPod: when only its labels changed, those it joined or left;
// when its endpoint changed, every Service selecting it before or after.
func servicesToUpdate(services informer.NamespaceLister[*api.Service], oldPod, newPod *api.Pod) (map[string]bool, error) {
	if oldPod.ResourceVersion == newPod.ResourceVersion {
		return nil, nil // a resync: nothing happened
	}
	endpointChanged, membershipChanged := podChanges(oldPod, newPod)
	if !endpointChanged && !membershipChanged {
		return nil, nil
	}
	current, err := servicesForPod(services, newPod)
	if err != nil || !membershipChanged {
		return current, err
	}
	previous, err := servicesForPod(services, oldPod)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for key := range current {
		if endpointChanged || !previous[key] {
			out[key] = true
		}
	}
	for key := range previous {
		if endpointChanged || !current[key] {
			out[key] = true
		}
	}
	return out, nil
}
