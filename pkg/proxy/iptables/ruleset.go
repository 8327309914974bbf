package iptables

import (
	"fmt"
	"strings"

	"kplane/pkg/proxy"
)

// Ruleset is the filter and nat tables kube-proxy's iptables mode would
// program for one State.
type Ruleset struct {
	Filter, NAT *Table
	// state is what the rules were computed from.
	state *proxy.State
	// largeCluster leaves the comments out of the per-endpoint rules, as
	// upstream does above LargeClusterEndpoints.
	largeCluster bool
}

// LargeClusterEndpoints is upstream's largeClusterEndpointsThreshold: with
// more endpoints than this, kube-proxy stops writing comments on the
// KUBE-SEP rules and the KUBE-SVC → KUBE-SEP jumps, which shrinks the
// table by 40 % and more, at the cost of readability.
const LargeClusterEndpoints = 1000

// jump is a rule kube-proxy makes sure a built-in chain has, sending
// packets into its own chains (upstream's iptablesJumpChains).
type jump struct {
	table, from, to, comment string
	extra                    string
}

// jumps are upstream's iptablesJumpChains and, last, the kubelet's
// KUBE-FIREWALL jumps. Upstream inserts each at the top of its built-in
// chain, so a chain shows them in reverse; jumpRules does the same.
var jumps = []jump{
	{"filter", "INPUT", ChainExternalServices, "kubernetes externally-visible service portals", "-m conntrack --ctstate NEW"},
	{"filter", "FORWARD", ChainExternalServices, "kubernetes externally-visible service portals", "-m conntrack --ctstate NEW"},
	{"filter", "INPUT", ChainNodePorts, "kubernetes health check service ports", ""},
	{"filter", "FORWARD", ChainServices, "kubernetes service portals", "-m conntrack --ctstate NEW"},
	{"filter", "OUTPUT", ChainServices, "kubernetes service portals", "-m conntrack --ctstate NEW"},
	{"filter", "FORWARD", ChainForward, "kubernetes forwarding rules", ""},
	{"filter", "INPUT", ChainProxyFirewall, "kubernetes load balancer firewall", "-m conntrack --ctstate NEW"},
	{"filter", "OUTPUT", ChainProxyFirewall, "kubernetes load balancer firewall", "-m conntrack --ctstate NEW"},
	{"filter", "FORWARD", ChainProxyFirewall, "kubernetes load balancer firewall", "-m conntrack --ctstate NEW"},
	{"nat", "OUTPUT", ChainServices, "kubernetes service portals", ""},
	{"nat", "PREROUTING", ChainServices, "kubernetes service portals", ""},
	{"nat", "POSTROUTING", ChainPostrouting, "kubernetes postrouting rules", ""},
}

var kubeletJumps = []jump{
	{"filter", "INPUT", ChainKubeletFirewall, "", ""},
	{"filter", "OUTPUT", ChainKubeletFirewall, "", ""},
}

// Compute returns the rules for st, following upstream's syncProxyRules
// rule for rule (with --masquerade-all off, localhost NodePorts on, no
// nfacct counters, and the local-traffic detector from --cluster-cidr).
func Compute(st *proxy.State) *Ruleset {
	rs := &Ruleset{
		Filter: newTable("filter", "INPUT", "FORWARD", "OUTPUT"),
		NAT:    newTable("nat", "PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"),
		state:  st,
	}
	rs.largeCluster = st.EndpointCount() > LargeClusterEndpoints
	rs.jumpRules()
	rs.fixedRules()
	probabilities := probabilityCache{}
	for _, p := range st.Ports {
		rs.servicePortRules(p, st.ClusterCIDR, probabilities)
	}
	rs.tailRules()
	return rs
}

func (rs *Ruleset) table(name string) *Table {
	if name == "nat" {
		return rs.NAT
	}
	return rs.Filter
}

