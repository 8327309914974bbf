// Package ipvs prints the virtual servers upstream kube-proxy's IPVS mode
// (pkg/proxy/ipvs/proxier.go) would create on a node, as `ipvsadm -Ln`
// shows them.
//
// IPVS is the kernel's layer-4 load balancer. Instead of rules, kube-proxy
// creates one virtual server per address a Service answers on — each
// ClusterIP:port, external IP:port, load-balancer IP:port, and NodePort on
// each node address — and gives it one real server per endpoint, forwarded
// by NAT ("Masq"), all with weight 1, chosen in turn by the round-robin
// scheduler ("rr", upstream's default). ClientIP session affinity becomes
// the virtual server's persistence timeout. (Upstream also binds each
// Service IP to the dummy interface kube-ipvs0 and keeps a few iptables
// rules for masquerading; those are not shown here, as ipvsadm does not.)
package ipvs

import (
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	"kplane/pkg/proxy"
)

// Scheduler is the scheduler of every virtual server: round robin,
// upstream's --ipvs-scheduler default.
const Scheduler = "rr"

// VirtualServer is one IPVS service.
type VirtualServer struct {
	// Protocol is TCP, UDP or SCTP; Address and Port where it listens.
	Protocol string
	Address  string
	Port     int32
	// Persistent is the persistence timeout in seconds (ClientIP
	// affinity); 0 means none.
	Persistent int
	// RealServers are the endpoints, sorted.
	RealServers []RealServer
	// Service names the Service port, for filtering.
	Service proxy.ServicePortName
}

// RealServer is one endpoint of a virtual server.
type RealServer struct {
	Address string
	Port    int32
	Weight  int
}

// Compute returns the virtual servers of st, sorted by protocol, address
// and port.
func Compute(st *proxy.State) []VirtualServer {
	var out []VirtualServer
	for _, p := range st.Ports {
		add := func(addr string, port int32, endpoints []proxy.Endpoint) {
			vs := VirtualServer{Protocol: string(p.Protocol), Address: addr, Port: port, Service: p.Name}
			if p.ClientIPAffinity {
				vs.Persistent = p.StickySeconds
			}
			for _, e := range endpoints {
				vs.RealServers = append(vs.RealServers, RealServer{Address: e.IP, Port: e.Port, Weight: 1})
			}
			out = append(out, vs)
		}
		internal := p.ClusterEndpoints
		if p.InternalPolicyLocal {
			internal = p.LocalEndpoints
		}
		external := p.ClusterEndpoints
		if p.ExternalPolicyLocal {
			external = p.LocalEndpoints
		}
		add(p.ClusterIP, p.Port, internal)
		for _, ip := range p.ExternalIPs {
			add(ip, p.Port, external)
		}
		for _, ip := range p.LoadBalancerIPs {
			add(ip, p.Port, external)
		}
		if p.NodePort != 0 {
			for _, ip := range st.IPs {
				add(ip, p.NodePort, external)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Protocol != b.Protocol {
			return a.Protocol < b.Protocol
		}
		if c := compareAddr(a.Address, b.Address); c != 0 {
			return c < 0
		}
		return a.Port < b.Port
	})
	return out
}

func compareAddr(a, b string) int {
	x, errX := netip.ParseAddr(a)
	y, errY := netip.ParseAddr(b)
	if errX != nil || errY != nil {
		return strings.Compare(a, b)
	}
	return x.Compare(y)
}

// List prints servers as `ipvsadm -Ln` does (without the trailing blanks
// its column padding leaves at the end of each real server's line).
func List(servers []VirtualServer) string {
	var b strings.Builder
	b.WriteString("IP Virtual Server version 1.2.1 (size=4096)\n")
	b.WriteString("Prot LocalAddress:Port Scheduler Flags\n")
	b.WriteString("  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn\n")
	for _, vs := range servers {
		fmt.Fprintf(&b, "%-4s %s:%d %s", vs.Protocol, vs.Address, vs.Port, Scheduler)
		if vs.Persistent > 0 {
			fmt.Fprintf(&b, " persistent %d", vs.Persistent)
		}
		b.WriteByte('\n')
		for _, rs := range vs.RealServers {
			line := fmt.Sprintf("  -> %-28s %-7s %-6d %-10d %-10d", rs.Address+":"+strconv.Itoa(int(rs.Port)), "Masq", rs.Weight, 0, 0)
			b.WriteString(strings.TrimRight(line, " "))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// ForService keeps the virtual servers of Service namespace/name.
func ForService(servers []VirtualServer, namespace, name string) []VirtualServer {
	var out []VirtualServer
	for _, vs := range servers {
		if vs.Service.Namespace == namespace && vs.Service.Name == name {
			out = append(out, vs)
		}
	}
	return out
}
