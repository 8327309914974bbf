package controllertest

// This file holds the objects the unit tests of the controllers that list
// a Service's pods (endpoints, endpointslice, and the helpers they share
// in pkg/controllers/controllerutil) start from: the Service "web" and pods it selects,
// each changed by options for the case at hand.

import (
	"time"

	"kplane/pkg/api"
)

// PodOption changes a pod WebPod builds.
type PodOption func(*api.Pod)

// WebPod is a running, ready pod named name in namespace default with IP
// ip on node-1, labels app=web (so WebService selects it), and one
// container "web" exposing http on 8080 (TCP); opts change it.
func WebPod(name, ip string, opts ...PodOption) *api.Pod {
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

// NotReady makes the pod's Ready condition False.
func NotReady(p *api.Pod) {
	p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse}}
}

// Terminating marks the pod for deletion (a fixed deletionTimestamp).
func Terminating(p *api.Pod) {
	now := api.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	p.DeletionTimestamp = &now
}

// NoIP takes the pod's IPs away, as before the kubelet reports them.
func NoIP(p *api.Pod) { p.Status.PodIP, p.Status.PodIPs = "", nil }

// InPhase sets the pod's phase.
func InPhase(phase api.PodPhase) PodOption { return func(p *api.Pod) { p.Status.Phase = phase } }

// OnNode binds the pod to node ("" for a pod not scheduled yet).
func OnNode(node string) PodOption { return func(p *api.Pod) { p.Spec.NodeName = node } }

// WithLabels replaces the pod's labels.
func WithLabels(labels map[string]string) PodOption { return func(p *api.Pod) { p.Labels = labels } }

// WithPorts replaces the ports of the pod's container "web".
func WithPorts(ports ...api.ContainerPort) PodOption {
	return func(p *api.Pod) { p.Spec.Containers[0].Ports = ports }
}

// WithHostname sets the pod's spec.hostname and spec.subdomain.
func WithHostname(hostname, subdomain string) PodOption {
	return func(p *api.Pod) { p.Spec.Hostname, p.Spec.Subdomain = hostname, subdomain }
}

// ServiceOption changes a Service WebService builds.
type ServiceOption func(*api.Service)

// WebService is a ClusterIP Service "web" in namespace default selecting
// app=web, with port "http" 80 → targetPort 8080 (TCP), labelled
// team=shop; opts change it.
func WebService(opts ...ServiceOption) *api.Service {
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

// Headless makes the Service headless (clusterIP None).
func Headless(s *api.Service) {
	s.Spec.ClusterIP, s.Spec.ClusterIPs = api.ClusterIPNone, []string{api.ClusterIPNone}
}

// PublishNotReady sets the Service's publishNotReadyAddresses.
func PublishNotReady(s *api.Service) { s.Spec.PublishNotReadyAddresses = true }

// ServicePorts replaces the Service's ports.
func ServicePorts(ports ...api.ServicePort) ServiceOption {
	return func(s *api.Service) { s.Spec.Ports = ports }
}