func (rs *Ruleset) jumpRules() {
	for i := len(jumps) - 1; i >= 0; i-- {
		rs.addJump(jumps[i])
	}
	for _, j := range kubeletJumps {
		rs.addJump(j)
	}
}

func (rs *Ruleset) addJump(j jump) {
	var ms []Match
	if j.extra != "" {
		ms = append(ms, Raw{j.extra})
	}
	if j.comment != "" {
		ms = append(ms, Comment{j.comment})
	}
	rs.table(j.table).add(Rule{Chain: j.from, Matches: ms, Target: j.to})
}

// fixedRules are the chains and rules that do not depend on Services.
func (rs *Ruleset) fixedRules() {
	for _, c := range []string{ChainServices, ChainExternalServices, ChainForward, ChainNodePorts, ChainProxyFirewall, ChainKubeletFirewall} {
		rs.Filter.declare(c)
	}
	for _, c := range []string{ChainServices, ChainNodePorts, ChainPostrouting, ChainMarkMasq} {
		rs.NAT.declare(c)
	}
	mark := MasqueradeMark + "/" + MasqueradeMark
	rs.NAT.add(Rule{Chain: ChainPostrouting, Matches: []Match{Raw{"-m mark ! --mark " + mark}}, Target: "RETURN"})
	rs.NAT.add(Rule{Chain: ChainPostrouting, Target: "MARK", TargetArgs: []string{"--xor-mark", MasqueradeMark}})
	rs.NAT.add(Rule{Chain: ChainPostrouting, Matches: []Match{Comment{"kubernetes service traffic requiring SNAT"}},
		Target: "MASQUERADE", TargetArgs: []string{"--random-fully"}})
	rs.NAT.add(Rule{Chain: ChainMarkMasq, Target: "MARK", TargetArgs: []string{"--or-mark", MasqueradeMark}})
	// Kube-proxy's use of route_localnet for localhost NodePorts opens a
	// hole this rule closes (upstream issue 90259).
	rs.Filter.add(Rule{Chain: ChainKubeletFirewall, Matches: []Match{
		Comment{"block incoming localnet connections"},
		Destination{Addr: "127.0.0.0/8"}, Source{Addr: "127.0.0.0/8", Not: true},
		Raw{"-m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT"},
	}, Target: "DROP"})
}

// tailRules close KUBE-SERVICES with the jump to KUBE-NODEPORTS (which
// must come last) and fill KUBE-FORWARD.
func (rs *Ruleset) tailRules() {
	rs.NAT.add(Rule{Chain: ChainServices, Matches: []Match{
		Comment{"kubernetes service nodeports; NOTE: this must be the last rule in this chain"},
		AddrType{Type: "LOCAL"},
	}, Target: ChainNodePorts})
	rs.Filter.add(Rule{Chain: ChainForward, Matches: []Match{Raw{"-m conntrack --ctstate INVALID"}}, Target: "DROP"})
	rs.Filter.add(Rule{Chain: ChainForward, Matches: []Match{
		Comment{"kubernetes forwarding rules"}, Raw{"-m mark --mark " + MasqueradeMark + "/" + MasqueradeMark},
	}, Target: "ACCEPT"})
	rs.Filter.add(Rule{Chain: ChainForward, Matches: []Match{
		Comment{"kubernetes forwarding conntrack rule"}, Raw{"-m conntrack --ctstate RELATED,ESTABLISHED"},
	}, Target: "ACCEPT"})
}

