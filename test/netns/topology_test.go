package netns

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// skipEnv opts out of the test on a machine that cannot create network
// namespaces; without it such a machine fails the test.
const skipEnv = "KPLANE_SKIP_NETNS"

// The veth network: a private /24 that exists only inside the test's
// namespaces (the host's own interfaces never see it).
const (
	networkCIDR = "192.168.250.0/24"
	prefixBits  = "/24"
)

// host is one namespace with one veth end in the network.
type host struct {
	// role is the short name: "api", "n1", "n2".
	role string
	// netns is the namespace's name (`ip netns list`).
	netns string
	// ip is the address of its eth0.
	ip string
}

// topology is the namespaces of one test run: hosts, each joined by a veth
// pair to a bridge in the hub namespace.
type topology struct {
	hub   string
	hosts map[string]host
}

// requireNetns fails the test (or skips it, only with KPLANE_SKIP_NETNS=1)
// when network namespaces cannot be made here.
func requireNetns(t *testing.T) {
	t.Helper()
	why := ""
	switch _, err := exec.LookPath("ip"); {
	case err != nil:
		why = "iproute2's ip command is not installed (apt-get install iproute2)"
	case os.Geteuid() != 0:
		why = "creating network namespaces needs root"
	}
	if why != "" {
		cannotRun(t, why)
	}
}

// cannotRun fails the test because this machine cannot make network
// namespaces, or skips it when KPLANE_SKIP_NETNS=1 says to.
func cannotRun(t *testing.T, why string) {
	t.Helper()
	if os.Getenv(skipEnv) == "1" {
		t.Skipf("%s; skipped because %s=1", why, skipEnv)
	}
	t.Fatalf("the network-namespace test cannot run: %s (set %s=1 to skip it explicitly)", why, skipEnv)
}

// newTopology creates the namespaces kplane-<random>-{hub,api,n1,n2}, the
// bridge in the hub and one veth pair per host, and deletes them all when
// the test ends, whether it passed or not.
func newTopology(t *testing.T) *topology {
	t.Helper()
	requireNetns(t)
	suffix := make([]byte, 3)
	if _, err := rand.Read(suffix); err != nil {
		t.Fatal(err)
	}
	prefix := "kplane-" + hex.EncodeToString(suffix)
	top := &topology{hub: prefix + "-hub", hosts: map[string]host{}}
	for i, role := range []string{"api", "n1", "n2"} {
		top.hosts[role] = host{role: role, netns: prefix + "-" + role, ip: fmt.Sprintf("192.168.250.%d", i+1)}
	}
	var created []string
	t.Cleanup(func() {
		for _, ns := range created {
			if out, err := exec.Command("ip", "netns", "delete", ns).CombinedOutput(); err != nil {
				t.Errorf("delete network namespace %s: %v: %s", ns, err, out)
			}
		}
	})
	for _, ns := range append([]string{top.hub}, top.namespaces()...) {
		if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
			// A root without CAP_SYS_ADMIN (an unprivileged container) gets here.
			cannotRun(t, fmt.Sprintf("ip netns add %s: %v: %s", ns, err, strings.TrimSpace(string(out))))
		}
		created = append(created, ns)
		// Each namespace has a loopback of its own, down until set up:
		// components still serve their debug endpoints there.
		ipCommand(t, "-n", ns, "link", "set", "lo", "up")
	}
	ipCommand(t, "-n", top.hub, "link", "add", "br0", "type", "bridge")
	ipCommand(t, "-n", top.hub, "link", "set", "br0", "up")
	for _, h := range top.hosts {
		// eth0 in the host's namespace, its peer (named after the host)
		// in the hub, plugged into the bridge.
		ipCommand(t, "-n", h.netns, "link", "add", "eth0", "type", "veth", "peer", "name", h.role, "netns", top.hub)
		ipCommand(t, "-n", top.hub, "link", "set", h.role, "master", "br0", "up")
		ipCommand(t, "-n", h.netns, "addr", "add", h.ip+prefixBits, "dev", "eth0")
		ipCommand(t, "-n", h.netns, "link", "set", "eth0", "up")
	}
	return top
}

// namespaces lists the hosts' namespaces (not the hub's).
func (top *topology) namespaces() []string {
	var out []string
	for _, role := range []string{"api", "n1", "n2"} {
		out = append(out, top.hosts[role].netns)
	}
	return out
}

// ipCommand runs `ip args…` and fails the test if it fails.
func ipCommand(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
}
