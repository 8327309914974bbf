package kubelet

import (
	"strings"
	"testing"
)

// --address defaults to loopback (kplane's nodes share this machine) and
// must be an IP address.
func TestOptionsAddress(t *testing.T) {
	opts := DefaultOptions()
	opts.Kubeconfig, opts.NodeName = "kubeconfig", "n1"
	if opts.Address != "127.0.0.1" || opts.NodeIP != "127.0.0.1" {
		t.Fatalf("defaults: --address %q, --node-ip %q; want both 127.0.0.1", opts.Address, opts.NodeIP)
	}
	opts.Address, opts.NodeIP = "192.168.250.2", "192.168.250.2"
	if err := opts.Validate(); err != nil {
		t.Fatalf("a veth address was refused: %v", err)
	}
	opts.Address = "node1.example"
	if err := opts.Validate(); err == nil || !strings.Contains(err.Error(), "--address") {
		t.Fatalf("Validate = %v, want an error naming --address", err)
	}
}
