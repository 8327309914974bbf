// Package iptables computes the rules upstream kube-proxy's iptables mode
// (pkg/proxy/iptables/proxier.go, syncProxyRules) would program on a node,
// prints them as `iptables-save` does, and walks them the way the kernel
// would for one new connection.
//
// How a packet to a Service travels through the nat table:
//
//	PREROUTING / OUTPUT
//	  → KUBE-SERVICES          one rule per ClusterIP, external IP and
//	                           load-balancer IP; the last rule sends
//	                           packets for a local address to KUBE-NODEPORTS
//	  → KUBE-SVC-<hash>        one per Service port (Cluster policy): a rule
//	                           per endpoint with `-m statistic --mode random
//	                           --probability 1/n`, n the endpoints left, so
//	                           each endpoint is chosen with equal chance;
//	                           the last rule matches unconditionally
//	  → KUBE-SEP-<hash>        one per endpoint: mark hairpin traffic for
//	                           masquerade, then DNAT to the pod's ip:port
//
// KUBE-EXT-<hash> is where external traffic (NodePort, external and
// load-balancer IPs) enters: it masquerades (Cluster policy) or keeps the
// client's address (Local policy, which uses KUBE-SVL-<hash>, the node's
// own endpoints only). KUBE-FW-<hash> applies loadBalancerSourceRanges.
// With sessionAffinity ClientIP each KUBE-SEP records the client in a
// `recent` list and KUBE-SVC first sends known clients back to their
// endpoint. A Service without endpoints has no nat chains at all: the
// filter table's KUBE-SERVICES rejects its packets instead.
//
// The chain names end in the first 16 characters of the base32 of the
// sha256 of "ns/name:port" + protocol (+ "ip:port" for KUBE-SEP), exactly as
// upstream computes them, so they match what a real node shows.
//
// Chains are printed in the order upstream's own tests print them (the
// built-in chains, KUBE-NODEPORTS and KUBE-SERVICES first, then the rest
// sorted), and each chain's rules in the order they are evaluated.
package iptables
