// Package kubeletaddr is how kplane's components find and reach a kubelet:
// the apiserver for `kubectl logs`, exec and the node proxy, metrics-server
// for its scrapes. Upstream both resolve the address from the Node object
// (the node's InternalIP and status.daemonEndpoints.kubeletEndpoint.port;
// pkg/util/node.GetPreferredNodeAddress and the apiserver's
// pkg/kubelet/client). A Node object is written by whoever may write Nodes,
// and must not be able to send a component's kubelet-client certificate
// anywhere, so kplane adds a guard upstream does not have: a component
// dials a kubelet only on loopback, or inside networks it was told its
// nodes live on (Networks; the apiserver's --kubelet-networks), such as
// the veth network of the network-namespace test (test/netns).
package kubeletaddr

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/api"
)

// Networks are the address ranges, beyond loopback, whose kubelets a
// component may dial. The zero value allows loopback only (127.0.0.1 and
// ::1), where every kubelet of `ctl up` listens.
type Networks []netip.Prefix

// ParseNetworks reads CIDRs ("192.168.250.0/24") into Networks. It refuses
// a network of every address (/0).
func ParseNetworks(cidrs []string) (Networks, error) {
	var out Networks
	for _, c := range cidrs {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		p, err := netip.ParsePrefix(c)
		if err != nil {
			return nil, fmt.Errorf("kubelet network %q: want a CIDR such as 192.168.250.0/24: %w", c, err)
		}
		if p.Bits() == 0 {
			// 0.0.0.0/0 or ::/0 would let a Node send the component's
			// kubelet-client certificate to any address at all, which is
			// what this package exists to prevent.
			return nil, fmt.Errorf("kubelet network %q allows every address; name the networks the nodes live on", c)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Allows reports whether a kubelet at addr (an IP, no port) may be dialled:
// a loopback address, or one inside n.
func (n Networks) Allows(addr string) bool {
	if IsLoopback(addr) {
		return true
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	for _, p := range n {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// describe says which addresses n allows, for refusals.
func (n Networks) describe() string {
	allowed := "127.0.0.1 or ::1"
	for _, p := range n {
		allowed += ", " + p.String()
	}
	return allowed
}

// Host is host:port of node's kubelet: its InternalIP, which n must allow,
// and the port it reports in daemonEndpoints. component names the caller
// in the refusal ("kplane's apiserver only dials …").
func (n Networks) Host(node *api.Node, component string) (string, error) {
	var internalIP string
	var known []string
	for _, a := range node.Status.Addresses {
		known = append(known, fmt.Sprintf("%s: %s", a.Type, a.Address))
		if a.Type == api.NodeInternalIP && internalIP == "" {
			internalIP = a.Address
		}
	}
	if internalIP == "" {
		// upstream's message (pkg/util/node.GetPreferredNodeAddress)
		return "", fmt.Errorf("no preferred addresses found; known addresses: %v", known)
	}
	if !n.Allows(internalIP) {
		return "", fmt.Errorf("node %q has InternalIP %s: kplane's %s only dials kubelets on %s", node.Name, internalIP, component, n.describe())
	}
	port := node.Status.DaemonEndpoints.KubeletEndpoint.Port
	if port <= 0 || port > 65535 {
		return "", fmt.Errorf("node %q reports no kubelet port in status.daemonEndpoints.kubeletEndpoint", node.Name)
	}
	return net.JoinHostPort(internalIP, strconv.Itoa(int(port))), nil
}

// Host is host:port of node's kubelet for a component that dials loopback
// kubelets only (Networks' zero value).
func Host(node *api.Node, component string) (string, error) {
	return Networks(nil).Host(node, component)
}

// IsLoopback accepts exactly the two loopback addresses kplane's kubelets
// listen on by default.
func IsLoopback(addr string) bool {
	ip := net.ParseIP(addr)
	return ip != nil && (ip.Equal(net.IPv4(127, 0, 0, 1)) || ip.Equal(net.IPv6loopback))
}

// DialContext returns an http.Transport DialContext that connects only to
// a kubelet n allows, within timeout: the second guard behind Host, for an
// address that reaches the transport some other way (a redirect).
func (n Networks) DialContext(timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, _, err := net.SplitHostPort(addr); err != nil || !n.Allows(host) {
			return nil, fmt.Errorf("refusing to dial %s: not a kubelet on %s", addr, n.describe())
		}
		d := net.Dialer{Timeout: timeout}
		return d.DialContext(ctx, network, addr)
	}
}

// DialContext is Networks.DialContext for loopback kubelets only.
func DialContext(timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return Networks(nil).DialContext(timeout)
}
