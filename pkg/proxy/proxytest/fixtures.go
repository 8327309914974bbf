// Package proxytest builds the Services and EndpointSlices the proxy
// modes' tests share, among them the cluster of upstream's
// TestOverallIPTablesRules (pkg/proxy/iptables/proxier_test.go), whose
// expected chain names kplane's must equal.
package proxytest

import (
	"kplane/pkg/api"
	"kplane/pkg/proxy"
)

// NodeName is the node the fixtures' rules are computed for.
const NodeName = "test-node"

// ClusterCIDR is the pod range of upstream's tests.
const ClusterCIDR = "10.0.0.0/8"

// Service returns a ClusterIP Service ns/name at clusterIP with one TCP
// port named portName, changed by each tweak.
func Service(ns, name, clusterIP, portName string, port int32, tweaks ...func(*api.Service)) *api.Service {
	svc := &api.Service{
		ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name},
		Spec: api.ServiceSpec{
			Type: api.ServiceTypeClusterIP, ClusterIP: clusterIP,
			Ports: []api.ServicePort{{Name: portName, Port: port, Protocol: api.ProtocolTCP}},
		},
	}
	for _, t := range tweaks {
		t(svc)
	}
	return svc
}

// Backend is one endpoint of a Slice.
type Backend struct {
	IP string
	// Node is the endpoint's nodeName ("" leaves it unset).
	Node string
	// Pod is the targetRef's pod name ("" leaves it unset).
	Pod string
	// NotReady marks the endpoint unready (and not serving);
	// Terminating marks it terminating but still serving.
	NotReady, Terminating bool
}

// Slice returns an IPv4 EndpointSlice of Service ns/svc with one TCP port.
func Slice(ns, svc, portName string, port int32, backends ...Backend) *api.EndpointSlice {
	s := &api.EndpointSlice{
		ObjectMeta:  api.ObjectMeta{Namespace: ns, Name: svc + "-abcde", Labels: map[string]string{api.LabelServiceName: svc}},
		AddressType: api.AddressTypeIPv4,
		Ports:       []api.EndpointSlicePort{{Name: new(portName), Port: new(port), Protocol: new(api.ProtocolTCP)}},
	}
	for _, b := range backends {
		e := api.Endpoint{Addresses: []string{b.IP}}
		switch {
		case b.Terminating:
			e.Conditions = api.EndpointConditions{Ready: new(false), Serving: new(true), Terminating: new(true)}
		case b.NotReady:
			e.Conditions = api.EndpointConditions{Ready: new(false), Serving: new(false), Terminating: new(false)}
		default:
			e.Conditions = api.EndpointConditions{Ready: new(true), Serving: new(true), Terminating: new(false)}
		}
		if b.Node != "" {
			e.NodeName = new(b.Node)
		}
		if b.Pod != "" {
			e.TargetRef = &api.ObjectReference{Kind: "Pod", Namespace: ns, Name: b.Pod}
		}
		s.Endpoints = append(s.Endpoints, e)
	}
	return s
}

// State builds the proxy State of NodeName for services and slices.
func State(services []*api.Service, slices ...*api.EndpointSlice) *proxy.State {
	return proxy.Build(proxy.Node{Name: NodeName, ClusterCIDR: ClusterCIDR, ServiceCIDR: "172.30.0.0/16", IPs: []string{"192.168.0.2"}}, services, slices)
}

// Upstream is the cluster of upstream's TestOverallIPTablesRules: a
// ClusterIP Service (ns1), a LoadBalancer with Local policy (ns2), a
// NodePort (ns3), a NodePort with an external IP (ns4), a LoadBalancer
// with source ranges and ClientIP affinity (ns5) and a Service without
// endpoints (ns6).
func Upstream() *proxy.State {
	services := []*api.Service{
		Service("ns1", "svc1", "172.30.0.41", "p80", 80),
		Service("ns2", "svc2", "172.30.0.42", "p80", 80, func(s *api.Service) {
			s.Spec.Type = api.ServiceTypeLoadBalancer
			s.Spec.ExternalTrafficPolicy = api.ServiceExternalTrafficPolicyLocal
			s.Spec.Ports[0].NodePort = 3001
			s.Status.LoadBalancer.Ingress = []api.LoadBalancerIngress{{IP: "1.2.3.4"}}
			s.Spec.ExternalIPs = []string{"192.168.99.22"}
			s.Spec.HealthCheckNodePort = 30000
		}),
		Service("ns3", "svc3", "172.30.0.43", "p80", 80, func(s *api.Service) {
			s.Spec.Type = api.ServiceTypeNodePort
			s.Spec.Ports[0].NodePort = 3003
		}),
		Service("ns4", "svc4", "172.30.0.44", "p80", 80, func(s *api.Service) {
			s.Spec.Type = api.ServiceTypeNodePort
			s.Spec.ExternalIPs = []string{"192.168.99.33"}
		}),
		Service("ns5", "svc5", "172.30.0.45", "p80", 80, func(s *api.Service) {
			s.Spec.Type = api.ServiceTypeLoadBalancer
			s.Spec.ExternalTrafficPolicy = api.ServiceExternalTrafficPolicyCluster
			s.Spec.Ports[0].NodePort = 3002
			s.Status.LoadBalancer.Ingress = []api.LoadBalancerIngress{{IP: "5.6.7.8"}}
			s.Spec.HealthCheckNodePort = 30000
			s.Spec.LoadBalancerSourceRanges = []string{" 203.0.113.0/25"}
			s.Spec.SessionAffinity = api.ServiceAffinityClientIP
			s.Spec.SessionAffinityConfig = &api.SessionAffinityConfig{ClientIP: &api.ClientIPConfig{TimeoutSeconds: new(int32(10800))}}
		}),
		Service("ns6", "svc6", "172.30.0.46", "p80", 80),
	}
	return State(services,
		Slice("ns1", "svc1", "p80", 80, Backend{IP: "10.180.0.1"}),
		Slice("ns2", "svc2", "p80", 80, Backend{IP: "10.180.0.2"}),
		Slice("ns3", "svc3", "p80", 80, Backend{IP: "10.180.0.3"}),
		Slice("ns4", "svc4", "p80", 80, Backend{IP: "10.180.0.4"}, Backend{IP: "10.180.0.5", Node: NodeName}),
		Slice("ns5", "svc5", "p80", 80, Backend{IP: "10.180.0.3"}),
	)
}

// ThreeEndpoints is a ClusterIP Service default/web:http at 10.96.0.20:80
// over three ready pods and one unready one, on nodes node1 and node2.
func ThreeEndpoints() *proxy.State {
	return proxy.Build(proxy.Node{Name: "node1", ClusterCIDR: "10.244.0.0/16", ServiceCIDR: "10.96.0.0/12", IPs: []string{"127.0.0.1"}},
		[]*api.Service{Service("default", "web", "10.96.0.20", "http", 80)},
		[]*api.EndpointSlice{Slice("default", "web", "http", 8080,
			Backend{IP: "10.244.1.2", Node: "node1", Pod: "web-a"},
			Backend{IP: "10.244.1.3", Node: "node1", Pod: "web-b"},
			Backend{IP: "10.244.2.2", Node: "node2", Pod: "web-c"},
			Backend{IP: "10.244.2.3", Node: "node2", Pod: "web-d", NotReady: true},
		)})
}
