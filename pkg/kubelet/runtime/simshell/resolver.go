package simshell

// This file resolves names as a program in the pod would: first the pod's
// /etc/hosts, then DNS through the nameservers and search list of its
// /etc/resolv.conf, with glibc's ndots rule. The queries are real DNS
// queries (github.com/miekg/dns), but they go to the loopback address
// where kplane's cluster DNS answers instead of the nameserver the file
// names: 10.96.0.10 is the kube-dns Service's ClusterIP, a label that
// nothing dials. A nameserver other than the cluster DNS is unreachable,
// and so is the cluster DNS when a NetworkPolicy drops the pod's queries
// (policy.go).

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"time"

	"github.com/miekg/dns"

	"kplane/pkg/kubelet/podfiles"
)

// queryTimeout bounds one DNS query to the loopback DNS. A real resolver
// waits 5 s and retries (resolv.conf's timeout:5 attempts:2); a loopback
// server that does not answer within a second is not running.
const queryTimeout = time.Second

// errNoServer is a look-up whose nameserver cannot be reached: none is
// configured, or none is the cluster DNS, or the DNS does not answer.
var errNoServer = errors.New("no servers could be reached")

// resolver resolves names for one pod.
type resolver struct {
	conf  podfiles.ResolvConf
	hosts []hostsEntry
	// clusterDNS is the nameserver label that leads to dnsAddress.
	clusterDNS, dnsAddress string
	client                 *dns.Client
	// egress asks whether the pod's NetworkPolicies let a query out to
	// the cluster DNS: a *droppedError when they drop it. nil: nothing
	// is checked.
	egress func(ctx context.Context) error
}

// hostsEntry is one line of /etc/hosts: an address and its names, the
// first one canonical.
type hostsEntry struct {
	ip    string
	names []string
}

func newResolver(conf podfiles.ResolvConf, hostsFile, clusterDNS, dnsAddress string) *resolver {
	r := &resolver{conf: conf, clusterDNS: clusterDNS, dnsAddress: dnsAddress,
		client: &dns.Client{Net: "udp", Timeout: queryTimeout}}
	for _, line := range strings.Split(hostsFile, "\n") {
		line, _, _ = strings.Cut(line, "#")
		if fields := strings.Fields(line); len(fields) >= 2 {
			r.hosts = append(r.hosts, hostsEntry{ip: fields[0], names: fields[1:]})
		}
	}
	return r
}

// hostsName returns the canonical name of the hosts-file line naming name.
func (r *resolver) hostsName(name string) (string, bool) {
	for _, e := range r.hosts {
		for _, n := range e.names {
			if strings.EqualFold(n, name) {
				return e.names[0], true
			}
		}
	}
	return "", false
}

// hostsLookup returns the hosts-file lines that name name, IPv4 ones only
// (glibc's gethostbyname asks for one address family; kplane's pods have
// IPv4 addresses).
func (r *resolver) hostsLookup(name string) []hostsEntry {
	name = strings.TrimSuffix(name, ".")
	var found []hostsEntry
	for _, e := range r.hosts {
		if addr, err := netip.ParseAddr(e.ip); err != nil || !addr.Is4() {
			continue
		}
		for _, n := range e.names {
			if strings.EqualFold(n, name) {
				found = append(found, e)
				break
			}
		}
	}
	return found
}

// candidates lists the names glibc's res_search tries for name, in order:
// an absolute name ("web.") only as it is; a name with at least ndots dots
// as it is first, then with each search domain; a shorter one with each
// search domain first, then as it is. The search domain "." adds nothing.
func (r *resolver) candidates(name string) []string {
	if strings.HasSuffix(name, ".") {
		return []string{name}
	}
	var searched []string
	for _, s := range r.conf.Searches {
		if s = strings.TrimSuffix(s, "."); s != "" {
			searched = append(searched, name+"."+s+".")
		}
	}
	if strings.Count(name, ".") >= r.conf.Ndots() {
		return append([]string{name + "."}, searched...)
	}
	return append(searched, name+".")
}

// server is the address the pod's queries really go to: the cluster DNS's
// loopback address when the first nameserver is the cluster DNS label.
func (r *resolver) server() (string, error) {
	if len(r.conf.Nameservers) == 0 || r.conf.Nameservers[0] != r.clusterDNS || r.dnsAddress == "" {
		return "", errNoServer
	}
	return r.dnsAddress, nil
}

// query sends one question for name and type qtype. A query a
// NetworkPolicy drops is not sent: the error is a *droppedError, and the
// command waits for its own timeout.
func (r *resolver) query(ctx context.Context, name string, qtype uint16) (*dns.Msg, error) {
	server, err := r.server()
	if err != nil {
		return nil, err
	}
	if r.egress != nil {
		if err := r.egress(ctx); err != nil {
			return nil, err
		}
	}
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	in, _, err := r.client.ExchangeContext(ctx, m, server)
	if err != nil {
		return nil, errNoServer
	}
	return in, nil
}

// hostResult is a resolved name: the canonical name and its addresses.
type hostResult struct {
	name  string
	addrs []string
	// aliases are the hosts file's other names for the address.
	aliases []string
}

// errNotFound is a name neither the hosts file nor DNS knows.
var errNotFound = errors.New("not found")

// lookupHost resolves name to IPv4 addresses as gethostbyname does
// (nsswitch "hosts: files dns"). An IP address resolves to itself.
func (r *resolver) lookupHost(ctx context.Context, name string) (hostResult, error) {
	if addr, err := netip.ParseAddr(name); err == nil {
		return hostResult{name: name, addrs: []string{addr.String()}}, nil
	}
	if entries := r.hostsLookup(name); len(entries) > 0 {
		res := hostResult{name: entries[0].names[0], aliases: entries[0].names[1:]}
		for _, e := range entries {
			res.addrs = append(res.addrs, e.ip)
		}
		return res, nil
	}
	for _, candidate := range r.candidates(name) {
		in, err := r.query(ctx, candidate, dns.TypeA)
		if err != nil {
			return hostResult{}, err
		}
		if in.Rcode != dns.RcodeSuccess {
			continue
		}
		res := hostResult{name: strings.TrimSuffix(candidate, ".")}
		for _, rr := range in.Answer {
			if a, ok := rr.(*dns.A); ok {
				res.name = strings.TrimSuffix(a.Hdr.Name, ".")
				res.addrs = append(res.addrs, a.A.String())
			}
		}
		if len(res.addrs) > 0 {
			return res, nil
		}
	}
	return hostResult{}, errNotFound
}
