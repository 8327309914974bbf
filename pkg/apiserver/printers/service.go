package printers

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/api"
)

// This file prints Services and their Endpoints.

var serviceColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Type", "ClusterIP, NodePort, LoadBalancer or ExternalName."),
	text("Cluster-IP", "The virtual IP the service is reached at inside the cluster; None for a headless service."),
	text("External-IP", "Addresses the service is reached at from outside the cluster."),
	text("Port(s)", "The service's ports: port[:nodePort]/protocol."),
	ageColumn,
	wide(text("Selector", "The labels of the pods the service sends traffic to.")),
}

// serviceCells is upstream's printService.
func serviceCells(svc *api.Service, now time.Time) []any {
	return []any{
		svc.Name,
		string(svc.Spec.Type),
		orNone(clusterIP(svc)),
		serviceExternalIP(svc),
		orNone(servicePorts(svc.Spec.Ports)),
		age(svc.CreationTimestamp, now),
		formatLabels(svc.Spec.Selector),
	}
}

// clusterIP returns the service's first cluster IP ("None" for a headless
// service). Upstream reads spec.clusterIPs, which its apiserver always fills
// from spec.clusterIP; kplane falls back to clusterIP in case only that is set.
func clusterIP(svc *api.Service) string {
	if len(svc.Spec.ClusterIPs) > 0 {
		return svc.Spec.ClusterIPs[0]
	}
	return svc.Spec.ClusterIP
}

// serviceExternalIP is the EXTERNAL-IP cell: the external IPs for ClusterIP
// and NodePort services, the load balancer's addresses (or "<pending>" until
// the cloud provides one) for LoadBalancer services, and the DNS name an
// ExternalName service points at.
func serviceExternalIP(svc *api.Service) string {
	switch svc.Spec.Type {
	case api.ServiceTypeClusterIP, api.ServiceTypeNodePort:
		return orNone(strings.Join(svc.Spec.ExternalIPs, ","))
	case api.ServiceTypeLoadBalancer:
		addresses := loadBalancerAddresses(svc.Status.LoadBalancer)
		addresses = append(addresses, svc.Spec.ExternalIPs...)
		if len(addresses) == 0 {
			return "<pending>"
		}
		return strings.Join(addresses, ",")
	case api.ServiceTypeExternalName:
		return svc.Spec.ExternalName
	}
	return "<unknown>"
}

// loadBalancerAddresses returns the load balancer's ingress IPs (or host
// names where there is no IP), sorted and without duplicates. The server
// prints the whole list; only kubectl's own client-side printer would clip it.
func loadBalancerAddresses(status api.LoadBalancerStatus) []string {
	var addresses []string
	for _, ingress := range status.Ingress {
		switch {
		case ingress.IP != "":
			addresses = append(addresses, ingress.IP)
		case ingress.Hostname != "":
			addresses = append(addresses, ingress.Hostname)
		}
	}
	slices.Sort(addresses)
	return slices.Compact(addresses)
}

// servicePorts renders ports as "80/TCP", or "8080:31555/TCP" when a node
// port is allocated, joined by ",".
func servicePorts(ports []api.ServicePort) string {
	pieces := make([]string, len(ports))
	for i, p := range ports {
		if p.NodePort > 0 {
			pieces[i] = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
		} else {
			pieces[i] = fmt.Sprintf("%d/%s", p.Port, p.Protocol)
		}
	}
	return strings.Join(pieces, ",")
}

var endpointsColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Endpoints", "The first few ready addresses, as ip:port, of the service's pods."),
	ageColumn,
}

func endpointsCells(ep *api.Endpoints, now time.Time) []any {
	return []any{ep.Name, formatEndpoints(ep), age(ep.CreationTimestamp, now)}
}

// maxEndpoints is how many addresses the ENDPOINTS column lists before it
// says "+ N more...".
const maxEndpoints = 3

// formatEndpoints is upstream's formatEndpoints: every ready address paired
// with every port of its subset, port by port, e.g. "10.244.1.5:80,
// 10.244.2.3:80 + 1 more...". Subsets without ports (headless services with
// no ports) list bare IPs. Not-ready addresses are not shown. An object with
// no subsets at all prints "<none>".
func formatEndpoints(ep *api.Endpoints) string {
	if len(ep.Subsets) == 0 {
		return none
	}
	var shown []string
	total := 0
	add := func(address string) {
		total++
		if len(shown) < maxEndpoints {
			shown = append(shown, address)
		}
	}
	for _, subset := range ep.Subsets {
		if len(subset.Ports) == 0 {
			for _, a := range subset.Addresses {
				add(a.IP)
			}
			continue
		}
		for _, port := range subset.Ports {
			for _, a := range subset.Addresses {
				add(net.JoinHostPort(a.IP, strconv.Itoa(int(port.Port))))
			}
		}
	}
	return joinWithMore(shown, total, maxEndpoints, ",")
}
