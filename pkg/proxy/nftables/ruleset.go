// Package nftables prints the ruleset upstream kube-proxy's nftables mode
// (pkg/proxy/nftables/proxier.go) would program on a node, as
// `nft list ruleset` shows it.
//
// Where the iptables mode walks a packet through one rule per Service,
// the nftables mode looks the destination up once: the map service-ips
// takes "ip . protocol . port" to a verdict, "goto service-<hash>-ns/svc/
// tcp/port", and that chain picks an endpoint with one rule,
//
//	numgen random mod 3 vmap { 0 : goto endpoint-…, 1 : goto endpoint-…, 2 : goto endpoint-… }
//
// a random number and a verdict map instead of a cascade of probability
// matches. Everything lives in one table, `ip kube-proxy`, which kube-proxy
// owns alone. Names are upstream's: an 8-character base32 sha256 hash, then
// "namespace/name/protocol/port" (and "__ip/port" for an endpoint).
package nftables

import (
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"strconv"
	"strings"

	"kplane/pkg/proxy"
)

// chainNameBaseLengthMax is upstream's limit on the hashed part of a name.
const chainNameBaseLengthMax = 240

func hashAndTruncate(name string) string {
	sum := sha256.Sum256([]byte(name))
	name = base32.StdEncoding.EncodeToString(sum[:])[:8] + "-" + name
	if len(name) > chainNameBaseLengthMax {
		name = name[:chainNameBaseLengthMax-3] + "..."
	}
	return name
}

// portBase is the part of a Service port's chain names after the prefix
// (service-, local-, external-, firewall-); a sync computes it once per port.
func portBase(p *proxy.ServicePort) string {
	return hashAndTruncate(fmt.Sprintf("%s/%s/%s/%s", p.Name.Namespace, p.Name.Name, p.L4Protocol(), p.Name.Port))
}

func endpointBase(p *proxy.ServicePort, e proxy.Endpoint) string {
	return hashAndTruncate(fmt.Sprintf("%s/%s/%s/%s__%s/%d", p.Name.Namespace, p.Name.Name, p.L4Protocol(), p.Name.Port, e.IP, e.Port))
}

// ServiceChain is the chain of p's endpoints under the Cluster policy.
func ServiceChain(p *proxy.ServicePort) string { return "service-" + portBase(p) }

// LocalChain is the chain of p's endpoints on this node (Local policy).
func LocalChain(p *proxy.ServicePort) string { return "local-" + portBase(p) }

// ExternalChain is where p's external traffic enters.
func ExternalChain(p *proxy.ServicePort) string { return "external-" + portBase(p) }

// FirewallChain applies p's loadBalancerSourceRanges.
func FirewallChain(p *proxy.ServicePort) string { return "firewall-" + portBase(p) }

// EndpointChain DNATs to endpoint e of p.
func EndpointChain(p *proxy.ServicePort, e proxy.Endpoint) string {
	return "endpoint-" + endpointBase(p, e)
}

// AffinitySet remembers the clients of endpoint e (ClientIP affinity).
func AffinitySet(p *proxy.ServicePort, e proxy.Endpoint) string {
	return "affinity-" + endpointBase(p, e)
}

// MasqueradeMark is the mark asking for masquerade (as the iptables mode).
const MasqueradeMark = "0x00004000"

// chain is one chain being written.
type chain struct {
	name  string
	head  string // "type nat hook prerouting priority dstnat; policy accept;"
	rules []string
}

// container is a set or map with its elements.
type container struct {
	kind, name, typ, flags, timeout, comment string
	elements                                 []string
}

// Ruleset is the `ip kube-proxy` table for one State.
type Ruleset struct {
	containers []*container
	byName     map[string]*container
	chains     []*chain
}

func (rs *Ruleset) addContainer(c *container) *container {
	rs.containers = append(rs.containers, c)
	rs.byName[c.name] = c
	return c
}

func (rs *Ruleset) element(name, element string) {
	rs.byName[name].elements = append(rs.byName[name].elements, element)
}

func (rs *Ruleset) chain(name, head string, rules ...string) *chain {
	c := &chain{name: name, head: head, rules: rules}
	rs.chains = append(rs.chains, c)
	return c
}

