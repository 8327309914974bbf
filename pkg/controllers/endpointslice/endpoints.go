package endpointslice

// This file turns one pod into the endpoint a Service lists for it: which
// pods count, their addresses of the slice's family, their conditions, and
// the ports they offer. It reproduces upstream's podToEndpoint,
// getEndpointPorts and getEndpointAddresses (k8s.io/endpointslice) and the
// helpers they use (ShouldPodBeInEndpoints, ShouldSetHostname); FindPort
// is controllerutil.FindPort, shared with the endpoints controller.

import (
	"net/netip"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
)

// zoneLabel is the node label an endpoint's zone is copied from.
const zoneLabel = "topology.kubernetes.io/zone"

// shouldPodBeInSlices reports whether pod is a backend at all: it has not
// finished (Succeeded or Failed) and it has an IP. Unlike the Endpoints
// controller, the slice controller keeps terminating pods, marked
// terminating, so that consumers can drain them gracefully.
func shouldPodBeInSlices(pod *api.Pod) bool {
	if pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed {
		return false
	}
	return pod.Status.PodIP != "" || len(pod.Status.PodIPs) > 0
}

// addressesOf returns the pod's IPs of the slice's address type, in
// canonical form. A single-stack pod has none of the other family.
func addressesOf(pod *api.Pod, addressType api.AddressType) []string {
	var addresses []string
	for _, ip := range controllerutil.PodIPs(pod) {
		addr, err := netip.ParseAddr(ip)
		if err != nil {
			continue
		}
		addr = addr.Unmap()
		if (addressType == api.AddressTypeIPv6) == addr.Is6() {
			addresses = append(addresses, addr.String())
		}
	}
	return addresses
}

// podToEndpoint is the endpoint a pod becomes in a slice of addressType.
// Its conditions are upstream's: serving is the pod's readiness,
// terminating says it is being deleted, and ready is serving and not
// terminating — unless the Service publishes not-ready addresses, which
// makes every endpoint ready. node is the pod's Node, for the zone; nil
// leaves the zone unset.
func podToEndpoint(pod *api.Pod, node *api.Node, svc *api.Service, addressType api.AddressType) api.Endpoint {
	serving := controllerutil.IsPodReady(pod)
	terminating := pod.DeletionTimestamp != nil
	ready := svc.Spec.PublishNotReadyAddresses || (serving && !terminating)
	endpoint := api.Endpoint{
		Addresses:  addressesOf(pod, addressType),
		Conditions: api.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
		TargetRef:  &api.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
	}
	if pod.Spec.NodeName != "" {
		nodeName := pod.Spec.NodeName
		endpoint.NodeName = &nodeName
	}
	if node != nil && node.Labels[zoneLabel] != "" {
		zone := node.Labels[zoneLabel]
		endpoint.Zone = &zone
	}
	if shouldSetHostname(pod, svc) {
		hostname := pod.Spec.Hostname
		endpoint.Hostname = &hostname
	}
	return endpoint
}

// shouldSetHostname reports whether the pod's endpoint carries its
// hostname: the pod names one and its subdomain is this Service, so that
// DNS can answer <hostname>.<service>.<namespace>.svc (a StatefulSet's
// web-0.nginx.default.svc).
func shouldSetHostname(pod *api.Pod, svc *api.Service) bool {
	return pod.Spec.Hostname != "" && pod.Spec.Subdomain == svc.Name && pod.Namespace == svc.Namespace
}

// endpointPorts resolves the Service's ports on one pod, in the Service's
// order. A port whose named targetPort the pod does not have is left out:
// pods of one Service can offer different ports, which is why the
// controller groups endpoints into slices by their port list. A headless
// Service without ports gets no ports.
func endpointPorts(svc *api.Service, pod *api.Pod) []api.EndpointSlicePort {
	var ports []api.EndpointSlicePort
	for i := range svc.Spec.Ports {
		svcPort := &svc.Spec.Ports[i]
		number, ok := controllerutil.FindPort(pod, svcPort)
		if !ok {
			continue
		}
		name, protocol := svcPort.Name, controllerutil.ProtocolOrTCP(svcPort.Protocol)
		ports = append(ports, api.EndpointSlicePort{Name: &name, Port: &number, Protocol: &protocol,
			AppProtocol: api.DeepCopyValue(svcPort.AppProtocol)})
	}
	return ports
}

// addressTypesOf returns the address types the Service's slices have: one
// per IP family in spec.ipFamilies (which the apiserver always fills),
// else the family of its cluster IP, else — a headless Service an old
// apiserver left without families — both.
func addressTypesOf(svc *api.Service) []api.AddressType {
	var types []api.AddressType
	for _, family := range svc.Spec.IPFamilies {
		switch family {
		case api.IPv4Protocol:
			types = append(types, api.AddressTypeIPv4)
		case api.IPv6Protocol:
			types = append(types, api.AddressTypeIPv6)
		}
	}
	if len(types) > 0 {
		return types
	}
	if ip, err := netip.ParseAddr(svc.Spec.ClusterIP); err == nil {
		if ip.Unmap().Is6() {
			return []api.AddressType{api.AddressTypeIPv6}
		}
		return []api.AddressType{api.AddressTypeIPv4}
	}
	return []api.AddressType{api.AddressTypeIPv4, api.AddressTypeIPv6}
}
