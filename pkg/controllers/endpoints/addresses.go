package endpoints

// This file decides, for one Service and one pod, whether the pod is a
// backend and under which address. It reproduces upstream's helpers in
// k8s.io/endpointslice/util (ShouldPodBeInEndpoints, ShouldSetHostname)
// and the endpoints controller's podToEndpointAddressForService. Which
// ports the pod offers is controllerutil.FindPort, shared with the
// endpointslice controller.

import (
	"net/netip"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
)

// shouldPodBeInEndpoints reports whether pod can be listed at all: it has
// not finished (Succeeded or Failed), it has an IP, and it is not being
// deleted — unless includeTerminating, which the endpoints controller
// passes as the Service's publishNotReadyAddresses, so that a StatefulSet's
// peers can still find a pod that is shutting down.
func shouldPodBeInEndpoints(pod *api.Pod, includeTerminating bool) bool {
	if pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed {
		return false
	}
	if pod.Status.PodIP == "" && len(pod.Status.PodIPs) == 0 {
		return false
	}
	if !includeTerminating && pod.DeletionTimestamp != nil {
		return false
	}
	return true
}

// shouldSetHostname reports whether the address of pod carries its
// hostname: the pod names a hostname and its subdomain is this Service, so
// that DNS can answer <hostname>.<service>.<namespace>.svc.cluster.local
// (the StatefulSet pattern: web-0.nginx.default.svc.cluster.local).
func shouldSetHostname(pod *api.Pod, svc *api.Service) bool {
	return pod.Spec.Hostname != "" && pod.Spec.Subdomain == svc.Name && pod.Namespace == svc.Namespace
}

// isIPv6 reports whether s is an IPv6 address (an IPv4 one, or garbage, is not).
func isIPv6(s string) bool {
	addr, err := netip.ParseAddr(s)
	return err == nil && addr.Is6() && !addr.Is4In6()
}

// serviceIPFamily is the address family the Service's endpoints use: its
// first spec.ipFamilies entry (the apiserver always fills it), else the
// family of its ClusterIP, else for a headless Service the pod's.
func serviceIPFamily(svc *api.Service, pod *api.Pod) api.IPFamily {
	if len(svc.Spec.IPFamilies) > 0 {
		return svc.Spec.IPFamilies[0]
	}
	ip := svc.Spec.ClusterIP
	if ip == "" || ip == api.ClusterIPNone {
		ip = pod.Status.PodIP
	}
	if isIPv6(ip) {
		return api.IPv6Protocol
	}
	return api.IPv4Protocol
}

// podEndpointAddress is pod's address as the Service lists it: the pod's
// IP of the Service's family, its node, a reference back to the pod and,
// where shouldSetHostname says so, its hostname. ok is false when the pod
// has no IP of that family (a single-stack pod behind a Service of the
// other family), and the pod is then left out.
func podEndpointAddress(svc *api.Service, pod *api.Pod) (addr api.EndpointAddress, ok bool) {
	wantV6 := serviceIPFamily(svc, pod) == api.IPv6Protocol
	for _, ip := range controllerutil.PodIPs(pod) {
		if isIPv6(ip) == wantV6 {
			addr.IP = ip
			break
		}
	}
	if addr.IP == "" {
		return addr, false
	}
	if pod.Spec.NodeName != "" {
		node := pod.Spec.NodeName
		addr.NodeName = &node
	}
	addr.TargetRef = &api.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}
	if shouldSetHostname(pod, svc) {
		addr.Hostname = pod.Spec.Hostname
	}
	return addr, true
}
