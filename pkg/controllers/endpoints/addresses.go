package endpoints

// This file decides, for one Service and one pod, whether the pod is a
// backend, under which address and on which ports. It reproduces upstream's
// helpers in k8s.io/endpointslice/util (ShouldPodBeInEndpoints,
// ShouldSetHostname), pkg/api/v1/pod (FindPort) and the endpoints
// controller's podToEndpointAddressForService.

import (
	"net/netip"

	"kplane/pkg/api"
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

// podIPs returns the pod's IPs: status.podIPs, or status.podIP when only
// that is set (a kubelet reports both; the single one is the first).
func podIPs(pod *api.Pod) []string {
	if len(pod.Status.PodIPs) > 0 {
		ips := make([]string, 0, len(pod.Status.PodIPs))
		for _, ip := range pod.Status.PodIPs {
			ips = append(ips, ip.IP)
		}
		return ips
	}
	if pod.Status.PodIP != "" {
		return []string{pod.Status.PodIP}
	}
	return nil
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
	for _, ip := range podIPs(pod) {
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

// protocolOf treats an unset protocol as TCP, the default on both sides.
func protocolOf(p api.Protocol) api.Protocol {
	if p == "" {
		return api.ProtocolTCP
	}
	return p
}

// findPort resolves a Service port's targetPort on one pod. A number is
// used as is (unset means the Service port itself, which is what
// defaulting fills in). A name is looked up among the pod's container
// ports with the same protocol — the app containers', then those of
// sidecars (init containers with restartPolicy Always), as upstream's
// FindPort — and ok is false when the pod has no such port: the pod is
// then not a backend for this Service port, while it may be for others.
func findPort(pod *api.Pod, svcPort *api.ServicePort) (port int32, ok bool) {
	if svcPort.TargetPort.Type != api.IntOrStringString {
		if svcPort.TargetPort.IntVal == 0 {
			return svcPort.Port, true
		}
		return svcPort.TargetPort.IntVal, true
	}
	name, protocol := svcPort.TargetPort.StrVal, protocolOf(svcPort.Protocol)
	lookup := func(containers []api.Container, sidecarsOnly bool) (int32, bool) {
		for _, c := range containers {
			if sidecarsOnly && (c.RestartPolicy == nil || *c.RestartPolicy != api.ContainerRestartPolicyAlways) {
				continue
			}
			for _, p := range c.Ports {
				if p.Name == name && protocolOf(p.Protocol) == protocol {
					return p.ContainerPort, true
				}
			}
		}
		return 0, false
	}
	if port, ok := lookup(pod.Spec.Containers, false); ok {
		return port, true
	}
	return lookup(pod.Spec.InitContainers, true)
}
