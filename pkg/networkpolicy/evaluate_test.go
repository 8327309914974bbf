package networkpolicy

import (
	"strings"
	"testing"

	"kplane/pkg/api"
)

// The cluster of these tests: in namespace default a web pod on node1
// (app=web, container port 80 named http, 9090 named metrics), a client
// pod (role=client) and an other pod (role=other) on node2; in namespace
// team-b (labelled team=b) a client and an other pod; a host-network pod
// on node2; and addresses no pod has.
var (
	nsDefault = namespace("default", nil)
	nsTeamB   = namespace("team-b", map[string]string{"team": "b"})

	web         = endpoint(pod("default", "web", "10.244.1.5", "node1", map[string]string{"app": "web"}), nsDefault)
	client      = endpoint(pod("default", "client", "10.244.2.7", "node2", map[string]string{"role": "client"}), nsDefault)
	other       = endpoint(pod("default", "other", "10.244.2.8", "node2", map[string]string{"role": "other"}), nsDefault)
	teamBClient = endpoint(pod("team-b", "client", "10.244.2.9", "node2", map[string]string{"role": "client"}), nsTeamB)
	teamBOther  = endpoint(pod("team-b", "other", "10.244.2.10", "node2", map[string]string{"role": "other"}), nsTeamB)
	// teamBUnread is teamBClient whose namespace could not be read.
	teamBUnread = Endpoint{IP: teamBClient.IP, Pod: teamBClient.Pod}
	outside     = Endpoint{IP: "192.168.7.20"}
	node1       = Endpoint{IP: "172.18.0.2", Node: "node1"}
	node2       = Endpoint{IP: "172.18.0.3", Node: "node2"}
	hostNetPod  = hostNetwork(endpoint(pod("default", "agent", "172.18.0.3", "node2", map[string]string{"role": "client"}), nsDefault), "node2")
)

func namespace(name string, extra map[string]string) *api.Namespace {
	l := map[string]string{api.LabelMetadataName: name}
	for k, v := range extra {
		l[k] = v
	}
	return &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name, Labels: l}}
}

func pod(ns, name, ip, node string, l map[string]string) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, Labels: l}}
	p.Spec.NodeName = node
	p.Spec.Containers = []api.Container{{Name: "main", Ports: []api.ContainerPort{
		{Name: "http", ContainerPort: 80}, {Name: "metrics", ContainerPort: 9090}, {Name: "dns", ContainerPort: 53, Protocol: api.ProtocolUDP}}}}
	p.Status.PodIP = ip
	return p
}

func endpoint(p *api.Pod, ns *api.Namespace) Endpoint {
	return Endpoint{IP: p.Status.PodIP, Pod: p, Namespace: ns}
}

func hostNetwork(e Endpoint, node string) Endpoint {
	e.Pod.Spec.HostNetwork = true
	e.Node = node
	return e
}

// policy builds a NetworkPolicy in ns selecting sel, with the given
// policyTypes (nil: left empty, as an undefaulted object).
func policy(ns, name string, sel map[string]string, types []api.PolicyType, ingress []api.NetworkPolicyIngressRule, egress []api.NetworkPolicyEgressRule) *api.NetworkPolicy {
	return &api.NetworkPolicy{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name},
		Spec: api.NetworkPolicySpec{PodSelector: api.LabelSelector{MatchLabels: sel}, PolicyTypes: types, Ingress: ingress, Egress: egress}}
}

var (
	ingressOnly = []api.PolicyType{api.PolicyTypeIngress}
	egressOnly  = []api.PolicyType{api.PolicyTypeEgress}
	both        = []api.PolicyType{api.PolicyTypeIngress, api.PolicyTypeEgress}
	appWeb      = map[string]string{"app": "web"}
	everyPod    = map[string]string{}
)

func from(peers ...api.NetworkPolicyPeer) []api.NetworkPolicyIngressRule {
	return []api.NetworkPolicyIngressRule{{From: peers}}
}

