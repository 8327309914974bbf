package proxy

import (
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"

	"kplane/pkg/api"
)

// ServicePortName names one port of one Service, as upstream's
// proxy.ServicePortName does: its String, "ns/name:port" ("ns/name" for an
// unnamed port), is what chain comments show and what chain names hash.
type ServicePortName struct {
	Namespace, Name, Port string
	Protocol              api.Protocol
}

// String is "namespace/name:port", or "namespace/name" when the port has no
// name.
func (n ServicePortName) String() string {
	if n.Port == "" {
		return n.Namespace + "/" + n.Name
	}
	return n.Namespace + "/" + n.Name + ":" + n.Port
}

// Endpoint is one backend of a Service port, read from an EndpointSlice.
type Endpoint struct {
	// IP and Port are where traffic is DNATed to.
	IP   string
	Port int32
	// Ready, Serving and Terminating are the slice's conditions with
	// upstream's defaults filled in (an unset ready or serving is true,
	// an unset terminating false).
	Ready, Serving, Terminating bool
	// NodeName is the node the endpoint runs on ("" when unknown: never
	// local).
	NodeName string
	// PodNamespace and PodName come from the endpoint's targetRef.
	PodNamespace, PodName string
}

// String is "ip:port", the endpoint's name in chain comments and hashes.
func (e Endpoint) String() string {
	return e.IP + ":" + strconv.Itoa(int(e.Port))
}

// ServicePort is one port of one Service as a node's kube-proxy sees it:
// where traffic for it arrives and which endpoints it may go to from this
// node.
type ServicePort struct {
	Name      ServicePortName
	ClusterIP string
	Port      int32
	// Protocol is TCP, UDP or SCTP.
	Protocol api.Protocol
	// NodePort is 0 unless the Service is NodePort or LoadBalancer.
	NodePort int32
	// ExternalIPs are spec.externalIPs; LoadBalancerIPs the IPs of
	// status.loadBalancer.ingress (those in VIP mode); both IPv4 only.
	ExternalIPs     []string
	LoadBalancerIPs []string
	// LoadBalancerSourceRanges are the CIDRs allowed to reach the
	// load-balancer IPs (empty: everyone).
	LoadBalancerSourceRanges []string
	// HealthCheckNodePort is set for LoadBalancer Services with
	// externalTrafficPolicy Local.
	HealthCheckNodePort int32
	// ClientIPAffinity is sessionAffinity ClientIP; StickySeconds its
	// timeout (10800 unless sessionAffinityConfig says otherwise).
	ClientIPAffinity bool
	StickySeconds    int
	// InternalPolicyLocal and ExternalPolicyLocal are the Service's
	// traffic policies (external only for externally reachable Services).
	InternalPolicyLocal, ExternalPolicyLocal bool

	// Endpoints are all the port's endpoints, sorted by String.
	Endpoints []Endpoint
	// ClusterEndpoints are those used with the Cluster traffic policy,
	// LocalEndpoints those used with the Local one, and Reachable their
	// union: every endpoint a rule on this node may send traffic to.
	// HasEndpoints is true when the Service has a usable endpoint anywhere
	// in the cluster. See Categorize.
	ClusterEndpoints, LocalEndpoints, Reachable []Endpoint
	HasEndpoints                                bool
}

// L4Protocol is the lower-case protocol name iptables and nftables match on
// ("tcp", "udp", "sctp").
func (p *ServicePort) L4Protocol() string { return strings.ToLower(string(p.Protocol)) }

// ExternallyAccessible reports whether traffic may reach the port from
// outside the cluster: by a NodePort, an external IP or a load balancer.
func (p *ServicePort) ExternallyAccessible() bool {
	return p.NodePort != 0 || len(p.ExternalIPs) > 0 || len(p.LoadBalancerIPs) > 0
}

// UsesClusterEndpoints reports whether some traffic to the port follows
// the Cluster traffic policy.
func (p *ServicePort) UsesClusterEndpoints() bool {
	return !p.InternalPolicyLocal || (p.ExternallyAccessible() && !p.ExternalPolicyLocal)
}