// servicePortRules writes everything one Service port needs, in
// syncProxyRules' order.
func (rs *Ruleset) servicePortRules(p *proxy.ServicePort, clusterCIDR string, probabilities probabilityCache) {
	name := p.Name.String()
	proto := Protocol{p.L4Protocol()}
	hash := servicePortHash(p)
	clusterChain, localChain := PrefixServiceCluster+hash, PrefixServiceLocal+hash
	usesClusterChain := len(p.ClusterEndpoints) > 0 && p.UsesClusterEndpoints()
	usesLocalChain := len(p.LocalEndpoints) > 0 && p.UsesLocalEndpoints()

	internalChain, hasInternal := clusterChain, p.HasEndpoints
	if p.InternalPolicyLocal {
		internalChain = localChain
		hasInternal = hasInternal && len(p.LocalEndpoints) > 0
	}
	externalPolicyChain, hasExternal := clusterChain, p.HasEndpoints
	if p.ExternalPolicyLocal {
		externalPolicyChain = localChain
		hasExternal = hasExternal && len(p.LocalEndpoints) > 0
	}
	externalChain := PrefixExternal + hash
	usesExternalChain := p.HasEndpoints && p.ExternallyAccessible()
	lbChain, fwChain := externalChain, PrefixFirewall+hash
	usesFWChain := p.HasEndpoints && len(p.LoadBalancerIPs) > 0 && len(p.LoadBalancerSourceRanges) > 0
	if usesFWChain {
		lbChain = fwChain
	}

	// What the filter table does with packets no nat rule took: REJECT
	// when the Service has no endpoints at all, DROP when the policy is
	// Local and this node has none.
	var internalFilter, internalComment, externalFilter, externalComment string
	if !p.HasEndpoints {
		internalFilter, internalComment = "REJECT", name+" has no endpoints"
		externalFilter, externalComment = internalFilter, internalComment
	} else {
		if !hasInternal {
			internalFilter, internalComment = "DROP", name+" has no local endpoints"
		}
		if !hasExternal {
			externalFilter, externalComment = "DROP", name+" has no local endpoints"
		}
	}
	clusterIP := []Match{proto, Destination{Addr: p.ClusterIP}, DestinationPort{p.Port}}
	if hasInternal {
		rs.NAT.add(Rule{Chain: ChainServices, Matches: append([]Match{Comment{name + " cluster IP"}}, clusterIP...), Target: internalChain})
	} else {
		rs.Filter.add(Rule{Chain: ChainServices, Matches: append([]Match{Comment{internalComment}}, clusterIP...), Target: internalFilter})
	}
	for _, ip := range p.ExternalIPs {
		dst := []Match{proto, Destination{Addr: ip}, DestinationPort{p.Port}}
		if p.HasEndpoints {
			rs.NAT.add(Rule{Chain: ChainServices, Matches: append([]Match{Comment{name + " external IP"}}, dst...), Target: externalChain})
		}
		if !hasExternal {
			rs.Filter.add(Rule{Chain: ChainExternalServices, Matches: append([]Match{Comment{externalComment}}, dst...), Target: externalFilter})
		}
	}
	for _, ip := range p.LoadBalancerIPs {
		dst := []Match{proto, Destination{Addr: ip}, DestinationPort{p.Port}}
		if p.HasEndpoints {
			rs.NAT.add(Rule{Chain: ChainServices, Matches: append([]Match{Comment{name + " loadbalancer IP"}}, dst...), Target: lbChain})
		}
		if usesFWChain {
			rs.Filter.add(Rule{Chain: ChainProxyFirewall, Matches: append([]Match{
				Comment{fmt.Sprintf("%s traffic not accepted by %s", name, fwChain)}}, dst...), Target: "DROP"})
		}
	}
	if !hasExternal {
		for _, ip := range p.LoadBalancerIPs {
			rs.Filter.add(Rule{Chain: ChainExternalServices, Matches: []Match{
				Comment{externalComment}, proto, Destination{Addr: ip}, DestinationPort{p.Port}}, Target: externalFilter})
		}
	}
	if p.NodePort != 0 {
		if p.HasEndpoints {
			rs.NAT.add(Rule{Chain: ChainNodePorts, Matches: []Match{Comment{name}, proto, DestinationPort{p.NodePort}}, Target: externalChain})
		}
		if !hasExternal {
			rs.Filter.add(Rule{Chain: ChainExternalServices, Matches: []Match{
				Comment{externalComment}, AddrType{Type: "LOCAL"}, proto, DestinationPort{p.NodePort}}, Target: externalFilter})
		}
	}
	if p.HealthCheckNodePort != 0 {
		rs.Filter.add(Rule{Chain: ChainNodePorts, Matches: []Match{
			Comment{name + " health check node port"}, Protocol{"tcp"}, DestinationPort{p.HealthCheckNodePort}}, Target: "ACCEPT"})
	}

	// Traffic to the ClusterIP from outside the pod network (a node, or a
	// router with a static route to the Service range) is masqueraded.
	if hasInternal && clusterCIDR != "" {
		rs.NAT.add(Rule{Chain: internalChain, Matches: append(append([]Match{Comment{name + " cluster IP"}}, clusterIP...),
			Source{Addr: clusterCIDR, Not: true}), Target: ChainMarkMasq})
	}
	if usesExternalChain {
		rs.externalChainRules(p, externalChain, clusterChain, externalPolicyChain, hasExternal, clusterCIDR)
	}
	if usesFWChain {
		rs.NAT.declare(fwChain)
		for _, cidr := range p.LoadBalancerSourceRanges {
			rs.NAT.add(Rule{Chain: fwChain, Matches: []Match{Comment{name + " loadbalancer IP"}, Source{Addr: cidr}}, Target: externalChain})
		}
		rs.NAT.add(Rule{Chain: fwChain, Matches: []Match{Comment{fmt.Sprintf("other traffic to %s will be dropped by KUBE-PROXY-FIREWALL", name)}}})
	}
	if usesClusterChain {
		rs.NAT.declare(clusterChain)
		rs.serviceToEndpointRules(p, clusterChain, p.ClusterEndpoints, probabilities)
	}
	if usesLocalChain {
		rs.NAT.declare(localChain)
		rs.serviceToEndpointRules(p, localChain, p.LocalEndpoints, probabilities)
	}
	for _, e := range p.Reachable {
		sep := EndpointChain(p, e)
		rs.NAT.declare(sep)
		// Hairpin: a pod reaching itself through the Service must be
		// masqueraded, or the reply would bypass the DNAT.
		rs.NAT.add(Rule{Chain: sep, Matches: rs.comment(name, Source{Addr: e.IP}), Target: ChainMarkMasq})
		ms := rs.comment(name)
		if p.ClientIPAffinity {
			ms = append(ms, RecentSet{sep})
		}
		rs.NAT.add(Rule{Chain: sep, Matches: append(ms, proto), Target: "DNAT", TargetArgs: []string{"--to-destination", e.String()}})
	}
}

