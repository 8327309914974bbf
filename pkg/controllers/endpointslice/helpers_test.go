package endpointslice

import (
	"encoding/json"
	"fmt"
	"strings"

	"kplane/pkg/api"
	"kplane/test/framework/controllertest"
)

// testNode is a Node in zone-a.
func testNode(name string) *api.Node {
	return &api.Node{TypeMeta: api.TypeMeta{Kind: "Node", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{zoneLabel: "zone-a"}}}
}

// storedSlice is a slice of controllertest.WebService as the apiserver would hold it:
// named, with a UID and generation 1, holding the given endpoints on the
// http/8080 port.
func storedSlice(name string, endpoints ...api.Endpoint) *api.EndpointSlice {
	s := newSlice(controllertest.WebService(), api.AddressTypeIPv4, []api.EndpointSlicePort{tcp("http", 8080)})
	s.Name, s.GenerateName, s.UID, s.ResourceVersion, s.Generation = name, "", "uid-"+name, "5", 1
	s.Endpoints = endpoints
	return s
}

// endpointOf is the endpoint controllertest.WebPod(name, ip) gets in an IPv4 slice:
// ready and serving on node-1 in zone-a.
func endpointOf(name, ip string) api.Endpoint {
	return podToEndpoint(controllertest.WebPod(name, ip), testNode("node-1"), controllertest.WebService(), api.AddressTypeIPv4)
}

func tcp(name string, port int32) api.EndpointSlicePort {
	protocol := api.ProtocolTCP
	return api.EndpointSlicePort{Name: &name, Port: &port, Protocol: &protocol}
}

// summary prints slices as "name: ip(pod) ip(pod) | ports", one per
// line, to compare a plan or a listing at a glance. Endpoints that are
// not ready are marked "!".
func summary(slices []*api.EndpointSlice) string {
	var lines []string
	for _, s := range slices {
		var eps []string
		for _, e := range s.Endpoints {
			mark := ""
			if e.Conditions.Ready != nil && !*e.Conditions.Ready {
				mark = "!"
			}
			eps = append(eps, fmt.Sprintf("%s%s(%s)", mark, strings.Join(e.Addresses, ","), e.TargetRef.Name))
		}
		var ports []string
		for _, p := range s.Ports {
			ports = append(ports, fmt.Sprintf("%s/%d", deref(p.Name), deref(p.Port)))
		}
		name := s.Name
		if name == "" {
			name = s.GenerateName + "*"
		}
		lines = append(lines, fmt.Sprintf("%s: %s | %s", name, strings.Join(eps, " "), strings.Join(ports, ",")))
	}
	return strings.Join(lines, "\n")
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
