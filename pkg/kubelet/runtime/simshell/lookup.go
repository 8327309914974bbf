package simshell

// This file holds the name look-up commands: getent hosts (glibc) and
// nslookup (busybox's, the one in the busybox image tutorials use).

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"github.com/miekg/dns"
)

// cmdGetent answers `getent hosts [name…]` as glibc's getent does: one
// line per address, "%-15s %s" with the canonical name and aliases; an
// address is looked up the other way (hosts file, then PTR); with no
// name, every hosts-file line; exit 2 when a key is not found, which is
// also what a look-up whose queries a NetworkPolicy drops ends in, after
// the resolver's timeout.
func cmdGetent(ctx context.Context, sh *Shell, args []string, std stdio) int {
	if len(args) < 2 {
		fmt.Fprintln(std.err, "Usage: getent [OPTION...] database [key ...]")
		return 1
	}
	if db := args[1]; db != "hosts" && db != "ahosts" && db != "ahostsv4" {
		fmt.Fprintf(std.err, "Unknown database: %s (kplane's simulated shell knows only the hosts database)\n", db)
		return 1
	}
	if len(args) == 2 {
		for _, e := range sh.resolver.hosts {
			fmt.Fprintf(std.out, "%-15s %s\n", e.ip, strings.Join(e.names, " "))
		}
		return 0
	}
	status := 0
	for _, name := range args[2:] {
		if _, err := netip.ParseAddr(name); err == nil {
			if !sh.getentAddress(ctx, name, std) {
				status = 2
			}
			if ctx.Err() != nil {
				return 130
			}
			continue
		}
		res, err := sh.resolver.lookupHost(ctx, name)
		if err != nil {
			if !sh.waitOutDropped(ctx, err, resolverTimeout) {
				return 130
			}
			status = 2
			continue
		}
		for _, addr := range res.addrs {
			fmt.Fprintf(std.out, "%-15s %s\n", addr, strings.Join(append([]string{res.name}, res.aliases...), " "))
		}
	}
	return status
}

// getentAddress answers `getent hosts <IP>` as gethostbyaddr does: the
// hosts file's line for the address, else the DNS's PTR record (the cluster
// DNS serves one for each Service and pod IP). false: neither knows it.
func (sh *Shell) getentAddress(ctx context.Context, ip string, std stdio) bool {
	for _, e := range sh.resolver.hosts {
		if e.ip == ip {
			fmt.Fprintf(std.out, "%-15s %s\n", ip, strings.Join(e.names, " "))
			return true
		}
	}
	reverse, err := dns.ReverseAddr(ip)
	if err != nil {
		return false
	}
	in, err := sh.resolver.query(ctx, reverse, dns.TypePTR)
	if err != nil {
		sh.waitOutDropped(ctx, err, resolverTimeout)
		return false
	}
	if in.Rcode != dns.RcodeSuccess {
		return false
	}
	for _, rr := range in.Answer {
		if ptr, ok := rr.(*dns.PTR); ok {
			fmt.Fprintf(std.out, "%-15s %s\n", ip, strings.TrimSuffix(ptr.Ptr, "."))
			return true
		}
	}
	return false
}

