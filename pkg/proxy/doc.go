// Package proxy is kplane's kube-proxy model: what one node's kube-proxy
// knows about the cluster's Services once it has read them and their
// EndpointSlices, reduced to the shape every proxy mode works from.
//
// Upstream kube-proxy keeps a ServicePortMap (one entry per Service port:
// its ClusterIP, NodePort, external and load-balancer IPs, affinity and
// traffic policies) and an EndpointsMap (the endpoints of each Service
// port, merged from all its EndpointSlices), and on every sync each mode
// (iptables, nftables, IPVS) turns them into its own rules. kplane does the
// same in two steps:
//
//   - Build (model.go) turns Services and EndpointSlices into a State: one
//     ServicePort per Service port, with its endpoints already sorted into
//     the ones this node would use for cluster-wide and for node-local
//     traffic (categorize.go, upstream's pkg/proxy/topology.go).
//   - The renderers in pkg/proxy/iptables, pkg/proxy/nftables and
//     pkg/proxy/ipvs each turn a State into the text `iptables-save`,
//     `nft list ruleset` and `ipvsadm -Ln` would print on that node.
//
// Nothing here touches the kernel: kplane never programs a rule and never
// dials a Service or pod IP. The rules are computed so that a student can
// read them, and so that the kubelet's simulated shell can ask "where would
// this connection go" (pkg/proxy/route) and get the answer the rules give.
//
// Upstream: pkg/proxy/serviceport.go, pkg/proxy/endpoint.go,
// pkg/proxy/endpointslicecache.go and pkg/proxy/topology.go.
package proxy