// externalChainRules fill KUBE-EXT: masquerade and go on (Cluster policy),
// or keep the client's address, short-circuiting pod and node traffic to
// the cluster-wide chain (Local policy).
func (rs *Ruleset) externalChainRules(p *proxy.ServicePort, externalChain, clusterChain, policyChain string, hasExternal bool, clusterCIDR string) {
	name := p.Name.String()
	rs.NAT.declare(externalChain)
	if !p.ExternalPolicyLocal {
		rs.NAT.add(Rule{Chain: externalChain, Matches: []Match{Comment{"masquerade traffic for " + name + " external destinations"}}, Target: ChainMarkMasq})
	} else {
		if clusterCIDR != "" {
			rs.NAT.add(Rule{Chain: externalChain, Matches: []Match{
				Comment{"pod traffic for " + name + " external destinations"}, Source{Addr: clusterCIDR}}, Target: clusterChain})
		}
		rs.NAT.add(Rule{Chain: externalChain, Matches: []Match{
			Comment{"masquerade LOCAL traffic for " + name + " external destinations"}, AddrType{Source: true, Type: "LOCAL"}}, Target: ChainMarkMasq})
		rs.NAT.add(Rule{Chain: externalChain, Matches: []Match{
			Comment{"route LOCAL traffic for " + name + " external destinations"}, AddrType{Source: true, Type: "LOCAL"}}, Target: clusterChain})
	}
	if hasExternal {
		rs.NAT.add(Rule{Chain: externalChain, Target: policyChain})
	}
}