// Compute returns the table for st, following upstream's setupNFTables and
// syncProxyRules.
func Compute(st *proxy.State) *Ruleset {
	rs := &Ruleset{byName: map[string]*container{}}
	rs.base(st)
	for _, p := range st.Ports {
		rs.servicePort(st, p)
	}
	return rs
}

// base writes the sets, maps and chains every node has.
func (rs *Ruleset) base(st *proxy.State) {
	rs.addContainer(&container{kind: "set", name: "cluster-ips", typ: "ipv4_addr", comment: "Active ClusterIPs"})
	nodeports := rs.addContainer(&container{kind: "set", name: "nodeport-ips", typ: "ipv4_addr", comment: "IPs that accept NodePort traffic"})
	nodeports.elements = append(nodeports.elements, st.IPs...)
	rs.addContainer(&container{kind: "map", name: "firewall-ips", typ: "ipv4_addr . inet_proto . inet_service : verdict", comment: "destinations that are subject to LoadBalancerSourceRanges"})
	rs.addContainer(&container{kind: "map", name: "no-endpoint-nodeports", typ: "inet_proto . inet_service : verdict", comment: "vmap to drop or reject packets to service nodeports with no endpoints"})
	rs.addContainer(&container{kind: "map", name: "no-endpoint-services", typ: "ipv4_addr . inet_proto . inet_service : verdict", comment: "vmap to drop or reject packets to services with no endpoints"})
	rs.addContainer(&container{kind: "map", name: "service-ips", typ: "ipv4_addr . inet_proto . inet_service : verdict", comment: "ClusterIP, ExternalIP and LoadBalancer IP traffic"})
	rs.addContainer(&container{kind: "map", name: "service-nodeports", typ: "inet_proto . inet_service : verdict", comment: "NodePort traffic"})

	clusterIPsCheck := []string{`ip daddr @cluster-ips reject comment "Reject traffic to invalid ports of ClusterIPs"`}
	if st.ServiceCIDR != "" {
		clusterIPsCheck = append(clusterIPsCheck, `ip daddr { `+st.ServiceCIDR+` } drop comment "Drop traffic to unallocated ClusterIPs"`)
	}
	rs.chain("cluster-ips-check", "", clusterIPsCheck...)
	rs.chain("filter-prerouting-pre-dnat", "type filter hook prerouting priority dstnat - 10; policy accept;", "ct state new jump firewall-check")
	rs.chain("filter-output-pre-dnat", "type filter hook output priority dstnat - 10; policy accept;", "ct state new jump firewall-check")
	rs.chain("filter-forward", "type filter hook forward priority filter; policy accept;",
		"ct state new jump service-endpoints-check", "ct state new jump cluster-ips-check")
	rs.chain("filter-input", "type filter hook input priority filter; policy accept;",
		"ct state new jump nodeport-endpoints-check", "ct state new jump service-endpoints-check")
	rs.chain("filter-output", "type filter hook output priority filter; policy accept;",
		"ct state new jump service-endpoints-check", "ct state new jump cluster-ips-check")
	rs.chain("firewall-check", "", "ip daddr . meta l4proto . th dport vmap @firewall-ips")
	rs.chain("mark-for-masquerade", "", "meta mark set meta mark | "+MasqueradeMark)
	rs.chain("masquerading", "",
		"meta mark & "+MasqueradeMark+" == 0x00000000 return",
		"meta mark set meta mark ^ "+MasqueradeMark,
		"masquerade fully-random")
	rs.chain("nat-output", "type nat hook output priority dstnat; policy accept;", "jump services")
	rs.chain("nat-postrouting", "type nat hook postrouting priority srcnat; policy accept;", "jump masquerading")
	rs.chain("nat-prerouting", "type nat hook prerouting priority dstnat; policy accept;", "jump services")
	rs.chain("nodeport-endpoints-check", "", "ip daddr @nodeport-ips meta l4proto . th dport vmap @no-endpoint-nodeports")
	rs.chain("reject-chain", `comment "helper for @no-endpoint-services / @no-endpoint-nodeports"`, "reject")
	rs.chain("services", "",
		"ip daddr . meta l4proto . th dport vmap @service-ips",
		"ip daddr @nodeport-ips meta l4proto . th dport vmap @service-nodeports")
	rs.chain("service-endpoints-check", "", "ip daddr . meta l4proto . th dport vmap @no-endpoint-services")
}

