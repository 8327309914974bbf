package endpoints

import (
	"time"

	"kplane/pkg/api"
)

// podOpt changes a test pod.
type podOpt func(*api.Pod)

// testPod is a running, ready pod named name with IP ip, labels app=web,
// and one container "web" exposing http on 8080 (TCP).
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

func noIP(p *api.Pod) {
	p.Status.PodIP, p.Status.PodIPs = "", nil
}

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

// testService is a ClusterIP Service "web" selecting app=web, port 80 →
// targetPort 8080 (TCP), labelled team=shop.
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

// addr is the address testPod(name, ip) gets on node-1.
func addr(name, ip string) api.EndpointAddress {
	node := "node-1"
	return api.EndpointAddress{IP: ip, NodeName: &node,
		TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: "default", Name: name, UID: "uid-" + name}}
}

func tcp(name string, port int32) api.EndpointPort {
	return api.EndpointPort{Name: name, Port: port, Protocol: api.ProtocolTCP}
}
