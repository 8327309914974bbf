package plugins

import (
	"testing"

	"kplane/pkg/api"
)

func TestNodePortsFilter(t *testing.T) {
	port := func(hostIP string, protocol api.Protocol, hostPort int32) func(*api.Pod) {
		return func(p *api.Pod) {
			p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports,
				api.ContainerPort{ContainerPort: 80, HostPort: hostPort, HostIP: hostIP, Protocol: protocol})
		}
	}
	const conflict = "Unschedulable: node(s) didn't have free ports for the requested pod ports"
	tests := []struct {
		name     string
		existing *api.Pod
		pod      *api.Pod
		want     string
	}{
		{"no host ports", pod("", "", port("", "", 8080)), pod("", ""), ""},
		{"container port without hostPort never conflicts", pod("", "", port("", "", 8080)), pod("", "", port("", "", 0)), ""},
		{"same port", pod("", "", port("", "", 8080)), pod("", "", port("", "", 8080)), conflict},
		{"different port", pod("", "", port("", "", 8080)), pod("", "", port("", "", 8081)), ""},
		{"different protocol", pod("", "", port("", "", 53)), pod("", "", port("", api.Protocol("UDP"), 53)), ""},
		{"TCP is the default protocol", pod("", "", port("", api.ProtocolTCP, 53)), pod("", "", port("", "", 53)), conflict},
		{"different host IPs", pod("", "", port("10.0.0.1", "", 8080)), pod("", "", port("10.0.0.2", "", 8080)), ""},
		{"0.0.0.0 clashes with a specific IP", pod("", "", port("10.0.0.1", "", 8080)), pod("", "", port("", "", 8080)), conflict},
		{"a specific IP clashes with 0.0.0.0", pod("", "", port("0.0.0.0", "", 8080)), pod("", "", port("10.0.0.2", "", 8080)), conflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := node("n", "4", "8Gi", "110", tt.existing)
			if got := verdict((&NodePorts{}).Filter(info(tt.pod), n)); got != tt.want {
				t.Errorf("Filter = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNodePortsFreedWhenPodLeaves(t *testing.T) {
	existing := pod("", "", func(p *api.Pod) {
		p.Spec.Containers[0].Ports = []api.ContainerPort{{ContainerPort: 80, HostPort: 8080}}
	})
	n := node("n", "4", "8Gi", "110", existing)
	contender := info(pod("", "", func(p *api.Pod) {
		p.Spec.Containers[0].Ports = []api.ContainerPort{{ContainerPort: 80, HostPort: 8080}}
	}))
	if (&NodePorts{}).Filter(contender, n).IsSuccess() {
		t.Fatal("port 8080 should be taken")
	}
	n.RemovePod(info(existing).UID)
	if st := (&NodePorts{}).Filter(contender, n); !st.IsSuccess() {
		t.Fatalf("after the pod left: %s", verdict(st))
	}
}