// servicePort writes one Service port's chains and map elements, as
// upstream's syncProxyRules does for nftables.
func (rs *Ruleset) servicePort(st *proxy.State, p *proxy.ServicePort) {
	name, proto, port := p.Name.String(), p.L4Protocol(), strconv.Itoa(int(p.Port))
	base := portBase(p)
	clusterChain, localChain, externalChain, fwChain := "service-"+base, "local-"+base, "external-"+base, "firewall-"+base
	usesCluster := len(p.ClusterEndpoints) > 0 && p.UsesClusterEndpoints()
	usesLocal := len(p.LocalEndpoints) > 0 && p.UsesLocalEndpoints()
	internalChain, hasInternal := clusterChain, p.HasEndpoints
	if p.InternalPolicyLocal {
		internalChain, hasInternal = localChain, hasInternal && len(p.LocalEndpoints) > 0
	}
	externalPolicyChain, hasExternal := clusterChain, p.HasEndpoints
	if p.ExternalPolicyLocal {
		externalPolicyChain, hasExternal = localChain, hasExternal && len(p.LocalEndpoints) > 0
	}
	usesExternal := p.HasEndpoints && p.ExternallyAccessible()
	// Unlike iptables, the source ranges are checked before DNAT, in
	// filter-prerouting-pre-dnat (firewall-ips); service-ips sends the
	// load-balancer IP to the external chain like any external IP.
	usesFW := p.HasEndpoints && len(p.LoadBalancerIPs) > 0 && len(p.LoadBalancerSourceRanges) > 0
	internalVerdict, externalVerdict := "", ""
	if !p.HasEndpoints {
		internalVerdict, externalVerdict = "goto reject-chain", "goto reject-chain"
	} else {
		if !hasInternal {
			internalVerdict = "drop"
		}
		if !hasExternal {
			externalVerdict = "drop"
		}
	}
	comment := ` comment "` + name + `"`

	rs.element("cluster-ips", p.ClusterIP)
	if hasInternal {
		rs.element("service-ips", p.ClusterIP+" . "+proto+" . "+port+" : goto "+internalChain)
	} else {
		rs.element("no-endpoint-services", p.ClusterIP+" . "+proto+" . "+port+comment+" : "+internalVerdict)
	}
	for _, ip := range p.ExternalIPs {
		if p.HasEndpoints {
			rs.element("service-ips", ip+" . "+proto+" . "+port+" : goto "+externalChain)
		}
		if !hasExternal {
			rs.element("no-endpoint-services", ip+" . "+proto+" . "+port+comment+" : "+externalVerdict)
		}
	}
	for _, ip := range p.LoadBalancerIPs {
		if p.HasEndpoints {
			rs.element("service-ips", ip+" . "+proto+" . "+port+" : goto "+externalChain)
		}
		if usesFW {
			rs.element("firewall-ips", ip+" . "+proto+" . "+port+" : goto "+fwChain)
		}
		if !hasExternal {
			rs.element("no-endpoint-services", ip+" . "+proto+" . "+port+comment+" : "+externalVerdict)
		}
	}
	if p.NodePort != 0 {
		nodePort := strconv.Itoa(int(p.NodePort))
		if p.HasEndpoints {
			rs.element("service-nodeports", proto+" . "+nodePort+" : goto "+externalChain)
		}
		if !hasExternal {
			rs.element("no-endpoint-nodeports", proto+" . "+nodePort+comment+" : "+externalVerdict)
		}
	}

	if usesCluster {
		rs.serviceChain(st, p, clusterChain, p.ClusterEndpoints, internalChain == clusterChain && hasInternal)
	}
	if usesLocal {
		rs.serviceChain(st, p, localChain, p.LocalEndpoints, internalChain == localChain && hasInternal)
	}
	if usesExternal {
		c := rs.chain(externalChain, "")
		if !p.ExternalPolicyLocal {
			c.rules = append(c.rules, "jump mark-for-masquerade")
		} else {
			if st.ClusterCIDR != "" {
				c.rules = append(c.rules, "ip saddr "+st.ClusterCIDR+" goto "+clusterChain+` comment "short-circuit pod traffic"`)
			}
			c.rules = append(c.rules,
				`fib saddr type local jump mark-for-masquerade comment "masquerade local traffic"`,
				"fib saddr type local goto "+clusterChain+` comment "short-circuit local traffic"`)
		}
		if hasExternal {
			c.rules = append(c.rules, "goto "+externalPolicyChain)
		}
	}
	for _, e := range p.Reachable {
		c := rs.chain(EndpointChain(p, e), "", "ip saddr "+e.IP+" jump mark-for-masquerade")
		if p.ClientIPAffinity {
			c.rules = append(c.rules, "update @"+AffinitySet(p, e)+" { ip saddr }")
		}
		c.rules = append(c.rules, "meta l4proto "+proto+" dnat to "+e.String())
	}
	if usesFW {
		rs.chain(fwChain, "", "ip saddr != { "+strings.Join(p.LoadBalancerSourceRanges, ", ")+" } drop")
	}
}