func to(peers ...api.NetworkPolicyPeer) []api.NetworkPolicyEgressRule {
	return []api.NetworkPolicyEgressRule{{To: peers}}
}

func pods(l map[string]string) api.NetworkPolicyPeer {
	return api.NetworkPolicyPeer{PodSelector: &api.LabelSelector{MatchLabels: l}}
}

func namespaces(l map[string]string) api.NetworkPolicyPeer {
	return api.NetworkPolicyPeer{NamespaceSelector: &api.LabelSelector{MatchLabels: l}}
}

func ipBlock(cidr string, except ...string) api.NetworkPolicyPeer {
	return api.NetworkPolicyPeer{IPBlock: &api.IPBlock{CIDR: cidr, Except: except}}
}

// onPorts is an ingress rule from anyone on ports.
func onPorts(ports ...api.NetworkPolicyPort) []api.NetworkPolicyIngressRule {
	return []api.NetworkPolicyIngressRule{{Ports: ports}}
}

func port(protocol api.Protocol, p *api.IntOrString, end int32) api.NetworkPolicyPort {
	np := api.NetworkPolicyPort{Port: p}
	if protocol != "" {
		np.Protocol = &protocol
	}
	if end != 0 {
		np.EndPort = &end
	}
	return np
}

func number(n int) *api.IntOrString  { v := api.FromInt(n); return &v }
func name(s string) *api.IntOrString { v := api.FromString(s); return &v }

// conn is a TCP connection to port 80 unless said otherwise.
func conn(src, dst Endpoint) Connection { return Connection{Source: src, Destination: dst, Port: 80} }

func onPort(c Connection, protocol api.Protocol, p int32) Connection {
	c.Protocol, c.Port = protocol, p
	return c
}

// summary renders a verdict for the table: "exempt", or each direction
// as open (nothing isolates the pod), "allowed by <policies>" or
// "denied by <policies>" (the policies isolating the pod).
func summary(v Verdict) string {
	if v.Exempt {
		return "exempt"
	}
	side := func(d Decision) string {
		switch {
		case !d.Isolated():
			return "open"
		case d.Allowed && len(d.Allowing) == 0:
			return "allowed"
		case d.Allowed:
			return "allowed by " + names(d.Allowing)
		}
		return "denied by " + names(d.Isolating)
	}
	return "egress " + side(v.Egress) + "; ingress " + side(v.Ingress)
}

func names(ps []*api.NetworkPolicy) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.Name)
	}
	return strings.Join(s, ",")
}

