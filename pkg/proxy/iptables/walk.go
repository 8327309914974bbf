package iptables

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/proxy"
)

// Packet is the first packet of a new connection, as a walk sees it.
type Packet struct {
	// Source is the client (a pod's IP); Destination and Port where it
	// connects to; Protocol TCP, UDP or SCTP.
	Source, Destination string
	Port                int32
	Protocol            api.Protocol
}

// Verdict is where the rules sent a packet.
type Verdict struct {
	// Chains are the chains the packet went through in the nat table (or
	// the filter chain that rejected it), in order. KUBE-MARK-MASQ, which
	// only marks the packet and returns, is left out.
	Chains []string
	// Target is DNAT, REJECT or DROP; "" when no rule took the packet
	// (it is not for a Service).
	Target string
	// Destination is the DNAT's ip:port.
	Destination string
	// Rule is the rule that decided.
	Rule string
}

// RecentLists is the kernel's `-m recent` state: per list name, when each
// source address was last recorded. It outlives syncs, as the kernel's
// lists do, which is what makes session affinity stick.
type RecentLists struct {
	mu    sync.Mutex
	lists map[string]map[netip.Addr]time.Time
}

// NewRecentLists returns empty lists.
func NewRecentLists() *RecentLists {
	return &RecentLists{lists: map[string]map[netip.Addr]time.Time{}}
}

// Walker evaluates rules for packets the way the kernel would: chain by
// chain, rule by rule, the first rule whose matches all hold deciding,
// a jump to a user chain returning to the next rule if that chain ends
// without a verdict.
type Walker struct {
	// Recent holds the session-affinity lists.
	Recent *RecentLists
	// Random returns a number in [0, 1) for each statistic match.
	Random func() float64
	// Now is the time recent lists are read and written at.
	Now func() time.Time
}

// packet is a Packet during a walk, with the walk's state.
type packet struct {
	src, dst netip.Addr
	port     int32
	protocol string
	w        *Walker
	now      time.Time
	// local are the node's own addresses (`-m addrtype LOCAL`), besides
	// 127.0.0.0/8.
	local []string
}

func (p *packet) random() float64 { return p.w.Random() }

func (p *packet) isLocal(a netip.Addr) bool {
	if a.IsLoopback() {
		return true
	}
	for _, l := range p.local {
		if la, err := netip.ParseAddr(l); err == nil && la == a {
			return true
		}
	}
	return false
}

func (p *packet) recentCheck(name string, seconds int) bool {
	r := p.w.Recent
	r.mu.Lock()
	defer r.mu.Unlock()
	seen, ok := r.lists[name][p.src]
	if !ok {
		return false
	}
	if p.now.Sub(seen) >= time.Duration(seconds)*time.Second {
		delete(r.lists[name], p.src) // --reap
		return false
	}
	return true
}

func (p *packet) recentSet(name string) {
	r := p.w.Recent
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lists[name] == nil {
		r.lists[name] = map[netip.Addr]time.Time{}
	}
	r.lists[name][p.src] = p.now
}

// maxDepth bounds the chain nesting of a walk; kube-proxy's rules nest
// four deep (KUBE-SERVICES → KUBE-FW → KUBE-EXT → KUBE-SVC → KUBE-SEP).
const maxDepth = 16

// Walk follows pkt through rs: the nat table from KUBE-SERVICES (where
// PREROUTING and OUTPUT send every packet); if no rule DNATs it, the filter
// table's KUBE-PROXY-FIREWALL, KUBE-EXTERNAL-SERVICES and KUBE-SERVICES,
// which reject or drop packets for Services without (local) endpoints.
func (w *Walker) Walk(rs *Ruleset, pkt Packet) (Verdict, error) {
	src, err := netip.ParseAddr(pkt.Source)
	if err != nil {
		return Verdict{}, fmt.Errorf("source %q is not an IP address", pkt.Source)
	}
	dst, err := netip.ParseAddr(pkt.Destination)
	if err != nil {
		return Verdict{}, fmt.Errorf("destination %q is not an IP address", pkt.Destination)
	}
	p := &packet{src: src, dst: dst, port: pkt.Port, protocol: strings.ToLower(string(pkt.Protocol)), w: w, now: w.Now(), local: rs.state.IPs}
	var v Verdict
	if done, err := walkChain(rs.NAT, ChainServices, p, &v, 0); err != nil || done {
		return v, err
	}
	for _, chain := range []string{ChainProxyFirewall, ChainExternalServices, ChainServices} {
		v = Verdict{}
		if done, err := walkChain(rs.Filter, chain, p, &v, 0); err != nil || done {
			return v, err
		}
	}
	return Verdict{}, nil
}

// errTooDeep is a loop in the rules, which kube-proxy never writes.
var errTooDeep = errors.New("iptables walk: chains nest too deep")

// walkChain evaluates chain; done reports a final verdict.
func walkChain(t *Table, chain string, p *packet, v *Verdict, depth int) (done bool, err error) {
	if depth > maxDepth {
		return false, errTooDeep
	}
	if chain != ChainMarkMasq {
		v.Chains = append(v.Chains, chain)
	}
	for _, r := range t.rules[chain] {
		if !matchAll(r.Matches, p) {
			continue
		}
		switch r.Target {
		case "":
			continue
		case "DNAT", "REJECT", "DROP", "ACCEPT":
			v.Target, v.Rule = r.Target, r.String()
			if r.Target == "DNAT" && len(r.TargetArgs) == 2 {
				v.Destination = r.TargetArgs[1]
			}
			return true, nil
		case "RETURN":
			return false, nil
		case "MARK", "MASQUERADE":
			continue
		}
		if !t.HasChain(r.Target) {
			continue
		}
		mark := len(v.Chains)
		done, err := walkChain(t, r.Target, p, v, depth+1)
		if err != nil || done {
			return done, err
		}
		v.Chains = v.Chains[:mark]
	}
	return false, nil
}

func matchAll(ms []Match, p *packet) bool {
	for _, m := range ms {
		if !m.matches(p) {
			return false
		}
	}
	return true
}

// EndpointOf returns the endpoint of rs's state that a DNAT destination
// ip:port of Service port sp names.
func (rs *Ruleset) EndpointOf(sp *proxy.ServicePort, destination string) (proxy.Endpoint, bool) {
	host, port, found := strings.Cut(destination, ":")
	if !found {
		return proxy.Endpoint{}, false
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		return proxy.Endpoint{}, false
	}
	for _, e := range sp.Endpoints {
		if e.IP == host && int(e.Port) == n {
			return e, true
		}
	}
	return proxy.Endpoint{}, false
}
