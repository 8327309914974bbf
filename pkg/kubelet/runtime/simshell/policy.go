package simshell

// This file asks the NetworkPolicies whether a connection from the pod
// gets through, as the node's network plugin would: once connect.go knows
// the destination pod (after kube-proxy's DNAT), package
// pkg/networkpolicy judges the connection by the policies of both ends'
// namespaces. A dropped connection is not refused: the client hears
// nothing and waits for its own timeout (timeout.go).

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/kubelet/podfiles"
	"kplane/pkg/networkpolicy"
)

// droppedError is a packet a NetworkPolicy dropped: no answer comes, and
// the sender waits for its timeout. what names the packet ("DNS query to
// 10.96.0.10:53/UDP").
type droppedError struct {
	what    string
	verdict networkpolicy.Verdict
}

// Error names the packet and the policies that dropped it.
func (e *droppedError) Error() string { return e.what + " " + droppedBy(e.verdict) }

// asDropped returns err's *droppedError, if it is one.
func asDropped(err error) (*droppedError, bool) {
	var dropped *droppedError
	ok := errors.As(err, &dropped)
	return dropped, ok
}

// judge asks the NetworkPolicies of both ends whether a connection from
// the pod to dst on port passes. A failed API read is returned with an
// open verdict: the connection is let through rather than dropped on a
// guess, and curl -v says why.
func (sh *Shell) judge(ctx context.Context, dst networkpolicy.Endpoint, port int32, protocol api.Protocol) (networkpolicy.Verdict, error) {
	conn := networkpolicy.Connection{Source: sh.sourceEndpoint(), Destination: dst, Port: port, Protocol: protocol}
	if sh.env.Cluster == nil {
		return networkpolicy.Evaluate(conn, nil), nil
	}
	var namespaces []string
	for _, e := range []networkpolicy.Endpoint{conn.Source, conn.Destination} {
		if e.Pod != nil && !slices.Contains(namespaces, e.Pod.Namespace) {
			namespaces = append(namespaces, e.Pod.Namespace)
		}
	}
	var policies []*api.NetworkPolicy
	for _, ns := range namespaces {
		list, err := sh.env.Cluster.ListNetworkPolicies(ctx, ns) // its error names the namespace
		if err != nil {
			return networkpolicy.Evaluate(conn, nil), err
		}
		policies = append(policies, list...)
	}
	if len(policies) == 0 {
		return networkpolicy.Evaluate(conn, nil), nil
	}
	// The namespaces' labels matter only to namespaceSelector peers, so
	// they are read only when there are policies.
	for _, e := range []*networkpolicy.Endpoint{&conn.Source, &conn.Destination} {
		if e.Pod == nil {
			continue
		}
		ns, err := sh.env.Cluster.GetNamespace(ctx, e.Pod.Namespace)
		if err != nil {
			return networkpolicy.Evaluate(conn, nil), fmt.Errorf("read namespace %s: %w", e.Pod.Namespace, err)
		}
		e.Namespace = ns
	}
	return networkpolicy.Evaluate(conn, policies), nil
}

// sourceEndpoint is the shell's pod as the other end's policies see it;
// a host-network pod is its node.
func (sh *Shell) sourceEndpoint() networkpolicy.Endpoint {
	return podEndpoint(sh.env.Pod, "")
}

// podEndpoint is a pod at address ip (empty: its first pod IP); a
// host-network pod is its node.
func podEndpoint(pod *api.Pod, ip string) networkpolicy.Endpoint {
	if ip == "" {
		if ips := podfiles.PodIPs(pod); len(ips) > 0 {
			ip = ips[0]
		}
	}
	e := networkpolicy.Endpoint{IP: ip, Pod: pod}
	if pod.Spec.HostNetwork {
		e.Node = pod.Spec.NodeName
	}
	return e
}

// destinationEndpoint is where a connection landed, as policies see it:
// the endpoint kube-proxy chose, or the pod whose address was dialled.
func destinationEndpoint(dest destination) networkpolicy.Endpoint {
	ip := ""
	if dest.route != nil && dest.route.Endpoint != nil {
		ip = dest.route.Endpoint.IP
	}
	return podEndpoint(dest.pod, ip)
}