func TestEvaluate(t *testing.T) {
	denyWeb := policy("default", "deny-web", appWeb, ingressOnly, nil, nil)
	allowClients := policy("default", "allow-clients", appWeb, ingressOnly, from(pods(map[string]string{"role": "client"})), nil)
	denyEgress := policy("default", "deny-egress", everyPod, egressOnly, nil, nil)
	for _, tc := range []struct {
		name     string
		conn     Connection
		policies []*api.NetworkPolicy
		want     string
		allowed  bool
	}{
		// Isolation.
		{"no policy: everything is allowed", conn(client, web), nil, "egress open; ingress open", true},
		{"default deny ingress for app=web drops every connection to web", conn(client, web), []*api.NetworkPolicy{denyWeb}, "egress open; ingress denied by deny-web", false},
		{"no policyTypes and no rules is Ingress: still a default deny", conn(client, web),
			[]*api.NetworkPolicy{policy("default", "deny", appWeb, nil, nil, nil)}, "egress open; ingress denied by deny", false},
		{"a policy selecting other pods does not isolate web", conn(client, web),
			[]*api.NetworkPolicy{policy("default", "deny-db", map[string]string{"app": "db"}, ingressOnly, nil, nil)}, "egress open; ingress open", true},
		{"a policy of another namespace does not isolate web", conn(client, web),
			[]*api.NetworkPolicy{policy("team-b", "deny-all", everyPod, both, nil, nil)}, "egress open; ingress open", true},
		{"an Egress-only policy does not isolate ingress", conn(client, web),
			[]*api.NetworkPolicy{policy("default", "web-egress", appWeb, egressOnly, nil, nil)}, "egress open; ingress open", true},
		{"a selector the apiserver would refuse selects nothing", conn(client, web),
			[]*api.NetworkPolicy{{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "bad"}, Spec: api.NetworkPolicySpec{
				PodSelector: api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}, PolicyTypes: ingressOnly}}},
			"egress open; ingress open", true},
		{"matchExpressions select as label selectors do", conn(client, web),
			[]*api.NetworkPolicy{{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "not-db"}, Spec: api.NetworkPolicySpec{
				PodSelector: api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: "NotIn", Values: []string{"db"}}}}, PolicyTypes: ingressOnly}}},
			"egress open; ingress denied by not-db", false},

		// Rules add up across policies.
		{"deny plus allow from role=client: the client gets in", conn(client, web), []*api.NetworkPolicy{denyWeb, allowClients}, "egress open; ingress allowed by allow-clients", true},
		{"deny plus allow from role=client: another pod does not", conn(other, web), []*api.NetworkPolicy{denyWeb, allowClients}, "egress open; ingress denied by allow-clients,deny-web", false},
		{"an empty rule allows everyone", conn(outside, web),
			[]*api.NetworkPolicy{policy("default", "open", appWeb, ingressOnly, []api.NetworkPolicyIngressRule{{}}, nil)}, "egress open; ingress allowed by open", true},

		// Peers.
		{"podSelector alone: pods of the policy's namespace only", conn(teamBClient, web), []*api.NetworkPolicy{allowClients}, "egress open; ingress denied by allow-clients", false},
		{"an empty podSelector is every pod of the namespace, no outside address", conn(outside, web),
			[]*api.NetworkPolicy{policy("default", "same-ns", appWeb, ingressOnly, from(pods(everyPod)), nil)}, "egress open; ingress denied by same-ns", false},
		{"namespaceSelector: every pod of the namespaces with those labels", conn(teamBOther, web),
			[]*api.NetworkPolicy{policy("default", "from-b", appWeb, ingressOnly, from(namespaces(map[string]string{"team": "b"})), nil)}, "egress open; ingress allowed by from-b", true},
		{"namespaceSelector: not the pods of other namespaces", conn(client, web),
			[]*api.NetworkPolicy{policy("default", "from-b", appWeb, ingressOnly, from(namespaces(map[string]string{"team": "b"})), nil)}, "egress open; ingress denied by from-b", false},
		{"namespaceSelector by kubernetes.io/metadata.name, namespace unread", conn(teamBUnread, web),
			[]*api.NetworkPolicy{policy("default", "from-b", appWeb, ingressOnly, from(namespaces(map[string]string{api.LabelMetadataName: "team-b"})), nil)}, "egress open; ingress allowed by from-b", true},
		{"namespaceSelector and podSelector in one peer: both must match", conn(teamBOther, web),
			[]*api.NetworkPolicy{policy("default", "b-clients", appWeb, ingressOnly, from(api.NetworkPolicyPeer{
				NamespaceSelector: &api.LabelSelector{MatchLabels: map[string]string{"team": "b"}},
				PodSelector:       &api.LabelSelector{MatchLabels: map[string]string{"role": "client"}}}), nil)}, "egress open; ingress denied by b-clients", false},
		{"namespaceSelector and podSelector in one peer: a pod matching both", conn(teamBClient, web),
			[]*api.NetworkPolicy{policy("default", "b-clients", appWeb, ingressOnly, from(api.NetworkPolicyPeer{
				NamespaceSelector: &api.LabelSelector{MatchLabels: map[string]string{"team": "b"}},
				PodSelector:       &api.LabelSelector{MatchLabels: map[string]string{"role": "client"}}}), nil)}, "egress open; ingress allowed by b-clients", true},
		{"two peers are either one", conn(client, web),
			[]*api.NetworkPolicy{policy("default", "b-or-clients", appWeb, ingressOnly, from(namespaces(map[string]string{"team": "b"}), pods(map[string]string{"role": "client"})), nil)},
			"egress open; ingress allowed by b-or-clients", true},
		{"ipBlock matches a pod's address", conn(client, web),
			[]*api.NetworkPolicy{policy("default", "cidr", appWeb, ingressOnly, from(ipBlock("10.244.2.0/24")), nil)}, "egress open; ingress allowed by cidr", true},
		{"ipBlock except takes addresses out", conn(client, web),
			[]*api.NetworkPolicy{policy("default", "cidr", appWeb, ingressOnly, from(ipBlock("10.244.2.0/24", "10.244.2.7/32")), nil)}, "egress open; ingress denied by cidr", false},
		{"ipBlock matches an address no pod has", conn(outside, web),
			[]*api.NetworkPolicy{policy("default", "cidr", appWeb, ingressOnly, from(ipBlock("192.168.0.0/16")), nil)}, "egress open; ingress allowed by cidr", true},
		{"ipBlock with host bits set is read as its network", conn(outside, web),
			[]*api.NetworkPolicy{policy("default", "cidr", appWeb, ingressOnly, from(ipBlock("192.168.7.1/24")), nil)}, "egress open; ingress allowed by cidr", true},
		{"an unparsable ipBlock matches nothing", conn(outside, web),
			[]*api.NetworkPolicy{policy("default", "cidr", appWeb, ingressOnly, from(ipBlock("192.168.7.0/99")), nil)}, "egress open; ingress denied by cidr", false},

		// Ports.
		{"port number", conn(client, web), []*api.NetworkPolicy{denyWeb, policy("default", "p80", appWeb, ingressOnly, onPorts(port("", number(80), 0)), nil)},
			"egress open; ingress allowed by p80", true},
		{"another port number", conn(client, web), []*api.NetworkPolicy{policy("default", "p443", appWeb, ingressOnly, onPorts(port("", number(443), 0)), nil)},
			"egress open; ingress denied by p443", false},
		{"port range port..endPort", conn(client, web), []*api.NetworkPolicy{policy("default", "range", appWeb, ingressOnly, onPorts(port("", number(79), 81)), nil)},
			"egress open; ingress allowed by range", true},
		{"a range that leaves the port out", conn(client, web), []*api.NetworkPolicy{policy("default", "range", appWeb, ingressOnly, onPorts(port("", number(8000), 9000)), nil)},
			"egress open; ingress denied by range", false},
		{"named port: the destination container's port of that name", conn(client, web), []*api.NetworkPolicy{policy("default", "http", appWeb, ingressOnly, onPorts(port("", name("http"), 0)), nil)},
			"egress open; ingress allowed by http", true},
		{"a named port of another number", conn(client, web), []*api.NetworkPolicy{policy("default", "metrics", appWeb, ingressOnly, onPorts(port("", name("metrics"), 0)), nil)},
			"egress open; ingress denied by metrics", false},
		{"the protocol defaults to TCP: not UDP", onPort(conn(client, web), api.ProtocolUDP, 80),
			[]*api.NetworkPolicy{policy("default", "tcp80", appWeb, ingressOnly, onPorts(port("", number(80), 0)), nil)}, "egress open; ingress denied by tcp80", false},
		{"a protocol without a port is every port of it", onPort(conn(client, web), api.ProtocolUDP, 5353),
			[]*api.NetworkPolicy{policy("default", "udp", appWeb, ingressOnly, onPorts(port(api.ProtocolUDP, nil, 0)), nil)}, "egress open; ingress allowed by udp", true},
		{"a named port's protocol counts too", onPort(conn(client, web), api.ProtocolUDP, 53),
			[]*api.NetworkPolicy{policy("default", "dns", appWeb, ingressOnly, onPorts(port(api.ProtocolUDP, name("dns"), 0)), nil)}, "egress open; ingress allowed by dns", true},

		// Egress, and both ends.
		{"default deny egress: the client cannot send", conn(client, web), []*api.NetworkPolicy{denyEgress}, "egress denied by deny-egress; ingress open", false},
		{"egress rules without policyTypes isolate egress too", conn(client, web),
			[]*api.NetworkPolicy{policy("default", "to-db", map[string]string{"role": "client"}, nil, nil, to(pods(map[string]string{"app": "db"})))},
			"egress denied by to-db; ingress open", false},
		{"egress rules without policyTypes still mean Ingress as well", conn(other, client),
			[]*api.NetworkPolicy{policy("default", "to-db", map[string]string{"role": "client"}, nil, nil, to(pods(map[string]string{"app": "db"})))},
			"egress open; ingress denied by to-db", false},
		{"egress to app=web", conn(client, web),
			[]*api.NetworkPolicy{denyEgress, policy("default", "to-web", everyPod, egressOnly, nil, to(pods(appWeb)))}, "egress allowed by to-web; ingress open", true},
		{"egress to an address no pod has, by ipBlock", conn(client, outside),
			[]*api.NetworkPolicy{denyEgress, policy("default", "to-outside", everyPod, egressOnly, nil, to(ipBlock("192.168.0.0/16")))}, "egress allowed by to-outside; ingress open", true},
		{"egress named port: the destination pod's", conn(client, web),
			[]*api.NetworkPolicy{denyEgress, policy("default", "to-http", everyPod, egressOnly, nil, []api.NetworkPolicyEgressRule{{Ports: []api.NetworkPolicyPort{port("", name("http"), 0)}}})},
			"egress allowed by to-http; ingress open", true},
		{"egress named port to an address without a pod matches nothing", conn(client, outside),
			[]*api.NetworkPolicy{denyEgress, policy("default", "to-http", everyPod, egressOnly, nil, []api.NetworkPolicyEgressRule{{Ports: []api.NetworkPolicyPort{port("", name("http"), 0)}}})},
			"egress denied by deny-egress,to-http; ingress open", false},
		{"egress allowed but ingress denied: dropped", conn(client, web),
			[]*api.NetworkPolicy{denyWeb, policy("default", "to-web", everyPod, egressOnly, nil, to(pods(appWeb)))}, "egress allowed by to-web; ingress denied by deny-web", false},

		// What no policy filters.
		{"a pod to its own address", conn(web, web), []*api.NetworkPolicy{policy("default", "deny-all", everyPod, both, nil, nil)}, "exempt", true},
		{"a pod to loopback", conn(client, Endpoint{IP: "127.0.0.1"}), []*api.NetworkPolicy{denyEgress}, "exempt", true},
		{"the destination pod's own node gets in", conn(node1, web), []*api.NetworkPolicy{denyWeb}, "egress open; ingress allowed", true},
		{"another node is an address like any other", conn(node2, web), []*api.NetworkPolicy{denyWeb}, "egress open; ingress denied by deny-web", false},
		{"a host-network pod's egress is not isolated", conn(hostNetPod, web), []*api.NetworkPolicy{denyEgress}, "egress open; ingress open", true},
		{"a host-network pod is not matched by pod selectors", conn(hostNetPod, web), []*api.NetworkPolicy{allowClients}, "egress open; ingress denied by allow-clients", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Evaluate(tc.conn, tc.policies)
			if got := summary(v); got != tc.want {
				t.Errorf("Evaluate = %q, want %q", got, tc.want)
			}
			if v.Allowed() != tc.allowed {
				t.Errorf("Allowed() = %v, want %v", v.Allowed(), tc.allowed)
			}
		})
	}
}
