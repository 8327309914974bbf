package endpoints

import (
	"reflect"
	"testing"

	"kplane/pkg/api"
	"kplane/test/framework/controllertest"
)

func TestShouldPodBeInEndpoints(t *testing.T) {
	tests := []struct {
		name               string
		pod                *api.Pod
		includeTerminating bool
		want               bool
	}{
		{"running with IP", controllertest.WebPod("a", "10.244.1.2"), false, true},
		{"not ready still listed", controllertest.WebPod("a", "10.244.1.2", controllertest.NotReady), false, true},
		{"pending without IP", controllertest.WebPod("a", "", controllertest.NoIP, controllertest.InPhase(api.PodPending)), false, false},
		{"only podIP set", controllertest.WebPod("a", "10.244.1.2", func(p *api.Pod) { p.Status.PodIPs = nil }), false, true},
		{"succeeded", controllertest.WebPod("a", "10.244.1.2", controllertest.InPhase(api.PodSucceeded)), false, false},
		{"failed", controllertest.WebPod("a", "10.244.1.2", controllertest.InPhase(api.PodFailed)), true, false},
		{"terminating", controllertest.WebPod("a", "10.244.1.2", controllertest.Terminating), false, false},
		{"terminating, publishNotReadyAddresses", controllertest.WebPod("a", "10.244.1.2", controllertest.Terminating), true, true},
	}
	for _, tc := range tests {
		if got := shouldPodBeInEndpoints(tc.pod, tc.includeTerminating); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
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
			svc:  controllertest.WebService(), pod: controllertest.WebPod("web-0", "10.244.1.2"),
			want: api.EndpointAddress{IP: "10.244.1.2", NodeName: nodeName("node-1"), TargetRef: ref}, wantOK: true,
		},
		{
			name: "hostname when the subdomain is the service",
			svc:  controllertest.WebService(controllertest.Headless),
			pod:  controllertest.WebPod("web-0", "10.244.1.2", controllertest.WithHostname("web-0", "web")),
			want: api.EndpointAddress{IP: "10.244.1.2", Hostname: "web-0", NodeName: nodeName("node-1"), TargetRef: ref}, wantOK: true,
		},
		{
			name: "no hostname for another subdomain",
			svc:  controllertest.WebService(controllertest.Headless),
			pod:  controllertest.WebPod("web-0", "10.244.1.2", controllertest.WithHostname("web-0", "other")),
			want: api.EndpointAddress{IP: "10.244.1.2", NodeName: nodeName("node-1"), TargetRef: ref}, wantOK: true,
		},
		{
			name: "no node yet",
			svc:  controllertest.WebService(), pod: controllertest.WebPod("web-0", "10.244.1.2", controllertest.OnNode("")),
			want: api.EndpointAddress{IP: "10.244.1.2", TargetRef: ref}, wantOK: true,
		},
		{
			name: "dual-stack pod behind an IPv6 service",
			svc:  controllertest.WebService(func(s *api.Service) { s.Spec.IPFamilies = []api.IPFamily{api.IPv6Protocol} }),
			pod: controllertest.WebPod("web-0", "10.244.1.2", func(p *api.Pod) {
				p.Status.PodIPs = []api.PodIP{{IP: "10.244.1.2"}, {IP: "fd00::2"}}
			}),
			want: api.EndpointAddress{IP: "fd00::2", NodeName: nodeName("node-1"), TargetRef: ref}, wantOK: true,
		},
		{
			name: "IPv4-only pod behind an IPv6 service is left out",
			svc:  controllertest.WebService(func(s *api.Service) { s.Spec.IPFamilies = []api.IPFamily{api.IPv6Protocol} }),
			pod:  controllertest.WebPod("web-0", "10.244.1.2"), wantOK: false,
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
