package validation

import (
	"fmt"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// endpointSliceDoc is a slice as the endpointslice controller writes it
// for a Service "web" with one named port and two pods.
const endpointSliceDoc = `{apiVersion: discovery.k8s.io/v1, kind: EndpointSlice,
  metadata: {name: web-x7k2p, labels: {kubernetes.io/service-name: web}},
  addressType: IPv4,
  endpoints: [
    {addresses: [10.244.1.5], conditions: {ready: true, serving: true, terminating: false}, nodeName: node1,
     targetRef: {kind: Pod, namespace: default, name: web-1, uid: u1}},
    {addresses: [10.244.2.7], conditions: {ready: false, serving: false, terminating: false}, hostname: web-2}],
  ports: [{name: http, port: 8080, protocol: TCP, appProtocol: http}]}`

func TestValidateEndpointSlice(t *testing.T) {
	slice := func(o api.Object) *api.EndpointSlice { return o.(*api.EndpointSlice) }
	runKindCases(t, []kindCase{
		{"controller-written slice", endpointSliceDoc, nil, nil},
		{"no address type", endpointSliceDoc, func(o api.Object) { slice(o).AddressType = "" },
			[]fieldErr{{required, "addressType"}}},
		{"unknown address type", endpointSliceDoc, func(o api.Object) { slice(o).AddressType = "IP" },
			[]fieldErr{{notSupported, "addressType"}}},
		{"endpoint without addresses", endpointSliceDoc, func(o api.Object) { slice(o).Endpoints[1].Addresses = nil },
			[]fieldErr{{required, "endpoints[1].addresses"}}},
		{"not an IPv4 address", endpointSliceDoc, func(o api.Object) { slice(o).Endpoints[0].Addresses = []string{"10.244.1"} },
			[]fieldErr{{invalid, "endpoints[0].addresses[0]"}}},
		{"IPv6 address in an IPv4 slice", endpointSliceDoc, func(o api.Object) { slice(o).Endpoints[0].Addresses = []string{"fd00::5"} },
			[]fieldErr{{invalid, "endpoints[0].addresses[0]"}}},
		{"link-local address", endpointSliceDoc, func(o api.Object) { slice(o).Endpoints[0].Addresses = []string{"169.254.1.1"} },
			[]fieldErr{{invalid, "endpoints[0].addresses[0]"}}},
		// Upstream refuses loopback; kplane's apiserver lives there.
		{"loopback address", endpointSliceDoc, func(o api.Object) { slice(o).Endpoints[0].Addresses = []string{"127.0.0.1"} }, nil},
		{"IPv6 slice", endpointSliceDoc, func(o api.Object) {
			slice(o).AddressType = api.AddressTypeIPv6
			slice(o).Endpoints[0].Addresses = []string{"fd00:10:244::5"}
			slice(o).Endpoints[1].Addresses = []string{"fd00:10:244::7"}
		}, nil},
		{"FQDN slice", endpointSliceDoc, func(o api.Object) {
			slice(o).AddressType = api.AddressTypeFQDN
			slice(o).Endpoints[0].Addresses = []string{"db.example.com"}
			slice(o).Endpoints[1].Addresses = []string{"db"}
		}, []fieldErr{{invalid, "endpoints[1].addresses[0]"}}},
		{"bad hostname", endpointSliceDoc, func(o api.Object) { h := "Web_2"; slice(o).Endpoints[1].Hostname = &h },
			[]fieldErr{{invalid, "endpoints[1].hostname"}}},
		{"duplicate port name", endpointSliceDoc, func(o api.Object) {
			s := slice(o)
			s.Ports = append(s.Ports, api.DeepCopyValue(s.Ports[0]))
		}, []fieldErr{{duplicate, "ports[1].name"}}},
		{"unsupported protocol", endpointSliceDoc, func(o api.Object) { p := api.Protocol("ICMP"); slice(o).Ports[0].Protocol = &p },
			[]fieldErr{{notSupported, "ports[0].protocol"}}},
		{"bad appProtocol", endpointSliceDoc, func(o api.Object) { a := "not a name"; slice(o).Ports[0].AppProtocol = &a },
			[]fieldErr{{invalid, "ports[0].appProtocol"}}},
		{"1000 endpoints", endpointSliceDoc, func(o api.Object) { slice(o).Endpoints = manyEndpoints(1000) }, nil},
		{"1001 endpoints", endpointSliceDoc, func(o api.Object) { slice(o).Endpoints = manyEndpoints(1001) },
			[]fieldErr{{errors.FieldValueTooMany, "endpoints"}}},
		{"101 ports", endpointSliceDoc, func(o api.Object) { slice(o).Ports = manyPorts(101) },
			[]fieldErr{{errors.FieldValueTooMany, "ports"}}},
	})
}

// The messages read as upstream's.
func TestValidateEndpointSliceMessages(t *testing.T) {
	s := decode[*api.EndpointSlice](t, endpointSliceDoc)
	s.Endpoints[0].Addresses = []string{"0.0.0.0"}
	s.Endpoints[1].Addresses = []string{"169.254.169.254"}
	s.Endpoints = append(s.Endpoints, api.Endpoint{Addresses: []string{"10.244.1"}})
	expectMessages(t, ValidateCreate(s),
		`endpoints[0].addresses[0]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)`,
		`endpoints[1].addresses[0]: Invalid value: "169.254.169.254": may not be in the link-local range (169.254.0.0/16, fe80::/10)`,
		`endpoints[2].addresses[0]: Invalid value: "10.244.1": must be a valid IPv4 address`)

	s.Endpoints = manyEndpoints(1001)
	expectMessages(t, ValidateCreate(s), `endpoints: Too many: 1001: must have at most 1000 items`)
}

// addressType is fixed once the slice exists; its endpoints may change.
func TestValidateEndpointSliceUpdate(t *testing.T) {
	old := asStored(decode[*api.EndpointSlice](t, endpointSliceDoc))

	moved := asStored(old)
	moved.Endpoints = moved.Endpoints[:1]
	expectFields(t, ValidateUpdate(moved, old))

	retyped := asStored(old)
	retyped.AddressType = api.AddressTypeFQDN
	retyped.Endpoints = []api.Endpoint{{Addresses: []string{"web.example.com"}}}
	expectFields(t, ValidateUpdate(retyped, old), fieldErr{invalid, "addressType"})
}

func manyEndpoints(n int) []api.Endpoint {
	endpoints := make([]api.Endpoint, n)
	for i := range endpoints {
		endpoints[i].Addresses = []string{fmt.Sprintf("10.244.%d.%d", i/250, i%250+1)}
	}
	return endpoints
}

func manyPorts(n int) []api.EndpointSlicePort {
	ports := make([]api.EndpointSlicePort, n)
	for i := range ports {
		name, protocol, port := fmt.Sprintf("p%d", i), api.ProtocolTCP, int32(8000+i)
		ports[i] = api.EndpointSlicePort{Name: &name, Protocol: &protocol, Port: &port}
	}
	return ports
}
