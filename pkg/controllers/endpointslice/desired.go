package endpointslice

// This file computes the desired state of one Service: its endpoints, one
// per pod with an address of the slice's family, grouped by the list of
// ports they offer.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// endpointGroup is the endpoints that offer the same ports and so may
// share slices. Usually a Service has one group; pods that name their
// target ports differently (or lack one) form others.
type endpointGroup struct {
	ports     []api.EndpointSlicePort
	endpoints []api.Endpoint // ordered by pod name, the order new slices fill in
}

// nodeGetter looks a Node up by name; it is the controller's node lister.
type nodeGetter func(name string) (*api.Node, error)

// desiredGroups returns the endpoints svc should have in slices of
// addressType, keyed by portsKey. A pod whose Node is not (yet) in the
// cache is left out and reported in the error, so that the sync is
// retried while the other endpoints are still written — unless the
// Service publishes not-ready addresses, which asks for every pod to be
// listed, node or not (upstream's reconcileByAddressType does the same).
func desiredGroups(svc *api.Service, pods []*api.Pod, addressType api.AddressType, nodeOf nodeGetter) (map[string]*endpointGroup, error) {
	groups := map[string]*endpointGroup{}
	var errs []error
	for _, pod := range pods {
		if !shouldPodBeInSlices(pod) {
			continue
		}
		var node *api.Node
		if pod.Spec.NodeName != "" {
			n, err := nodeOf(pod.Spec.NodeName)
			switch {
			case err == nil:
				node = n
			case !apierrors.IsNotFound(err):
				return nil, fmt.Errorf("get node %s of pod %s: %w", pod.Spec.NodeName, pod.Name, err)
			case !svc.Spec.PublishNotReadyAddresses:
				errs = append(errs, fmt.Errorf("skipped pod %s/%s: its node %s is not found", pod.Namespace, pod.Name, pod.Spec.NodeName))
				continue
			}
		}
		endpoint := podToEndpoint(pod, node, svc, addressType)
		if len(endpoint.Addresses) == 0 {
			continue // no IP of this family
		}
		ports := endpointPorts(svc, pod)
		key := portsKey(ports)
		group, ok := groups[key]
		if !ok {
			group = &endpointGroup{ports: ports}
			groups[key] = group
		}
		group.endpoints = append(group.endpoints, endpoint)
	}
	for _, group := range groups {
		slices.SortFunc(group.endpoints, func(a, b api.Endpoint) int {
			return strings.Compare(a.TargetRef.Name, b.TargetRef.Name)
		})
	}
	return groups, errors.Join(errs...)
}