// serviceToEndpointRules fill a KUBE-SVC or KUBE-SVL chain: first the
// affinity rules (a client seen recently goes back to its endpoint), then
// one rule per endpoint matching with probability 1/n of the n endpoints
// still left, the last one unconditionally — so each endpoint gets 1/N.
func (rs *Ruleset) serviceToEndpointRules(p *proxy.ServicePort, chain string, endpoints []proxy.Endpoint, probabilities probabilityCache) {
	name := p.Name.String()
	if p.ClientIPAffinity {
		for _, e := range endpoints {
			sep := EndpointChain(p, e)
			rs.NAT.add(Rule{Chain: chain, Matches: rs.comment(name+" -> "+e.String(), RecentCheck{Name: sep, Seconds: p.StickySeconds}), Target: sep})
		}
	}
	for i, e := range endpoints {
		ms := rs.comment(name + " -> " + e.String())
		if left := len(endpoints) - i; left > 1 {
			ms = append(ms, probabilities.statistic(left))
		}
		rs.NAT.add(Rule{Chain: chain, Matches: ms, Target: EndpointChain(p, e)})
	}
}

// comment returns the matches of a per-endpoint rule: its comment (left
// out in a large cluster) and then more.
func (rs *Ruleset) comment(text string, more ...Match) []Match {
	ms := make([]Match, 0, len(more)+3)
	if !rs.largeCluster {
		ms = append(ms, Comment{text})
	}
	return append(ms, more...)
}

// probabilityCache keeps the 1/n matches already printed: formatting a
// float is the costliest part of a rule (upstream precomputes them too).
type probabilityCache map[int]Statistic

func (c probabilityCache) statistic(n int) Statistic {
	s, ok := c[n]
	if !ok {
		v := 1.0 / float64(n)
		s = Statistic{Probability: fmt.Sprintf("%0.10f", v), Value: v}
		c[n] = s
	}
	return s
}

// Save returns the rules as `iptables-save` prints them: the filter table,
// then nat.
func (rs *Ruleset) Save() string {
	var b strings.Builder
	// A kube-proxy rule prints in about 150 bytes: growing once saves
	// copying the text over and over as it grows.
	b.Grow(150 * rs.RuleCount())
	rs.Filter.writeSave(&b, nil)
	rs.NAT.writeSave(&b, nil)
	return b.String()
}

// SaveService returns only the rules of Service namespace/name: its own
// chains and the rules of the shared chains whose comment names it.
func (rs *Ruleset) SaveService(namespace, name string) string {
	own := map[string]bool{}
	for _, p := range rs.state.Ports {
		if p.Name.Namespace != namespace || p.Name.Name != name {
			continue
		}
		for _, c := range []string{ServiceChain(p), LocalChain(p), ExternalChain(p), FirewallChain(p)} {
			own[c] = true
		}
		for _, e := range p.Endpoints {
			own[EndpointChain(p, e)] = true
		}
	}
	svc := namespace + "/" + name
	keep := func(r Rule) bool {
		if own[r.Chain] {
			return true
		}
		for _, m := range r.Matches {
			if c, ok := m.(Comment); ok {
				t := c.Text
				return strings.Contains(t, svc+":") || strings.Contains(t, svc+" ") || t == svc
			}
		}
		return false
	}
	var b strings.Builder
	rs.Filter.writeSave(&b, keep)
	rs.NAT.writeSave(&b, keep)
	return b.String()
}

// RuleCount is the number of rules in both tables.
func (rs *Ruleset) RuleCount() int { return rs.Filter.RuleCount() + rs.NAT.RuleCount() }
