package dns

import (
	"net/netip"
	"strings"

	"kplane/pkg/api"
)

// serviceView is everything DNS answers about one Service, computed once
// from the Service and its EndpointSlices whenever either changes, and
// never modified afterwards: a query that fetched it reads it without a
// lock while the Table moves on to a newer view.
type serviceView struct {
	namespace, name string
	// exists is false while only EndpointSlices of the Service are known
	// (they may arrive before it): the name does not resolve yet.
	exists bool
	// headless Services (clusterIP None) answer with their endpoints'
	// addresses instead of a cluster IP.
	headless bool
	// external is set for a Service of type ExternalName; externalName
	// is then the fully qualified name its CNAME points to ("" if unset).
	external     bool
	externalName string
	// clusterIPs are the Service's virtual IPs, one per IP family.
	clusterIPs []netip.Addr
	// ports are the Service's own ports, for SRV on a ClusterIP Service.
	ports []portView
	// endpoints are the ready backends, from every slice of the Service.
	endpoints []endpointView
}

// portView is one port by name, protocol and number. A slice that lists
// no ports gives its endpoints a single port with number -1, as CoreDNS
// does: the endpoint still has an address, but no SRV record.
type portView struct {
	name, protocol string
	port           int32
}

// endpointView is one address of a ready endpoint.
type endpointView struct {
	ip netip.Addr
	// hostname is the endpoint's DNS label under the Service: its
	// spec.hostname when the pod set one and named the Service as its
	// subdomain (a StatefulSet's nginx-ss-0), else its IP with dashes
	// (10-244-1-5), as CoreDNS's endpointHostname gives it.
	hostname string
	// ports are the ports of the endpoint's slice.
	ports []portView
}

// buildView computes the view of the Service svc (nil if only its slices
// are known) with its slices. An endpoint counts when it is ready (a
// missing condition means ready, as the EndpointSlice API says) or when
// the Service publishes not-ready addresses: the endpointslice controller
// already marks those ready, and DNS honours the Service's wish for slices
// written by other hands too. Slices of addressType FQDN hold names, not
// addresses, and are skipped, as CoreDNS skips them.
func buildView(namespace, name string, svc *api.Service, slices []*api.EndpointSlice) *serviceView {
	v := &serviceView{namespace: namespace, name: name, exists: svc != nil}
	publishNotReady := false
	if svc != nil {
		publishNotReady = svc.Spec.PublishNotReadyAddresses
		switch {
		case svc.Spec.Type == api.ServiceTypeExternalName:
			v.external = true
			if svc.Spec.ExternalName != "" {
				v.externalName = strings.ToLower(strings.TrimSuffix(svc.Spec.ExternalName, ".")) + "."
			}
		case svc.Spec.ClusterIP == api.ClusterIPNone:
			v.headless = true
		default:
			v.clusterIPs = clusterIPsOf(svc)
		}
		for _, p := range svc.Spec.Ports {
			v.ports = append(v.ports, portView{name: p.Name, protocol: protocolOrTCP(p.Protocol), port: p.Port})
		}
	}
	for _, slice := range slices {
		if slice.AddressType != api.AddressTypeIPv4 && slice.AddressType != api.AddressTypeIPv6 {
			continue
		}
		ports := slicePorts(slice)
		for _, e := range slice.Endpoints {
			if !publishNotReady && e.Conditions.Ready != nil && !*e.Conditions.Ready {
				continue
			}
			for _, address := range e.Addresses {
				ip, err := netip.ParseAddr(address)
				if err != nil {
					continue
				}
				ip = ip.Unmap()
				hostname := dashedIP(ip)
				if e.Hostname != nil && *e.Hostname != "" {
					hostname = strings.ToLower(*e.Hostname)
				}
				v.endpoints = append(v.endpoints, endpointView{ip: ip, hostname: hostname, ports: ports})
			}
		}
	}
	return v
}

// clusterIPsOf returns the Service's cluster IPs: spec.clusterIPs, or
// spec.clusterIP for an object written before dual stack.
func clusterIPsOf(svc *api.Service) []netip.Addr {
	raw := svc.Spec.ClusterIPs
	if len(raw) == 0 && svc.Spec.ClusterIP != "" {
		raw = []string{svc.Spec.ClusterIP}
	}
	var ips []netip.Addr
	for _, s := range raw {
		if ip, err := netip.ParseAddr(s); err == nil {
			ips = append(ips, ip.Unmap())
		}
	}
	return ips
}

// slicePorts returns the ports of a slice, or the single port -1 when it
// lists none.
func slicePorts(slice *api.EndpointSlice) []portView {
	if len(slice.Ports) == 0 {
		return []portView{{port: -1}}
	}
	ports := make([]portView, 0, len(slice.Ports))
	for _, p := range slice.Ports {
		pv := portView{port: -1, protocol: string(api.ProtocolTCP)}
		if p.Name != nil {
			pv.name = *p.Name
		}
		if p.Protocol != nil {
			pv.protocol = string(*p.Protocol)
		}
		if p.Port != nil {
			pv.port = *p.Port
		}
		ports = append(ports, pv)
	}
	return ports
}

// protocolOrTCP is a Service port's protocol, TCP when unset.
func protocolOrTCP(p api.Protocol) string {
	if p == "" {
		return string(api.ProtocolTCP)
	}
	return string(p)
}

// dashedIP is ip as one DNS label: 10.244.1.5 is 10-244-1-5 and fd00::5
// is fd00--5, the form of an endpoint without a hostname and of a pod's
// name under pod.zone.
func dashedIP(ip netip.Addr) string {
	if ip.Is4() {
		return strings.ReplaceAll(ip.String(), ".", "-")
	}
	return strings.ReplaceAll(ip.String(), ":", "-")
}

// fqdn is the Service's name in zone: web.default.svc.cluster.local.
func (v *serviceView) fqdn(zone string) string {
	return v.name + "." + v.namespace + "." + kindService + "." + zone
}
