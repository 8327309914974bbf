// Package kubeletaddr is how kplane's components find and reach a kubelet:
// the apiserver for `kubectl logs`, exec and the node proxy, metrics-server
// for its scrapes. Upstream both resolve the address from the Node object
// (the node's InternalIP and status.daemonEndpoints.kubeletEndpoint.port).
// kplane's kubelets all listen on loopback, and its components dial nothing
// else: a Node object is written by whoever may write Nodes, and must not be
// able to send a component's kubelet-client certificate anywhere.
package kubeletaddr

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"kplane/pkg/api"
)

// Host is host:port of node's kubelet: its InternalIP, which must be a
// loopback address, and the port it reports in daemonEndpoints. component
// names the caller in the refusal ("kplane's apiserver only dials …").
func Host(node *api.Node, component string) (string, error) {
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
	if !IsLoopback(internalIP) {
		return "", fmt.Errorf("node %q has InternalIP %s: kplane's %s only dials kubelets on 127.0.0.1 or ::1", node.Name, internalIP, component)
	}
	port := node.Status.DaemonEndpoints.KubeletEndpoint.Port
	if port <= 0 || port > 65535 {
		return "", fmt.Errorf("node %q reports no kubelet port in status.daemonEndpoints.kubeletEndpoint", node.Name)
	}
	return net.JoinHostPort(internalIP, strconv.Itoa(int(port))), nil
}

// IsLoopback accepts exactly the two loopback addresses kplane's kubelets
// listen on.
func IsLoopback(addr string) bool {
	ip := net.ParseIP(addr)
	return ip != nil && (ip.Equal(net.IPv4(127, 0, 0, 1)) || ip.Equal(net.IPv6loopback))
}

// DialContext returns an http.Transport DialContext that connects only to
// a loopback kubelet, within timeout: the second guard behind Host, for an
// address that reaches the transport some other way (a redirect).
func DialContext(timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, _, err := net.SplitHostPort(addr); err != nil || !IsLoopback(host) {
			return nil, fmt.Errorf("refusing to dial %s: not a loopback kubelet", addr)
		}
		d := net.Dialer{Timeout: timeout}
		return d.DialContext(ctx, network, addr)
	}
}
