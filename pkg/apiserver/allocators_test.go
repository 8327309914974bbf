package apiserver

import (
	"net"
	"testing"

	"kplane/pkg/api"
)

func newTestAllocators() *allocators {
	_, ipNet, _ := net.ParseCIDR(serviceCIDR)
	return &allocators{ipNet: ipNet, usedIPs: map[string]bool{kubernetesService: true}, usedPorts: map[int32]bool{}}
}

func TestAllocateClusterIPsAndNodePorts(t *testing.T) {
	a := newTestAllocators()
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		svc := &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Ports: []api.ServicePort{{Port: 80}}}}
		if _, err := a.admitService(svc, nil, false); err != nil {
			t.Fatal(err)
		}
		ip := net.ParseIP(svc.Spec.ClusterIP)
		if ip == nil || !a.ipNet.Contains(ip) || seen[svc.Spec.ClusterIP] || svc.Spec.ClusterIP == kubernetesService {
			t.Fatalf("allocated %q (seen before: %v)", svc.Spec.ClusterIP, seen[svc.Spec.ClusterIP])
		}
		seen[svc.Spec.ClusterIP] = true
		if p := svc.Spec.Ports[0].NodePort; p < nodePortMin || p > nodePortMax {
			t.Fatalf("node port %d out of range", p)
		}
	}

	// A requested address: taken, out of range, free.
	for _, tc := range []struct {
		ip string
		ok bool
	}{{kubernetesService, false}, {"192.168.0.1", false}, {"10.100.0.7", true}, {"10.100.0.7", false}} {
		svc := &api.Service{Spec: api.ServiceSpec{ClusterIP: tc.ip, Ports: []api.ServicePort{{Port: 80}}}}
		_, err := a.admitService(svc, nil, false)
		if (err == nil) != tc.ok {
			t.Errorf("request %s: err %v, want ok=%v", tc.ip, err, tc.ok)
		}
	}

	// Headless services get no address; release undoes a failed write.
	headless := &api.Service{Spec: api.ServiceSpec{ClusterIP: api.ClusterIPNone}}
	if _, err := a.admitService(headless, nil, false); err != nil || headless.Spec.ClusterIPs[0] != api.ClusterIPNone {
		t.Errorf("headless: %v %v", err, headless.Spec.ClusterIPs)
	}
	svc := &api.Service{Spec: api.ServiceSpec{ClusterIP: "10.100.0.8"}}
	release, err := a.admitService(svc, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	release()
	if a.usedIPs["10.100.0.8"] {
		t.Error("release kept the address")
	}

	// An update keeps the address and node port; deleting frees them.
	old := &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Ports: []api.ServicePort{{Port: 80, Protocol: api.ProtocolTCP}}}}
	if _, err := a.admitService(old, nil, false); err != nil {
		t.Fatal(err)
	}
	next := &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Ports: []api.ServicePort{{Port: 80, Protocol: api.ProtocolTCP}}}}
	if _, err := a.admitService(next, old, false); err != nil {
		t.Fatal(err)
	}
	if next.Spec.ClusterIP != old.Spec.ClusterIP || next.Spec.Ports[0].NodePort != old.Spec.Ports[0].NodePort {
		t.Errorf("update changed allocations: %+v vs %+v", next.Spec, old.Spec)
	}
	a.releaseService(next, nil)
	if a.usedIPs[next.Spec.ClusterIP] || a.usedPorts[next.Spec.Ports[0].NodePort] {
		t.Error("delete kept the allocations")
	}
}
