package endpointslice

import (
	"slices"
	"testing"

	"kplane/pkg/api"
	"kplane/test/framework/controllertest"
)

// The conditions follow upstream's podToEndpoint: serving is readiness,
// terminating is the deletion mark, ready is serving and not terminating —
// or always, when the Service publishes not-ready addresses.
func TestPodToEndpointConditions(t *testing.T) {
	pod := func(opts ...controllertest.PodOption) *api.Pod {
		return controllertest.WebPod("a", "10.244.1.2", opts...)
	}
	web, publishing := controllertest.WebService(), controllertest.WebService(controllertest.PublishNotReady)
	tests := []struct {
		name                        string
		pod                         *api.Pod
		svc                         *api.Service
		ready, serving, terminating bool
	}{
		{"ready", pod(), web, true, true, false},
		{"not ready", pod(controllertest.NotReady), web, false, false, false},
		{"ready and terminating", pod(controllertest.Terminating), web, false, true, true},
		{"not ready and terminating", pod(controllertest.NotReady, controllertest.Terminating), web, false, false, true},
		{"publishNotReadyAddresses", pod(controllertest.NotReady, controllertest.Terminating), publishing, true, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := podToEndpoint(tt.pod, testNode("node-1"), tt.svc, api.AddressTypeIPv4)
			c := e.Conditions
			if *c.Ready != tt.ready || *c.Serving != tt.serving || *c.Terminating != tt.terminating {
				t.Errorf("conditions ready=%v serving=%v terminating=%v, want %v %v %v",
					*c.Ready, *c.Serving, *c.Terminating, tt.ready, tt.serving, tt.terminating)
			}
		})
	}
}

// An endpoint points back at its pod and names its node and zone; the
// hostname is set only for a pod whose subdomain is the Service.
func TestPodToEndpointFields(t *testing.T) {
	e := podToEndpoint(controllertest.WebPod("a", "10.244.1.2"), testNode("node-1"), controllertest.WebService(), api.AddressTypeIPv4)
	if !slices.Equal(e.Addresses, []string{"10.244.1.2"}) || deref(e.NodeName) != "node-1" || deref(e.Zone) != "zone-a" || e.Hostname != nil {
		t.Errorf("endpoint %s", asJSON(e))
	}
	if ref := e.TargetRef; ref == nil || *ref != (api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "a", UID: "uid-a"}) {
		t.Errorf("targetRef %+v", ref)
	}
	if e := podToEndpoint(controllertest.WebPod("a", "10.244.1.2"), nil, controllertest.WebService(), api.AddressTypeIPv4); e.Zone != nil {
		t.Errorf("zone %q without a node", *e.Zone)
	}
	named := podToEndpoint(controllertest.WebPod("web-0", "10.244.1.2", controllertest.WithHostname("web-0", "web")),
		nil, controllertest.WebService(), api.AddressTypeIPv4)
	if deref(named.Hostname) != "web-0" {
		t.Errorf("hostname %v, want web-0", named.Hostname)
	}
	other := podToEndpoint(controllertest.WebPod("web-0", "10.244.1.2", controllertest.WithHostname("web-0", "other")),
		nil, controllertest.WebService(), api.AddressTypeIPv4)
	if other.Hostname != nil {
		t.Errorf("hostname %q for another subdomain", *other.Hostname)
	}
}

// A dual-stack pod contributes the address of the slice's family only.
func TestAddressesOf(t *testing.T) {
	pod := controllertest.WebPod("a", "10.244.1.2", func(p *api.Pod) {
		p.Status.PodIPs = []api.PodIP{{IP: "10.244.1.2"}, {IP: "fd00:10:244::2"}}
	})
	if got := addressesOf(pod, api.AddressTypeIPv4); !slices.Equal(got, []string{"10.244.1.2"}) {
		t.Errorf("IPv4 addresses %v", got)
	}
	if got := addressesOf(pod, api.AddressTypeIPv6); !slices.Equal(got, []string{"fd00:10:244::2"}) {
		t.Errorf("IPv6 addresses %v", got)
	}
	if got := addressesOf(controllertest.WebPod("b", "10.244.1.3"), api.AddressTypeIPv6); len(got) != 0 {
		t.Errorf("IPv6 addresses of an IPv4 pod: %v", got)
	}
}