// cmdNslookup answers `nslookup name [server]` as busybox's nslookup does:
// the server it asked, then one block per question — A and AAAA (or the
// -type= given) for the name with each search domain when the name has no
// dot, or PTR for an address — printing "Name:\t…\nAddress: …" per answer or
// "** server can't find …: NXDOMAIN". It exits 1 when any question failed,
// which busybox does even when another one found the name. When a
// NetworkPolicy drops its queries it times out as with no server.
func cmdNslookup(ctx context.Context, sh *Shell, args []string, std stdio) int {
	var operands []string
	var qtypes []uint16 // -type=SRV; none: A and AAAA (or PTR for an address)
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") {
			operands = append(operands, a)
			continue
		}
		option, value, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch option {
		case "type", "querytype", "query", "q", "ty":
			qtype, ok := dns.StringToType[strings.ToUpper(value)]
			if !ok {
				fmt.Fprintf(std.err, "nslookup: invalid query type \"%s\"\n", value)
				return 1
			}
			qtypes = append(qtypes, qtype)
		case "debug", "timeout", "t", "retry", "port":
		default:
			fmt.Fprintln(std.err, "Usage: nslookup [-type=QUERY_TYPE] [-debug] HOST [DNS_SERVER]")
			return 1
		}
	}
	if len(operands) == 0 || len(operands) > 2 {
		fmt.Fprintln(std.err, "Usage: nslookup [-type=QUERY_TYPE] [-debug] HOST [DNS_SERVER]")
		return 1
	}
	name := operands[0]
	r := sh.resolver
	server := ""
	if len(r.conf.Nameservers) > 0 {
		server = r.conf.Nameservers[0]
	}
	if len(operands) == 2 {
		server = operands[1]
	}
	if server == "" {
		server = "127.0.0.1"
	}
	asked := *r
	asked.conf.Nameservers = []string{server}

	type question struct {
		name  string
		qtype uint16
	}
	var questions []question
	if addr, err := netip.ParseAddr(name); err == nil && len(qtypes) == 0 {
		reverse, _ := dns.ReverseAddr(addr.String())
		questions = append(questions, question{strings.TrimSuffix(reverse, "."), dns.TypePTR})
	} else {
		names := []string{name}
		if !strings.Contains(name, ".") {
			names = nil
			for _, s := range r.conf.Searches {
				if s != "." && s != "" {
					names = append(names, name+"."+strings.TrimSuffix(s, "."))
				}
			}
			if len(names) == 0 {
				names = []string{name}
			}
		}
		if len(qtypes) == 0 {
			qtypes = []uint16{dns.TypeA, dns.TypeAAAA}
		}
		for _, qtype := range qtypes {
			for _, n := range names {
				questions = append(questions, question{n, qtype})
			}
		}
	}

	status, printedServer := 0, false
	for _, q := range questions {
		in, err := asked.query(ctx, q.name, q.qtype)
		if !sh.waitOutDropped(ctx, err, nslookupTimeout) {
			return 130
		}
		if _, dropped := asDropped(err); dropped || errors.Is(err, errNoServer) {
			fmt.Fprintf(std.out, ";; connection timed out; no servers could be reached\n\n")
			return 1
		}
		if !printedServer {
			printedServer = true
			fmt.Fprintf(std.out, "Server:\t\t%s\nAddress:\t%s:53\n\n", server, server)
		}
		if in.Rcode != dns.RcodeSuccess {
			fmt.Fprintf(std.out, "** server can't find %s: %s\n\n", q.name, dns.RcodeToString[in.Rcode])
			status = 1
			continue
		}
		if !in.Authoritative && len(in.Answer) > 0 {
			fmt.Fprintln(std.out, "Non-authoritative answer:")
		}
		for _, rr := range in.Answer {
			owner := strings.TrimSuffix(rr.Header().Name, ".")
			switch rr := rr.(type) {
			case *dns.A:
				fmt.Fprintf(std.out, "Name:\t%s\nAddress: %s\n", owner, rr.A)
			case *dns.AAAA:
				fmt.Fprintf(std.out, "Name:\t%s\nAddress: %s\n", owner, rr.AAAA)
			case *dns.CNAME:
				fmt.Fprintf(std.out, "%s\tcanonical name = %s\n", owner, strings.TrimSuffix(rr.Target, "."))
			case *dns.PTR:
				fmt.Fprintf(std.out, "%s\tname = %s\n", owner, strings.TrimSuffix(rr.Ptr, "."))
			case *dns.SRV:
				fmt.Fprintf(std.out, "%s\tservice = %d %d %d %s\n", owner, rr.Priority, rr.Weight, rr.Port, strings.TrimSuffix(rr.Target, "."))
			}
		}
		fmt.Fprintln(std.out)
	}
	return status
}
