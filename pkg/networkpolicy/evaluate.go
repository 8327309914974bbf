package networkpolicy

import (
	"cmp"
	"net/netip"
	"slices"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
)

// Endpoint is one end of a connection as a network plugin sees it: the
// address on the packets and, when a pod has that address, the pod and its
// namespace.
type Endpoint struct {
	// IP is the address the packets carry: the pod's IP, or an address no
	// pod has (a node, the outside, a Service IP nothing translated).
	IP string
	// Pod is the pod whose address IP is; nil when no pod has it. A
	// host-network pod counts as its node (see Node), not as a pod.
	Pod *api.Pod
	// Namespace is Pod's namespace, whose labels namespaceSelector peers
	// match. nil: its labels are not known, and only the label every
	// namespace has, kubernetes.io/metadata.name, is assumed.
	Namespace *api.Namespace
	// Node names the node when the address is a node's: the node itself or
	// a host-network pod on it. Ingress from a pod's own node is always
	// accepted.
	Node string
}

// Connection is one connection attempt: who opens it, to whom, on which
// port.
type Connection struct {
	Source, Destination Endpoint
	// Port is the destination port the destination pod sees: after
	// kube-proxy's DNAT, the Service's targetPort, not its port.
	Port int32
	// Protocol is TCP (the default when empty), UDP or SCTP.
	Protocol api.Protocol
}

// Decision is what the policies of one end decided for one direction:
// the source pod's egress or the destination pod's ingress.
type Decision struct {
	// Pod is the pod whose policies decided; nil when that end is no pod
	// (nothing to isolate).
	Pod *api.Pod
	// Isolating are the policies that select Pod for this direction, sorted
	// by name; none: Pod is not isolated and everything is allowed.
	Isolating []*api.NetworkPolicy
	// Allowing are those of Isolating with a rule that allows the
	// connection; Allowed is whether there is one (or nothing isolates).
	Allowing []*api.NetworkPolicy
	Allowed  bool
}

// Isolated reports whether some policy selects the pod for this direction,
// so that only what some rule allows gets through.
func (d Decision) Isolated() bool { return len(d.Isolating) > 0 }

// Verdict is the judgement on one connection: what the source's egress
// policies and the destination's ingress policies each decided.
type Verdict struct {
	Egress, Ingress Decision
	// Exempt is set when no policy can filter the connection at all: a pod
	// talking to itself or to loopback.
	Exempt bool
}

// Allowed reports whether the connection gets through: both ends allow it.
func (v Verdict) Allowed() bool { return v.Egress.Allowed && v.Ingress.Allowed }

// Evaluate judges conn under policies, which may be those of any
// namespaces: each end is judged by the policies of its own pod's
// namespace. It reads nothing but its arguments.
func Evaluate(conn Connection, policies []*api.NetworkPolicy) Verdict {
	if conn.Protocol == "" {
		conn.Protocol = api.ProtocolTCP
	}
	if talksToItself(conn) {
		allowed := Decision{Allowed: true}
		return Verdict{Egress: allowed, Ingress: allowed, Exempt: true}
	}
	sorted := slices.Clone(policies)
	slices.SortFunc(sorted, func(a, b *api.NetworkPolicy) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	v := Verdict{
		Egress:  decide(api.PolicyTypeEgress, conn.Source, conn, sorted),
		Ingress: decide(api.PolicyTypeIngress, conn.Destination, conn, sorted),
	}
	if fromOwnNode(conn) {
		v.Ingress.Allowed = true
	}
	return v
}

// talksToItself reports whether a connection never leaves its pod: to
// loopback, to its own address, or to itself through a Service.
func talksToItself(conn Connection) bool {
	if addr, err := netip.ParseAddr(conn.Destination.IP); err == nil && addr.IsLoopback() {
		return true
	}
	if conn.Source.IP != "" && conn.Source.IP == conn.Destination.IP {
		return true
	}
	src, dst := conn.Source.Pod, conn.Destination.Pod
	return src != nil && dst != nil && src.Namespace == dst.Namespace && src.Name == dst.Name
}

// fromOwnNode reports whether the source is the destination pod's node,
// whose traffic the pod always accepts (upstream's "OR if the traffic
// source is the pod's local node"): the kubelet's probes must get through.
func fromOwnNode(conn Connection) bool {
	dst := podOf(conn.Destination)
	return dst != nil && conn.Source.Node != "" && conn.Source.Node == dst.Spec.NodeName
}

// podOf is the pod at an endpoint as policies see it: nil for no pod and
// for a host-network pod, which has its node's address and counts as the
// node.
func podOf(e Endpoint) *api.Pod {
	if e.Pod == nil || e.Pod.Spec.HostNetwork {
		return nil
	}
	return e.Pod
}

// decide judges one direction at one end: the egress of the source, or
// the ingress of the destination, whose pod is subject.
func decide(direction api.PolicyType, subject Endpoint, conn Connection, policies []*api.NetworkPolicy) Decision {
	pod := podOf(subject)
	if pod == nil {
		return Decision{Allowed: true}
	}
	d := Decision{Pod: pod}
	for _, p := range policies {
		if p.Namespace != pod.Namespace || !restricts(p, direction) || !selects(&p.Spec.PodSelector, pod.Labels) {
			continue
		}
		d.Isolating = append(d.Isolating, p)
		if policyAllows(p, direction, conn) {
			d.Allowing = append(d.Allowing, p)
		}
	}
	d.Allowed = !d.Isolated() || len(d.Allowing) > 0
	return d
}

// restricts reports whether a policy isolates the pods it selects in
// direction. An empty policyTypes reads as the apiserver defaults it:
// Ingress always, Egress when the policy has egress rules.
func restricts(p *api.NetworkPolicy, direction api.PolicyType) bool {
	if len(p.Spec.PolicyTypes) > 0 {
		return slices.Contains(p.Spec.PolicyTypes, direction)
	}
	return direction == api.PolicyTypeIngress || len(p.Spec.Egress) > 0
}

// policyAllows reports whether one of the policy's rules for direction
// allows conn.
func policyAllows(p *api.NetworkPolicy, direction api.PolicyType, conn Connection) bool {
	if direction == api.PolicyTypeIngress {
		for _, rule := range p.Spec.Ingress {
			if peersMatch(rule.From, p.Namespace, conn.Source) && portsMatch(rule.Ports, conn) {
				return true
			}
		}
		return false
	}
	for _, rule := range p.Spec.Egress {
		if peersMatch(rule.To, p.Namespace, conn.Destination) && portsMatch(rule.Ports, conn) {
			return true
		}
	}
	return false
}

// selects reports whether a label selector selects labels; a selector
// the apiserver should have refused selects nothing.
func selects(selector *api.LabelSelector, set map[string]string) bool {
	s, err := labels.FromLabelSelector(selector)
	return err == nil && s.Matches(set)
}
