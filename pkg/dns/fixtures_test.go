package dns

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"kplane/pkg/api"
)

// The fixtures: a cluster with namespaces default and kube-system, a
// ClusterIP Service web (ports http 80/TCP, metrics 9090/TCP), the
// StatefulSet's headless Service nginx-ss with nginx-ss-0 and nginx-ss-1
// (web 80/TCP) and a not-ready nginx-ss-2, and a headless Service plain
// whose endpoints have no hostname.

func clusterIPService(namespace, name string, ips []string, ports ...api.ServicePort) *api.Service {
	return &api.Service{
		ObjectMeta: api.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       api.ServiceSpec{Type: api.ServiceTypeClusterIP, ClusterIP: ips[0], ClusterIPs: ips, Ports: ports},
	}
}

func headlessService(namespace, name string, ports ...api.ServicePort) *api.Service {
	return &api.Service{
		ObjectMeta: api.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       api.ServiceSpec{Type: api.ServiceTypeClusterIP, ClusterIP: api.ClusterIPNone, ClusterIPs: []string{api.ClusterIPNone}, Ports: ports},
	}
}

func externalService(namespace, name, externalName string) *api.Service {
	return &api.Service{
		ObjectMeta: api.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       api.ServiceSpec{Type: api.ServiceTypeExternalName, ExternalName: externalName},
	}
}

func port(name string, number int32) api.ServicePort {
	return api.ServicePort{Name: name, Port: number, Protocol: api.ProtocolTCP}
}

// endpoint is one endpoint of a slice fixture; hostname "" sets none.
type endpoint struct {
	ip, hostname string
	ready        bool
}

func slice(namespace, service, name string, addressType api.AddressType, ports []api.ServicePort, endpoints ...endpoint) *api.EndpointSlice {
	s := &api.EndpointSlice{
		ObjectMeta:  api.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{api.LabelServiceName: service}},
		AddressType: addressType,
	}
	for _, p := range ports {
		name, number, protocol := p.Name, p.Port, p.Protocol
		s.Ports = append(s.Ports, api.EndpointSlicePort{Name: &name, Port: &number, Protocol: &protocol})
	}
	for _, e := range endpoints {
		ready := e.ready
		ep := api.Endpoint{Addresses: []string{e.ip}, Conditions: api.EndpointConditions{Ready: &ready}}
		if e.hostname != "" {
			hostname := e.hostname
			ep.Hostname = &hostname
		}
		s.Endpoints = append(s.Endpoints, ep)
	}
	return s
}

// fixedSerial is the SOA serial of the fixture table.
var fixedSerial = time.Unix(1_700_000_000, 0)

// newFixture returns a synced table with the fixtures and a resolver
// with kube-dns at 10.96.0.10 and the default TTL.
func newFixture(t testing.TB) (*Table, *Resolver) {
	t.Helper()
	table := NewTable("cluster.local", func() time.Time { return fixedSerial })
	table.SetNamespace("default")
	table.SetNamespace("kube-system")
	table.SetService(clusterIPService("default", "web", []string{"10.96.0.20"}, port("http", 80), port("metrics", 9090)))
	table.SetEndpointSlice(slice("default", "web", "web-abcde", api.AddressTypeIPv4, []api.ServicePort{port("http", 8080), port("metrics", 9090)},
		endpoint{ip: "10.244.1.5", ready: true}, endpoint{ip: "10.244.2.6", ready: true}))
	table.SetService(headlessService("default", "nginx-ss", port("web", 80)))
	table.SetEndpointSlice(slice("default", "nginx-ss", "nginx-ss-xyz12", api.AddressTypeIPv4, []api.ServicePort{port("web", 80)},
		endpoint{ip: "10.244.1.7", hostname: "nginx-ss-0", ready: true},
		endpoint{ip: "10.244.2.8", hostname: "nginx-ss-1", ready: true},
		endpoint{ip: "10.244.1.9", hostname: "nginx-ss-2", ready: false}))
	table.SetService(headlessService("default", "plain", port("", 80)))
	table.SetEndpointSlice(slice("default", "plain", "plain-q7x2k", api.AddressTypeIPv4, []api.ServicePort{port("", 80)},
		endpoint{ip: "10.244.2.10", ready: true}))
	table.SetService(clusterIPService("kube-system", "kube-dns", []string{"10.96.0.10"},
		api.ServicePort{Name: "dns", Port: 53, Protocol: api.ProtocolUDP}, port("dns-tcp", 53), port("metrics", 9153)))
	table.MarkSynced()
	return table, NewResolver(table, netip.MustParseAddr("10.96.0.10"), DefaultTTL)
}

// ask resolves name/qtype with r.
func ask(r *Resolver, name string, qtype uint16) *dns.Msg {
	req := new(dns.Msg).SetQuestion(name, qtype)
	return r.Resolve(req)
}

// rrs renders records one per line in zone-file form, tab-separated
// fields joined by single spaces, for comparison.
func rrs(records []dns.RR) []string {
	var out []string
	for _, rr := range records {
		out = append(out, strings.Join(strings.Fields(rr.String()), " "))
	}
	return out
}

// expect checks reply's rcode and sections; a nil want section must be
// empty.
func expect(t *testing.T, reply *dns.Msg, rcode int, answer, extra, authority []string) {
	t.Helper()
	if reply.Rcode != rcode {
		t.Errorf("rcode %s, want %s\n%v", dns.RcodeToString[reply.Rcode], dns.RcodeToString[rcode], reply)
	}
	for _, section := range []struct {
		name      string
		got, want []string
	}{{"answer", rrs(reply.Answer), answer}, {"additional", rrs(reply.Extra), extra}, {"authority", rrs(reply.Ns), authority}} {
		if !slices.Equal(section.got, section.want) {
			t.Errorf("%s section:\n got %q\nwant %q", section.name, section.got, section.want)
		}
	}
}

// clusterSOA is the SOA the fixtures put in negative answers.
const clusterSOA = "cluster.local. 5 IN SOA ns.dns.cluster.local. hostmaster.cluster.local. 1700000000 7200 1800 86400 5"
