// Package networkpolicy decides whether NetworkPolicy objects let one
// connection through: the judgement a network plugin (kindnet, Calico,
// Cilium) compiles into packet filters, made here from the API objects
// alone, for kplane's simulated network, where no packet moves.
//
// Kubernetes stores NetworkPolicies and leaves their enforcement to the
// network plugin; the API's own doc comments (k8s.io/api networking/v1)
// and the "Network Policies" concept page give the semantics this package
// follows:
//
//   - A policy lives in a namespace and applies to the pods of that
//     namespace its spec.podSelector selects (an empty selector: every pod).
//   - A pod is isolated for ingress when some policy that selects it lists
//     Ingress in spec.policyTypes, and for egress when one lists Egress. An
//     empty policyTypes means Ingress, plus Egress when the policy has
//     egress rules (the apiserver defaults it so; Evaluate reads an
//     undefaulted policy the same way). A pod no policy isolates accepts,
//     or sends, everything.
//   - An isolated pod accepts a connection when some rule of some policy
//     that isolates it allows the connection: rules add up across policies,
//     none subtracts. A policy with no rule for its direction allows
//     nothing: that is the "default deny" policy.
//   - A connection must be allowed at both ends: by the egress policies of
//     the source pod and by the ingress policies of the destination pod.
//   - A rule allows a connection when one of its peers matches the other
//     end (empty from/to: any peer) and one of its ports matches the
//     destination port (empty ports: any port).
//   - A peer is a podSelector (pods of the policy's namespace), a
//     namespaceSelector (every pod of the namespaces whose labels match;
//     every namespace has the label kubernetes.io/metadata.name), both in
//     one peer (pods matching podSelector in the namespaces matching
//     namespaceSelector), or an ipBlock: a CIDR minus its except ranges,
//     compared with the other end's IP address.
//   - A port is a number, a range (port to endPort) or a name, which means
//     the destination pod's container port of that name; the protocol
//     defaults to TCP.
//   - A pod cannot block itself: a connection to its own address or to
//     loopback is never filtered. Traffic from the destination pod's own
//     node (the kubelet's probes, a host-network pod there) is always
//     accepted.
//
// Where upstream leaves the answer to the plugin, kplane chooses:
//
//   - Policies are judged after kube-proxy's DNAT, as iptables-based plugins
//     do: a connection to a Service is judged as one to the endpoint pod
//     kube-proxy chose, on the pod's port.
//   - A host-network pod has its node's address and is treated as the node:
//     no policy isolates it, and selectors do not match it (only an ipBlock
//     with the node's address does), as Calico and kindnet treat it.
//   - An ipBlock matches pod addresses as well as outside ones (upstream
//     says only that pod IPs are ephemeral and better selected by label).
//
// The caller reads the objects (the policies of the two ends' namespaces,
// the namespaces' labels) and describes the two ends; Evaluate is a pure
// function of them.
package networkpolicy