// serviceChain writes a service- or local- chain: the masquerade rule for
// traffic from outside the pod network (when ClusterIP traffic comes here),
// the affinity lookups, and the random dispatch.
func (rs *Ruleset) serviceChain(st *proxy.State, p *proxy.ServicePort, name string, endpoints []proxy.Endpoint, internal bool) {
	c := rs.chain(name, "")
	if internal && st.ClusterCIDR != "" {
		c.rules = append(c.rules, "ip daddr "+p.ClusterIP+" ip saddr != "+st.ClusterCIDR+" jump mark-for-masquerade")
	}
	if p.ClientIPAffinity {
		for _, e := range endpoints {
			set := AffinitySet(p, e)
			if rs.byName[set] == nil {
				rs.addContainer(&container{kind: "set", name: set, typ: "ipv4_addr", flags: "dynamic,timeout",
					timeout: strconv.Itoa(p.StickySeconds) + "s"})
			}
			c.rules = append(c.rules, "ip saddr @"+set+" goto "+EndpointChain(p, e))
		}
	}
	verdicts := make([]string, len(endpoints))
	for i, e := range endpoints {
		verdicts[i] = strconv.Itoa(i) + " : goto " + EndpointChain(p, e)
	}
	c.rules = append(c.rules, "numgen random mod "+strconv.Itoa(len(endpoints))+" vmap { "+strings.Join(verdicts, ", ")+" }")
}

// List returns the table as `nft list ruleset` prints it.
func (rs *Ruleset) List() string {
	return rs.list(nil)
}

// ListService returns only the chains and elements of Service
// namespace/name, in the same shape.
func (rs *Ruleset) ListService(namespace, name string) string {
	needle := "-" + namespace + "/" + name + "/"
	return rs.list(func(s string) bool {
		return strings.Contains(s, needle) || strings.Contains(s, `"`+namespace+"/"+name+":") || strings.Contains(s, `"`+namespace+"/"+name+`"`)
	})
}

func (rs *Ruleset) list(keep func(string) bool) string {
	var b strings.Builder
	b.WriteString("table ip kube-proxy {\n\tcomment \"rules for kube-proxy\"\n")
	for _, c := range rs.containers {
		elements := c.elements
		if keep != nil {
			elements = nil
			for _, e := range c.elements {
				if keep(e) {
					elements = append(elements, e)
				}
			}
			if len(elements) == 0 && !keep(c.name) {
				continue
			}
		}
		fmt.Fprintf(&b, "\n\t%s %s {\n\t\ttype %s\n", c.kind, c.name, c.typ)
		if c.flags != "" {
			fmt.Fprintf(&b, "\t\tflags %s\n", c.flags)
		}
		if c.timeout != "" {
			fmt.Fprintf(&b, "\t\ttimeout %s\n", c.timeout)
		}
		if c.comment != "" {
			fmt.Fprintf(&b, "\t\tcomment %q\n", c.comment)
		}
		if len(elements) > 0 {
			b.WriteString("\t\telements = { ")
			b.WriteString(strings.Join(elements, ",\n\t\t\t     "))
			b.WriteString(" }\n")
		}
		b.WriteString("\t}\n")
	}
	for _, c := range rs.chains {
		if keep != nil && !keep(c.name) {
			continue
		}
		fmt.Fprintf(&b, "\n\tchain %s {\n", c.name)
		if c.head != "" {
			fmt.Fprintf(&b, "\t\t%s\n", c.head)
		}
		for _, r := range c.rules {
			fmt.Fprintf(&b, "\t\t%s\n", r)
		}
		b.WriteString("\t}\n")
	}
	b.WriteString("}\n")
	return b.String()
}
