package iptables

import (
	"net/netip"
	"strconv"
	"strings"
)

// Rule is one `-A CHAIN …` line: matches, all of which must hold, and a
// target ("" for a rule that only counts, such as KUBE-FW's last rule).
type Rule struct {
	Chain   string
	Matches []Match
	// Target is a chain to jump to or a built-in target (DNAT, REJECT,
	// DROP, ACCEPT, RETURN, MARK, MASQUERADE); TargetArgs its options
	// ("--to-destination", "10.244.1.2:80").
	Target     string
	TargetArgs []string
}

// String is the rule as iptables-save prints it.
func (r Rule) String() string {
	var b strings.Builder
	r.writeTo(&b)
	return b.String()
}

func (r Rule) writeTo(b *strings.Builder) {
	b.WriteString("-A ")
	b.WriteString(r.Chain)
	for _, m := range r.Matches {
		b.WriteByte(' ')
		m.writeTo(b)
	}
	if r.Target != "" {
		b.WriteString(" -j ")
		b.WriteString(r.Target)
		for _, a := range r.TargetArgs {
			b.WriteByte(' ')
			b.WriteString(a)
		}
	}
}

// Match is one condition of a rule. A walk (walk.go) evaluates it against
// a packet.
type Match interface {
	writeTo(b *strings.Builder)
	matches(p *packet) bool
}

// Comment is `-m comment --comment TEXT`; it always matches.
type Comment struct{ Text string }

func (m Comment) writeTo(b *strings.Builder) {
	b.WriteString("-m comment --comment ")
	b.WriteString(quote(m.Text))
}
func (Comment) matches(*packet) bool { return true }

// quote puts text in double quotes when it has a space, as iptables-save
// prints comments.
func quote(text string) string {
	if strings.ContainsAny(text, " \t") {
		return `"` + text + `"`
	}
	return text
}

// Protocol is `-m tcp -p tcp`.
type Protocol struct{ Name string }

func (m Protocol) writeTo(b *strings.Builder) {
	b.WriteString("-m ")
	b.WriteString(m.Name)
	b.WriteString(" -p ")
	b.WriteString(m.Name)
}
func (m Protocol) matches(p *packet) bool { return p.protocol == m.Name }

// Destination is `-d ADDR` (an IP or CIDR), or `! -d ADDR` when Not.
type Destination struct {
	Addr string
	Not  bool
}

func (m Destination) writeTo(b *strings.Builder) { writeAddr(b, "-d", m.Addr, m.Not) }
func (m Destination) matches(p *packet) bool     { return inRange(p.dst, m.Addr) != m.Not }

// Source is `-s ADDR`, or `! -s ADDR` when Not.
type Source struct {
	Addr string
	Not  bool
}

func (m Source) writeTo(b *strings.Builder) { writeAddr(b, "-s", m.Addr, m.Not) }
func (m Source) matches(p *packet) bool     { return inRange(p.src, m.Addr) != m.Not }

func writeAddr(b *strings.Builder, flag, addr string, not bool) {
	if not {
		b.WriteString("! ")
	}
	b.WriteString(flag)
	b.WriteByte(' ')
	b.WriteString(addr)
}

// inRange reports whether ip is addr (an IP) or inside it (a CIDR).
func inRange(ip netip.Addr, addr string) bool {
	if strings.Contains(addr, "/") {
		prefix, err := netip.ParsePrefix(addr)
		return err == nil && prefix.Contains(ip)
	}
	a, err := netip.ParseAddr(addr)
	return err == nil && a == ip
}

// DestinationPort is `--dport N` (after a Protocol match).
type DestinationPort struct{ Port int32 }

func (m DestinationPort) writeTo(b *strings.Builder) {
	b.WriteString("--dport ")
	b.WriteString(strconv.Itoa(int(m.Port)))
}
func (m DestinationPort) matches(p *packet) bool { return p.port == m.Port }

// Statistic is `-m statistic --mode random --probability P`: it matches a
// packet with probability P, drawn once per packet per rule.
type Statistic struct {
	// Probability is as printed, with 10 decimals ("0.3333333333").
	Probability string
	Value       float64
}

func (m Statistic) writeTo(b *strings.Builder) {
	b.WriteString("-m statistic --mode random --probability ")
	b.WriteString(m.Probability)
}
func (m Statistic) matches(p *packet) bool { return p.random() < m.Value }

// RecentCheck is `-m recent --name NAME --rcheck --seconds S --reap`: the
// source address was recorded in list NAME less than S seconds ago.
type RecentCheck struct {
	Name    string
	Seconds int
}

func (m RecentCheck) writeTo(b *strings.Builder) {
	b.WriteString("-m recent --name ")
	b.WriteString(m.Name)
	b.WriteString(" --rcheck --seconds ")
	b.WriteString(strconv.Itoa(m.Seconds))
	b.WriteString(" --reap")
}
func (m RecentCheck) matches(p *packet) bool { return p.recentCheck(m.Name, m.Seconds) }

// RecentSet is `-m recent --name NAME --set`: it records the source
// address in list NAME and always matches.
type RecentSet struct{ Name string }

func (m RecentSet) writeTo(b *strings.Builder) {
	b.WriteString("-m recent --name ")
	b.WriteString(m.Name)
	b.WriteString(" --set")
}
func (m RecentSet) matches(p *packet) bool {
	p.recentSet(m.Name)
	return true
}

// AddrType is `-m addrtype --dst-type LOCAL` (or --src-type): the address
// is one of the node's own.
type AddrType struct {
	Source bool
	Type   string
}

func (m AddrType) writeTo(b *strings.Builder) {
	if m.Source {
		b.WriteString("-m addrtype --src-type ")
	} else {
		b.WriteString("-m addrtype --dst-type ")
	}
	b.WriteString(m.Type)
}
func (m AddrType) matches(p *packet) bool {
	if m.Source {
		return p.isLocal(p.src)
	}
	return p.isLocal(p.dst)
}

// Raw is a match written as is: connection-tracking and mark matches of
// the chains a walk never enters. It matches.
type Raw struct{ Text string }

func (m Raw) writeTo(b *strings.Builder) { b.WriteString(m.Text) }
func (Raw) matches(*packet) bool         { return true }
