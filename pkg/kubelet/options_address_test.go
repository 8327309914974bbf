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

// A kubelet whose --node-ip is not loopback listens there unless --address
// says otherwise; a loopback --address with such a node IP is refused, as
// the apiserver could never reach it.
func TestOptionsAddressFollowsNodeIP(t *testing.T) {
	for nodeIP, want := range map[string]string{"127.0.0.1": "127.0.0.1", "::1": "127.0.0.1", "192.168.250.2": "192.168.250.2", "fd00::2": "fd00::2"} {
		if got := DefaultAddress(nodeIP); got != want {
			t.Errorf("DefaultAddress(%q) = %q, want %q", nodeIP, got, want)
		}
	}
	opts := DefaultOptions()
	opts.Kubeconfig, opts.NodeName = "kubeconfig", "n1"
	opts.NodeIP = "192.168.250.2"
	if err := opts.Validate(); err == nil || !strings.Contains(err.Error(), "--address \"127.0.0.1\" is loopback") {
		t.Fatalf("Validate with --node-ip 192.168.250.2 and --address 127.0.0.1 = %v, want a refusal", err)
	}
	opts.Address = ""
	if err := opts.Validate(); err == nil {
		t.Fatal("Validate with --node-ip 192.168.250.2 and no --address accepted it")
	}
	for _, addr := range []string{DefaultAddress(opts.NodeIP), "0.0.0.0"} {
		opts.Address = addr
		if err := opts.Validate(); err != nil {
			t.Errorf("--address %s with --node-ip 192.168.250.2 was refused: %v", addr, err)
		}
	}
}
