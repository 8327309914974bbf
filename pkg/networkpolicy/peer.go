package networkpolicy

import (
	"net/netip"

	"kplane/pkg/api"
)

// peersMatch reports whether one of a rule's peers (its from, or its to)
// matches the other end of the connection; no peers match everyone.
// policyNamespace is the namespace of the policy holding the rule, where
// a podSelector alone looks for pods.
func peersMatch(peers []api.NetworkPolicyPeer, policyNamespace string, other Endpoint) bool {
	if len(peers) == 0 {
		return true
	}
	for i := range peers {
		if peerMatches(&peers[i], policyNamespace, other) {
			return true
		}
	}
	return false
}

// peerMatches reports whether one peer matches an endpoint: an ipBlock
// by the endpoint's address, selectors by its pod (so never a node or an
// address without a pod). Both selectors in one peer must both match.
func peerMatches(peer *api.NetworkPolicyPeer, policyNamespace string, other Endpoint) bool {
	if peer.IPBlock != nil {
		return ipBlockContains(peer.IPBlock, other.IP)
	}
	pod := podOf(other)
	if pod == nil || peer.PodSelector == nil && peer.NamespaceSelector == nil {
		return false
	}
	if peer.NamespaceSelector != nil {
		if !selects(peer.NamespaceSelector, namespaceLabels(other)) {
			return false
		}
	} else if pod.Namespace != policyNamespace {
		return false
	}
	return peer.PodSelector == nil || selects(peer.PodSelector, pod.Labels)
}

// namespaceLabels are the labels of an endpoint's namespace. Without the
// namespace object they are the one label the apiserver gives every
// namespace, its name.
func namespaceLabels(e Endpoint) map[string]string {
	if e.Namespace != nil {
		return e.Namespace.Labels
	}
	return map[string]string{api.LabelMetadataName: e.Pod.Namespace}
}

// ipBlockContains reports whether ip is in the block's CIDR and in none
// of its except ranges. An address or CIDR that does not parse matches
// nothing (the apiserver refuses such CIDRs).
func ipBlockContains(block *api.IPBlock, ip string) bool {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	if !prefixContains(block.CIDR, addr) {
		return false
	}
	for _, except := range block.Except {
		if prefixContains(except, addr) {
			return false
		}
	}
	return true
}

// prefixContains reports whether the CIDR cidr holds addr.
func prefixContains(cidr string, addr netip.Addr) bool {
	prefix, err := netip.ParsePrefix(cidr)
	return err == nil && prefix.Masked().Contains(addr.Unmap())
}