// UsesLocalEndpoints reports whether some traffic to the port follows the
// Local traffic policy.
func (p *ServicePort) UsesLocalEndpoints() bool {
	return p.InternalPolicyLocal || (p.ExternallyAccessible() && p.ExternalPolicyLocal)
}

// Node is what a kube-proxy knows about its own node and cluster.
type Node struct {
	// Name is the node the rules are for (--hostname-override).
	Name string
	// ClusterCIDR is the pods' range (--cluster-cidr): traffic to a
	// ClusterIP from outside it is masqueraded. Empty: no such rule.
	ClusterCIDR string
	// ServiceCIDR is the Services' range (the nftables mode drops traffic
	// to its unallocated addresses); empty: unknown.
	ServiceCIDR string
	// IPs are the node's addresses: where NodePorts listen.
	IPs []string
}

// State is everything one node's kube-proxy programs: every proxied
// Service port, sorted by name and protocol, with its endpoints
// categorized for the node.
type State struct {
	Node
	// Ports are the Service ports.
	Ports []*ServicePort
}

// EndpointCount is the number of endpoints over all ports.
func (s *State) EndpointCount() int {
	n := 0
	for _, p := range s.Ports {
		n += len(p.Endpoints)
	}
	return n
}

// Find returns the port serving ip:port/protocol on its ClusterIP, an
// external IP or a load-balancer IP, or nil.
func (s *State) Find(ip string, port int32, protocol api.Protocol) *ServicePort {
	for _, p := range s.Ports {
		if p.Port != port || p.Protocol != protocol {
			continue
		}
		if p.ClusterIP == ip || slices.Contains(p.ExternalIPs, ip) || slices.Contains(p.LoadBalancerIPs, ip) {
			return p
		}
	}
	return nil
}

// Build computes the State of node from the cluster's Services and
// EndpointSlices, as upstream's service and endpoint change trackers do:
// headless and ExternalName Services are skipped, a slice belongs to the
// Service its kubernetes.io/service-name label names, and an endpoint port
// is matched to a Service port by name and protocol.
func Build(node Node, services []*api.Service, slices []*api.EndpointSlice) *State {
	byService := map[string][]*api.EndpointSlice{}
	for _, s := range slices {
		name := s.Labels[api.LabelServiceName]
		if name == "" || s.AddressType != api.AddressTypeIPv4 {
			continue
		}
		key := s.Namespace + "/" + name
		byService[key] = append(byService[key], s)
	}
	st := &State{Node: node}
	for _, svc := range services {
		if skipService(svc) {
			continue
		}
		for i := range svc.Spec.Ports {
			p := newServicePort(svc, &svc.Spec.Ports[i])
			p.Endpoints = endpointsFor(p.Name, byService[svc.Namespace+"/"+svc.Name])
			Categorize(p, node.Name)
			st.Ports = append(st.Ports, p)
		}
	}
	// Sort by "namespace/name:port", then protocol; the names are built
	// once, not on every comparison.
	names := make(map[*ServicePort]string, len(st.Ports))
	for _, p := range st.Ports {
		names[p] = p.Name.String()
	}
	sort.Slice(st.Ports, func(i, j int) bool {
		a, b := st.Ports[i], st.Ports[j]
		if names[a] != names[b] {
			return names[a] < names[b]
		}
		return a.Name.Protocol < b.Name.Protocol
	})
	return st
}

// skipService reports the Services kube-proxy leaves alone: headless ones
// (no ClusterIP) and ExternalName ones (DNS only), as upstream's
// ShouldSkipService.
func skipService(svc *api.Service) bool {
	ip := svc.Spec.ClusterIP
	return svc.Spec.Type == api.ServiceTypeExternalName || ip == "" || ip == api.ClusterIPNone
}

