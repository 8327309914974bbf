package kubeletaddr

import (
	"context"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
)

func nodeAt(ip string, port int32) *api.Node {
	n := &api.Node{}
	n.Name = "n1"
	n.Status.Addresses = []api.NodeAddress{{Type: api.NodeHostName, Address: "n1"}, {Type: api.NodeInternalIP, Address: ip}}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = port
	return n
}

func TestNetworksHost(t *testing.T) {
	veth, err := ParseNetworks([]string{"192.168.250.0/24", " "})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		networks Networks
		ip       string
		want     string // host:port, or a part of the error
		wantErr  bool
	}{
		{"loopback by default", nil, "127.0.0.1", "127.0.0.1:10250", false},
		{"ipv6 loopback", nil, "::1", "[::1]:10250", false},
		{"other address refused by default", nil, "192.168.250.3", "only dials kubelets on 127.0.0.1 or ::1", true},
		{"inside an allowed network", veth, "192.168.250.3", "192.168.250.3:10250", false},
		{"loopback still allowed", veth, "127.0.0.1", "127.0.0.1:10250", false},
		{"outside the allowed network", veth, "192.168.251.3", "127.0.0.1 or ::1, 192.168.250.0/24", true},
		{"not an IP", veth, "node1.example", "only dials", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.networks.Host(nodeAt(tc.ip, 10250), "apiserver")
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Host = %q, %v; want an error containing %q", got, err, tc.want)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Host = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestHostNeedsInternalIPAndPort(t *testing.T) {
	n := nodeAt("127.0.0.1", 0)
	if _, err := Host(n, "apiserver"); err == nil || !strings.Contains(err.Error(), "no kubelet port") {
		t.Fatalf("no port: err = %v", err)
	}
	n.Status.Addresses = n.Status.Addresses[:1]
	if _, err := Host(n, "apiserver"); err == nil || !strings.Contains(err.Error(), "no preferred addresses") {
		t.Fatalf("no InternalIP: err = %v", err)
	}
}

func TestParseNetworksRejectsNonCIDR(t *testing.T) {
	if _, err := ParseNetworks([]string{"192.168.250.1"}); err == nil {
		t.Fatal("a bare address was accepted as a network")
	}
}

func TestDialContextRefusesOutsideNetworks(t *testing.T) {
	dial := Networks(nil).DialContext(time.Second)
	if _, err := dial(context.Background(), "tcp", "192.168.250.3:10250"); err == nil || !strings.Contains(err.Error(), "refusing to dial") {
		t.Fatalf("dial outside loopback: err = %v", err)
	}
}

// A network of every address would let any Node send the client
// certificate anywhere: ParseNetworks refuses it, IPv4 and IPv6.
func TestParseNetworksRejectsEveryAddress(t *testing.T) {
	for _, c := range []string{"0.0.0.0/0", "::/0", "10.0.0.0/0"} {
		if _, err := ParseNetworks([]string{c}); err == nil || !strings.Contains(err.Error(), "allows every address") {
			t.Errorf("ParseNetworks(%q) err = %v, want a refusal", c, err)
		}
	}
}
