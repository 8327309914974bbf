package endpoints

import (
	"reflect"
	"testing"

	"kplane/pkg/api"
)

func TestShouldPodBeInEndpoints(t *testing.T) {
	tests := []struct {
		name               string
		pod                *api.Pod
		includeTerminating bool
		want               bool
	}{
		{"running with IP", testPod("a", "10.244.1.2"), false, true},
		{"not ready still listed", testPod("a", "10.244.1.2", notReady), false, true},
		{"pending without IP", testPod("a", "", noIP, phase(api.PodPending)), false, false},
		{"only podIP set", testPod("a", "10.244.1.2", func(p *api.Pod) { p.Status.PodIPs = nil }), false, true},
		{"succeeded", testPod("a", "10.244.1.2", phase(api.PodSucceeded)), false, false},
		{"failed", testPod("a", "10.244.1.2", phase(api.PodFailed)), true, false},
		{"terminating", testPod("a", "10.244.1.2", terminating), false, false},
		{"terminating, publishNotReadyAddresses", testPod("a", "10.244.1.2", terminating), true, true},
	}
	for _, tc := range tests {
		if got := shouldPodBeInEndpoints(tc.pod, tc.includeTerminating); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestFindPort(t *testing.T) {
	always := api.ContainerRestartPolicyAlways
	pod := testPod("a", "10.244.1.2", withPorts(
		api.ContainerPort{Name: "http", ContainerPort: 8080, Protocol: api.ProtocolTCP},
		api.ContainerPort{Name: "dns", ContainerPort: 5353, Protocol: api.ProtocolUDP},
		api.ContainerPort{Name: "plain", ContainerPort: 9000}, // protocol unset means TCP
	))
	pod.Spec.InitContainers = []api.Container{
		{Name: "setup", Ports: []api.ContainerPort{{Name: "setup", ContainerPort: 7000, Protocol: api.ProtocolTCP}}},
		{Name: "proxy", RestartPolicy: &always, Ports: []api.ContainerPort{{Name: "proxy", ContainerPort: 15001, Protocol: api.ProtocolTCP}}},
	}
	tests := []struct {
		name     string
		svcPort  api.ServicePort
		want     int32
		wantFind bool
	}{
		{"number", api.ServicePort{Port: 80, TargetPort: api.FromInt(8081), Protocol: api.ProtocolTCP}, 8081, true},
		{"unset means the service port", api.ServicePort{Port: 80, Protocol: api.ProtocolTCP}, 80, true},
		{"name", api.ServicePort{Port: 80, TargetPort: api.FromString("http"), Protocol: api.ProtocolTCP}, 8080, true},
		{"name needs the same protocol", api.ServicePort{Port: 53, TargetPort: api.FromString("dns"), Protocol: api.ProtocolTCP}, 0, false},
		{"name with UDP", api.ServicePort{Port: 53, TargetPort: api.FromString("dns"), Protocol: api.ProtocolUDP}, 5353, true},
		{"unset protocols are TCP", api.ServicePort{Port: 90, TargetPort: api.FromString("plain")}, 9000, true},
		{"missing name", api.ServicePort{Port: 80, TargetPort: api.FromString("metrics"), Protocol: api.ProtocolTCP}, 0, false},
		{"sidecar port", api.ServicePort{Port: 80, TargetPort: api.FromString("proxy"), Protocol: api.ProtocolTCP}, 15001, true},
		{"plain init container port is not served", api.ServicePort{Port: 80, TargetPort: api.FromString("setup"), Protocol: api.ProtocolTCP}, 0, false},
	}
	for _, tc := range tests {
		got, ok := findPort(pod, &tc.svcPort)
		if got != tc.want || ok != tc.wantFind {
			t.Errorf("%s: findPort = %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.wantFind)
		}
	}
}

func TestPodEndpointAddress(t *testing.T) {
	nodeName := func(s string) *string { return &s }
	ref := &api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-0", UID: "uid-web-0"}
	tests := []struct {
		name   string
		svc    *api.Service
		pod    *api.Pod
		want   api.EndpointAddress
		wantOK bool
	}{
		{
			name: "ip, node and reference",
			svc:  testService(), pod: testPod("web-0", "10.244.1.2"),
			want: api.EndpointAddress{IP: "10.244.1.2", NodeName: nodeName("node-1"), TargetRef: ref}, wantOK: true,
		},
		{
			name: "hostname when the subdomain is the service",
			svc:  testService(headless), pod: testPod("web-0", "10.244.1.2", withHostname("web-0", "web")),
			want: api.EndpointAddress{IP: "10.244.1.2", Hostname: "web-0", NodeName: nodeName("node-1"), TargetRef: ref}, wantOK: true,
		},
		{
			name: "no hostname for another subdomain",
			svc:  testService(headless), pod: testPod("web-0", "10.244.1.2", withHostname("web-0", "other")),
			want: api.EndpointAddress{IP: "10.244.1.2", NodeName: nodeName("node-1"), TargetRef: ref}, wantOK: true,
		},
		{
			name: "no node yet",
			svc:  testService(), pod: testPod("web-0", "10.244.1.2", onNode("")),
			want: api.EndpointAddress{IP: "10.244.1.2", TargetRef: ref}, wantOK: true,
		},
		{
			name: "dual-stack pod behind an IPv6 service",
			svc:  testService(func(s *api.Service) { s.Spec.IPFamilies = []api.IPFamily{api.IPv6Protocol} }),
			pod: testPod("web-0", "10.244.1.2", func(p *api.Pod) {
				p.Status.PodIPs = []api.PodIP{{IP: "10.244.1.2"}, {IP: "fd00::2"}}
			}),
			want: api.EndpointAddress{IP: "fd00::2", NodeName: nodeName("node-1"), TargetRef: ref}, wantOK: true,
		},
		{
			name: "IPv4-only pod behind an IPv6 service is left out",
			svc:  testService(func(s *api.Service) { s.Spec.IPFamilies = []api.IPFamily{api.IPv6Protocol} }),
			pod:  testPod("web-0", "10.244.1.2"), wantOK: false,
		},
	}
	for _, tc := range tests {
		got, ok := podEndpointAddress(tc.svc, tc.pod)
		if ok != tc.wantOK {
			t.Errorf("%s: ok = %v, want %v", tc.name, ok, tc.wantOK)
			continue
		}
		if ok && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}