func newServicePort(svc *api.Service, sp *api.ServicePort) *ServicePort {
	protocol := sp.Protocol
	if protocol == "" {
		protocol = api.ProtocolTCP
	}
	p := &ServicePort{
		Name:          ServicePortName{Namespace: svc.Namespace, Name: svc.Name, Port: sp.Name, Protocol: protocol},
		ClusterIP:     svc.Spec.ClusterIP,
		Port:          sp.Port,
		Protocol:      protocol,
		NodePort:      sp.NodePort,
		StickySeconds: int(api.DefaultClientIPServiceAffinitySeconds),
	}
	for _, ip := range svc.Spec.ExternalIPs {
		if isIPv4(ip) {
			p.ExternalIPs = append(p.ExternalIPs, ip)
		}
	}
	for _, in := range svc.Status.LoadBalancer.Ingress {
		// An ingress in Proxy mode sends traffic to the nodes, not to its
		// IP: upstream programs no rule for it.
		if isIPv4(in.IP) && (in.IPMode == nil || *in.IPMode == "VIP") {
			p.LoadBalancerIPs = append(p.LoadBalancerIPs, in.IP)
		}
	}
	for _, r := range svc.Spec.LoadBalancerSourceRanges {
		// Upstream tolerates stray whitespace here, for old objects.
		if r = strings.TrimSpace(r); r != "" {
			p.LoadBalancerSourceRanges = append(p.LoadBalancerSourceRanges, r)
		}
	}
	if svc.Spec.SessionAffinity == api.ServiceAffinityClientIP {
		p.ClientIPAffinity = true
		if c := svc.Spec.SessionAffinityConfig; c != nil && c.ClientIP != nil && c.ClientIP.TimeoutSeconds != nil {
			p.StickySeconds = int(*c.ClientIP.TimeoutSeconds)
		}
	}
	p.InternalPolicyLocal = svc.Spec.InternalTrafficPolicy != nil && *svc.Spec.InternalTrafficPolicy == api.ServiceInternalTrafficPolicyLocal
	p.ExternalPolicyLocal = p.ExternallyAccessible() && svc.Spec.ExternalTrafficPolicy == api.ServiceExternalTrafficPolicyLocal
	// Only a LoadBalancer with the Local policy is health-checked, so that
	// the load balancer skips nodes without endpoints (NeedsHealthCheck).
	if svc.Spec.Type == api.ServiceTypeLoadBalancer && svc.Spec.ExternalTrafficPolicy == api.ServiceExternalTrafficPolicyLocal {
		p.HealthCheckNodePort = svc.Spec.HealthCheckNodePort
	}
	return p
}

func isIPv4(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is4()
}

// endpointsFor collects the endpoints of port from its Service's slices:
// for each slice port with the same name and protocol, each endpoint's
// first address with that port's number. An address:port listed twice
// (two slices during an update) counts once, the first kept. They are
// sorted by String, as upstream sorts them.
func endpointsFor(port ServicePortName, slices []*api.EndpointSlice) []Endpoint {
	var out []Endpoint
	seen := map[string]bool{}
	for _, s := range slices {
		for _, sp := range s.Ports {
			name, protocol := "", api.ProtocolTCP
			if sp.Name != nil {
				name = *sp.Name
			}
			if sp.Protocol != nil {
				protocol = *sp.Protocol
			}
			if name != port.Port || protocol != port.Protocol || sp.Port == nil {
				continue
			}
			for _, e := range s.Endpoints {
				if len(e.Addresses) == 0 {
					continue
				}
				ep := newEndpoint(&e, *sp.Port)
				if seen[ep.String()] {
					continue
				}
				seen[ep.String()] = true
				out = append(out, ep)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

func newEndpoint(e *api.Endpoint, port int32) Endpoint {
	ep := Endpoint{IP: e.Addresses[0], Port: port, Ready: true}
	c := e.Conditions
	if c.Ready != nil {
		ep.Ready = *c.Ready
	}
	ep.Serving = ep.Ready
	if c.Serving != nil {
		ep.Serving = *c.Serving
	}
	ep.Terminating = c.Terminating != nil && *c.Terminating
	if e.NodeName != nil {
		ep.NodeName = *e.NodeName
	}
	if r := e.TargetRef; r != nil && r.Kind == "Pod" {
		ep.PodNamespace, ep.PodName = r.Namespace, r.Name
	}
	return ep
}