// The cluster DNS as NetworkPolicies see it. kplane's DNS is a process,
// not a pod, so it stands in for the pods kubeadm's CoreDNS add-on runs:
// namespace kube-system, label k8s-app=kube-dns, container ports dns
// (53/UDP) and dns-tcp (53/TCP), at the kube-dns Service's address. So
// the egress rule kind, Calico and Cilium users add to let DNS out of a
// default-deny namespace (to namespaceSelector kubernetes.io/metadata.name:
// kube-system with podSelector k8s-app: kube-dns, port 53) lets it out
// here too, and a policy with no such rule drops the queries. An ipBlock
// matches the Service IP, where a real plugin sees CoreDNS's pod IP after
// kube-proxy's DNAT.
const (
	clusterDNSNamespace = "kube-system"
	clusterDNSPodName   = "coredns"
)

// clusterDNSEndpoint is the stand-in for the cluster DNS's pod.
func (sh *Shell) clusterDNSEndpoint() networkpolicy.Endpoint {
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: clusterDNSNamespace, Name: clusterDNSPodName,
		Labels: map[string]string{"k8s-app": "kube-dns"}}}
	pod.Spec.Containers = []api.Container{{Name: "coredns", Ports: []api.ContainerPort{
		{Name: "dns", ContainerPort: 53, Protocol: api.ProtocolUDP},
		{Name: "dns-tcp", ContainerPort: 53, Protocol: api.ProtocolTCP},
		{Name: "metrics", ContainerPort: 9153, Protocol: api.ProtocolTCP}}}}
	pod.Status.PodIP = sh.env.ClusterDNS
	return networkpolicy.Endpoint{IP: sh.env.ClusterDNS, Pod: pod}
}

// dnsEgress is the resolver's question: may a query leave the pod for
// the cluster DNS (UDP port 53)? A *droppedError when a policy drops it.
func (sh *Shell) dnsEgress(ctx context.Context) error {
	v, err := sh.judge(ctx, sh.clusterDNSEndpoint(), 53, api.ProtocolUDP)
	if err != nil || v.Allowed() {
		return nil
	}
	return &droppedError{what: fmt.Sprintf("DNS query to %s:53/UDP", sh.env.ClusterDNS), verdict: v}
}

// droppedBy says which policies dropped a connection: those isolating the
// pod at the end that refused it (the source's egress is judged first, as
// the packet leaves it first), none of whose rules allows the connection.
func droppedBy(v networkpolicy.Verdict) string {
	d, direction := v.Ingress, "ingress to"
	if !v.Egress.Allowed {
		d, direction = v.Egress, "egress from"
	}
	return fmt.Sprintf("dropped by %s (%s pod %s/%s: no rule allows this connection)",
		policyNames(d.Isolating), direction, d.Pod.Namespace, d.Pod.Name)
}

// explainPolicies is kplane's addition to curl -v about NetworkPolicies:
// for each end whose pod a policy isolates, the policies that let the
// connection through, or those that dropped it; or why none was checked.
func explainPolicies(std stdio, v networkpolicy.Verdict, err error) {
	if err != nil {
		fmt.Fprintf(std.err, "* kplane: NetworkPolicies not checked (%v); the connection is let through\n", err)
		return
	}
	if !v.Allowed() {
		fmt.Fprintf(std.err, "* kplane: %s\n", droppedBy(v))
		return
	}
	for _, side := range []struct {
		decision  networkpolicy.Decision
		direction string
	}{{v.Egress, "egress from"}, {v.Ingress, "ingress to"}} {
		if d := side.decision; d.Isolated() && len(d.Allowing) > 0 {
			fmt.Fprintf(std.err, "* kplane: allowed by %s (%s pod %s/%s)\n", policyNames(d.Allowing), side.direction, d.Pod.Namespace, d.Pod.Name)
		}
	}
}

// policyNames is "NetworkPolicy ns/name" or "NetworkPolicies ns/a, ns/b".
func policyNames(policies []*api.NetworkPolicy) string {
	names := make([]string, len(policies))
	for i, p := range policies {
		names[i] = p.Namespace + "/" + p.Name
	}
	if len(names) == 1 {
		return "NetworkPolicy " + names[0]
	}
	return "NetworkPolicies " + strings.Join(names, ", ")
}
