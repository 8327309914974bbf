package endpointslice

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"kplane/pkg/api"
)

// podOpt changes a test pod.
type podOpt func(*api.Pod)

// testPod is a running, ready pod named name with IP ip on node-1, labels
// app=web, and one container "web" exposing http on 8080 (TCP).
func testPod(name, ip string, opts ...podOpt) *api.Pod {
	p := &api.Pod{
		TypeMeta:   api.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name, ResourceVersion: "1", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{
			NodeName: "node-1",
			Containers: []api.Container{{Name: "web", Image: "nginx",
				Ports: []api.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: api.ProtocolTCP}}}},
		},
		Status: api.PodStatus{
			Phase:      api.PodRunning,
			PodIP:      ip,
			PodIPs:     []api.PodIP{{IP: ip}},
			Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}},
		},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func notReady(p *api.Pod) {
	p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse}}
}

func terminating(p *api.Pod) {
	now := api.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	p.DeletionTimestamp = &now
}

func noIP(p *api.Pod) { p.Status.PodIP, p.Status.PodIPs = "", nil }

func phase(ph api.PodPhase) podOpt { return func(p *api.Pod) { p.Status.Phase = ph } }

func onNode(n string) podOpt { return func(p *api.Pod) { p.Spec.NodeName = n } }

func withLabels(l map[string]string) podOpt { return func(p *api.Pod) { p.Labels = l } }

func withPorts(ports ...api.ContainerPort) podOpt {
	return func(p *api.Pod) { p.Spec.Containers[0].Ports = ports }
}

func withHostname(host, subdomain string) podOpt {
	return func(p *api.Pod) { p.Spec.Hostname, p.Spec.Subdomain = host, subdomain }
}

// svcOpt changes a test service.
type svcOpt func(*api.Service)

// testService is a ClusterIP Service "web" selecting app=web, port "http"
// 80 → targetPort 8080 (TCP), labelled team=shop.
func testService(opts ...svcOpt) *api.Service {
	s := &api.Service{
		TypeMeta:   api.TypeMeta{Kind: "Service", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", UID: "uid-svc", ResourceVersion: "1", Labels: map[string]string{"team": "shop"}},
		Spec: api.ServiceSpec{
			Selector:   map[string]string{"app": "web"},
			ClusterIP:  "10.96.0.10",
			IPFamilies: []api.IPFamily{api.IPv4Protocol},
			Ports:      []api.ServicePort{{Name: "http", Port: 80, TargetPort: api.FromInt(8080), Protocol: api.ProtocolTCP}},
		},
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func headless(s *api.Service) {
	s.Spec.ClusterIP, s.Spec.ClusterIPs = api.ClusterIPNone, []string{api.ClusterIPNone}
}

func publishNotReady(s *api.Service) { s.Spec.PublishNotReadyAddresses = true }

func servicePorts(ports ...api.ServicePort) svcOpt {
	return func(s *api.Service) { s.Spec.Ports = ports }
}

// testNode is a Node in zone-a.
func testNode(name string) *api.Node {
	return &api.Node{TypeMeta: api.TypeMeta{Kind: "Node", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{zoneLabel: "zone-a"}}}
}

// storedSlice is a slice of testService as the apiserver would hold it:
// named, with a UID and generation 1, holding the given endpoints on the
// http/8080 port.
func storedSlice(name string, endpoints ...api.Endpoint) *api.EndpointSlice {
	s := newSlice(testService(), api.AddressTypeIPv4, []api.EndpointSlicePort{tcp("http", 8080)})
	s.Name, s.GenerateName, s.UID, s.ResourceVersion, s.Generation = name, "", "uid-"+name, "5", 1
	s.Endpoints = endpoints
	return s
}

// endpointOf is the endpoint testPod(name, ip) gets in an IPv4 slice:
// ready and serving on node-1 in zone-a.
func endpointOf(name, ip string) api.Endpoint {
	return podToEndpoint(testPod(name, ip), testNode("node-1"), testService(), api.AddressTypeIPv4)
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
