package iptables

import (
	"crypto/sha256"
	"encoding/base32"

	"kplane/pkg/proxy"
)

// The chains every node has, whatever its Services.
const (
	ChainServices         = "KUBE-SERVICES"
	ChainExternalServices = "KUBE-EXTERNAL-SERVICES"
	ChainNodePorts        = "KUBE-NODEPORTS"
	ChainPostrouting      = "KUBE-POSTROUTING"
	ChainMarkMasq         = "KUBE-MARK-MASQ"
	ChainForward          = "KUBE-FORWARD"
	ChainProxyFirewall    = "KUBE-PROXY-FIREWALL"
	// ChainKubeletFirewall is the kubelet's chain, which kube-proxy
	// creates too: it drops packets to 127.0.0.0/8 from elsewhere.
	ChainKubeletFirewall = "KUBE-FIREWALL"
)

// The prefixes of the per-Service and per-endpoint chains.
const (
	PrefixServiceCluster = "KUBE-SVC-"
	PrefixServiceLocal   = "KUBE-SVL-"
	PrefixFirewall       = "KUBE-FW-"
	PrefixExternal       = "KUBE-EXT-"
	PrefixEndpoint       = "KUBE-SEP-"
)

// MasqueradeMark is the packet mark that asks KUBE-POSTROUTING to
// masquerade: bit 14, upstream's --iptables-masquerade-bit default.
const MasqueradeMark = "0x4000"

// portProtoHash is upstream's hash of a Service port: base32(sha256(name +
// protocol)), 16 characters, so that a chain name stays within iptables'
// 28-character limit.
func portProtoHash(name, protocol string) string {
	sum := sha256.Sum256([]byte(name + protocol))
	return base32.StdEncoding.EncodeToString(sum[:])[:16]
}

// servicePortHash is the hash the KUBE-SVC, KUBE-SVL, KUBE-EXT and KUBE-FW
// chains of p share; a sync computes it once per port.
func servicePortHash(p *proxy.ServicePort) string {
	return portProtoHash(p.Name.String(), p.L4Protocol())
}

// ServiceChain is the KUBE-SVC chain of p: its endpoints under the Cluster
// traffic policy.
func ServiceChain(p *proxy.ServicePort) string {
	return PrefixServiceCluster + servicePortHash(p)
}

// LocalChain is the KUBE-SVL chain of p: its endpoints on this node, for
// the Local traffic policy.
func LocalChain(p *proxy.ServicePort) string {
	return PrefixServiceLocal + servicePortHash(p)
}

// ExternalChain is the KUBE-EXT chain of p, where external traffic enters.
func ExternalChain(p *proxy.ServicePort) string {
	return PrefixExternal + servicePortHash(p)
}

// FirewallChain is the KUBE-FW chain of p (loadBalancerSourceRanges).
func FirewallChain(p *proxy.ServicePort) string {
	return PrefixFirewall + servicePortHash(p)
}

// EndpointChain is the KUBE-SEP chain of endpoint e of p.
func EndpointChain(p *proxy.ServicePort, e proxy.Endpoint) string {
	sum := sha256.Sum256([]byte(p.Name.String() + p.L4Protocol() + e.String()))
	return PrefixEndpoint + base32.StdEncoding.EncodeToString(sum[:])[:16]
}