// Finished pods and pods without an IP are no backends; terminating ones
// are (marked terminating).
func TestShouldPodBeInSlices(t *testing.T) {
	for _, tt := range []struct {
		pod  *api.Pod
		want bool
	}{
		{controllertest.WebPod("a", "10.244.1.2"), true},
		{controllertest.WebPod("a", "10.244.1.2", controllertest.Terminating), true},
		{controllertest.WebPod("a", "10.244.1.2", controllertest.NotReady), true},
		{controllertest.WebPod("a", "", controllertest.NoIP), false},
		{controllertest.WebPod("a", "10.244.1.2", controllertest.InPhase(api.PodSucceeded)), false},
		{controllertest.WebPod("a", "10.244.1.2", controllertest.InPhase(api.PodFailed)), false},
	} {
		if got := shouldPodBeInSlices(tt.pod); got != tt.want {
			t.Errorf("pod %s phase %s deleting %v: %v, want %v", tt.pod.Status.PodIP, tt.pod.Status.Phase, tt.pod.DeletionTimestamp != nil, got, tt.want)
		}
	}
}

// Ports resolve per pod: a named targetPort becomes the pod's container
// port number of that name and protocol; a pod without it offers the other
// ports only.
func TestEndpointPorts(t *testing.T) {
	svc := controllertest.WebService(controllertest.ServicePorts(
		api.ServicePort{Name: "http", Port: 80, TargetPort: api.FromString("http"), Protocol: api.ProtocolTCP},
		api.ServicePort{Name: "metrics", Port: 9090, TargetPort: api.FromString("metrics"), Protocol: api.ProtocolTCP},
		api.ServicePort{Name: "dns", Port: 53, TargetPort: api.FromInt(5353), Protocol: api.ProtocolUDP},
	))
	pod := controllertest.WebPod("a", "10.244.1.2", controllertest.WithPorts(
		api.ContainerPort{Name: "http", ContainerPort: 8080},
		api.ContainerPort{Name: "metrics", ContainerPort: 9100, Protocol: api.ProtocolUDP},
	))
	got := endpointPorts(svc, pod)
	want := []api.EndpointSlicePort{tcp("http", 8080), {Name: ptrTo("dns"), Port: ptrTo[int32](5353), Protocol: ptrTo(api.ProtocolUDP)}}
	if asJSON(got) != asJSON(want) {
		t.Errorf("ports %s, want %s", asJSON(got), asJSON(want))
	}
	if got := endpointPorts(controllertest.WebService(controllertest.Headless, controllertest.ServicePorts()), pod); len(got) != 0 {
		t.Errorf("headless service without ports got ports %s", asJSON(got))
	}
}

// A Service's slices follow its IP families.
func TestAddressTypesOf(t *testing.T) {
	dual := controllertest.WebService(func(s *api.Service) { s.Spec.IPFamilies = []api.IPFamily{api.IPv6Protocol, api.IPv4Protocol} })
	noFamilies := controllertest.WebService(func(s *api.Service) { s.Spec.IPFamilies = nil; s.Spec.ClusterIP = "fd00:96::10" })
	headlessOld := controllertest.WebService(controllertest.Headless, func(s *api.Service) { s.Spec.IPFamilies = nil })
	for _, tt := range []struct {
		svc  *api.Service
		want []api.AddressType
	}{
		{controllertest.WebService(), []api.AddressType{api.AddressTypeIPv4}},
		{dual, []api.AddressType{api.AddressTypeIPv6, api.AddressTypeIPv4}},
		{noFamilies, []api.AddressType{api.AddressTypeIPv6}},
		{headlessOld, []api.AddressType{api.AddressTypeIPv4, api.AddressTypeIPv6}},
	} {
		if got := addressTypesOf(tt.svc); !slices.Equal(got, tt.want) {
			t.Errorf("families %v clusterIP %s: %v, want %v", tt.svc.Spec.IPFamilies, tt.svc.Spec.ClusterIP, got, tt.want)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }
