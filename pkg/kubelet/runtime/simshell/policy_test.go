package simshell

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
)

// policyEnv is curlEnv where the shell's pod is labelled role=client, the
// web pods app=web, the namespaces exist with their name label, and the
// clock's waits end at once, recording how long they were asked to be.
func policyEnv(t *testing.T, policies ...*api.NetworkPolicy) (Env, *waits) {
	env, _ := curlEnv(t)
	cluster := env.Cluster.(*fakeCluster)
	for _, p := range cluster.pods {
		switch {
		case p == env.Pod:
			p.Labels = map[string]string{"role": "client"}
		case strings.HasPrefix(p.Name, "web-"):
			p.Labels = map[string]string{"app": "web"}
			p.Spec.Containers[0].Ports = []api.ContainerPort{{Name: "http", ContainerPort: 80}}
		}
	}
	for _, name := range []string{"default", "kube-system"} {
		cluster.namespaces = append(cluster.namespaces, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{api.LabelMetadataName: name}}})
	}
	cluster.policies = policies
	w := &waits{}
	env.After = w.after
	return env, w
}

// waits is a clock whose waits end at once; it records them.
type waits struct {
	mu  sync.Mutex
	got []time.Duration
}

func (w *waits) after(d time.Duration) <-chan time.Time {
	w.mu.Lock()
	w.got = append(w.got, d)
	w.mu.Unlock()
	ch := make(chan time.Time, 1)
	ch <- time.Time{}
	return ch
}

func (w *waits) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var s []string
	for _, d := range w.got {
		s = append(s, d.String())
	}
	return strings.Join(s, " ")
}

func netpol(name string, selector map[string]string, types []api.PolicyType, ingress []api.NetworkPolicyIngressRule, egress []api.NetworkPolicyEgressRule) *api.NetworkPolicy {
	return &api.NetworkPolicy{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.NetworkPolicySpec{PodSelector: api.LabelSelector{MatchLabels: selector}, PolicyTypes: types, Ingress: ingress, Egress: egress}}
}

var (
	denyWeb = netpol("deny-web", map[string]string{"app": "web"}, []api.PolicyType{api.PolicyTypeIngress}, nil, nil)
	// allowClients lets pods labelled role=client reach web.
	allowClients = netpol("allow-clients", map[string]string{"app": "web"}, []api.PolicyType{api.PolicyTypeIngress},
		[]api.NetworkPolicyIngressRule{{From: []api.NetworkPolicyPeer{{PodSelector: &api.LabelSelector{MatchLabels: map[string]string{"role": "client"}}}}}}, nil)
	allowOthers = netpol("allow-others", map[string]string{"app": "web"}, []api.PolicyType{api.PolicyTypeIngress},
		[]api.NetworkPolicyIngressRule{{From: []api.NetworkPolicyPeer{{PodSelector: &api.LabelSelector{MatchLabels: map[string]string{"role": "other"}}}}}}, nil)
	denyEgress = netpol("deny-egress", map[string]string{}, []api.PolicyType{api.PolicyTypeEgress}, nil, nil)
	// allowDNS is the rule kind and Calico users add to a default-deny
	// egress namespace: to CoreDNS's pods in kube-system, port 53.
	allowDNS = netpol("allow-dns", map[string]string{}, []api.PolicyType{api.PolicyTypeEgress}, nil,
		[]api.NetworkPolicyEgressRule{{To: []api.NetworkPolicyPeer{{
			NamespaceSelector: &api.LabelSelector{MatchLabels: map[string]string{api.LabelMetadataName: "kube-system"}},
			PodSelector:       &api.LabelSelector{MatchLabels: map[string]string{"k8s-app": "kube-dns"}}}},
			Ports: []api.NetworkPolicyPort{{Protocol: ptr(api.ProtocolUDP), Port: ptr(api.FromInt(53))}}}})
	allowToWeb = netpol("allow-to-web", map[string]string{}, []api.PolicyType{api.PolicyTypeEgress}, nil,
		[]api.NetworkPolicyEgressRule{{To: []api.NetworkPolicyPeer{{PodSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}}})
)

func ptr[T any](v T) *T { return &v }

func TestNetworkPolicyDroppedConnectionsTimeOutAsTheClientWould(t *testing.T) {
	for _, tc := range []struct {
		name     string
		policies []*api.NetworkPolicy
		line     string
		stdout   string
		stderr   string
		code     int
		// waited lists the waits for unanswered packets.
		waited string
	}{
		{"no policy", nil, "wget -qO- -T 2 web", "Welcome to nginx! Served by pod web-1\n", "", 0, ""},
		{"default deny: wget -T 2 times out", []*api.NetworkPolicy{denyWeb}, "wget -q -O- -T 2 web", "", "wget: download timed out\n", 1, "2s"},
		{"default deny: wget says where it connects first", []*api.NetworkPolicy{denyWeb}, "wget -O- -T 2 web", "",
			"Connecting to web (10.96.0.20:80)\nwget: download timed out\n", 1, "2s"},
		{"default deny: wget without -T waits for the kernel", []*api.NetworkPolicy{denyWeb}, "wget -qO- web", "",
			"wget: can't connect to remote host (10.96.0.20): Connection timed out\n", 1, "2m10s"},
		{"default deny: curl -m 2", []*api.NetworkPolicy{denyWeb}, "curl -sS -m 2 web", "",
			"curl: (28) Failed to connect to web port 80 after 2000 ms: Timeout was reached\n", 28, "2s"},
		{"default deny: the shorter of --connect-timeout and -m", []*api.NetworkPolicy{denyWeb}, "curl -sS --connect-timeout 1.5 --max-time 5 web", "",
			"curl: (28) Failed to connect to web port 80 after 1500 ms: Timeout was reached\n", 28, "1.5s"},
		{"default deny: curl without a limit waits for the kernel", []*api.NetworkPolicy{denyWeb}, "curl -sS web", "",
			"curl: (28) Failed to connect to web port 80 after 130000 ms: Couldn't connect to server\n", 28, "2m10s"},
		{"default deny: curl -s says nothing", []*api.NetworkPolicy{denyWeb}, "curl -s -m 2 web", "", "", 28, "2s"},
		{"default deny: a pod's own IP too", []*api.NetworkPolicy{denyWeb}, "curl -sS -m 2 10.244.2.12", "",
			"curl: (28) Failed to connect to 10.244.2.12 port 80 after 2000 ms: Timeout was reached\n", 28, "2s"},
		{"allow from role=client", []*api.NetworkPolicy{denyWeb, allowClients}, "wget -qO- -T 2 web", "Welcome to nginx! Served by pod web-1\n", "", 0, ""},
		{"allow from role=other", []*api.NetworkPolicy{denyWeb, allowOthers}, "wget -qO- -T 2 web", "", "wget: download timed out\n", 1, "2s"},
		{"a pod reaches itself whatever the policies", []*api.NetworkPolicy{netpol("deny-all", map[string]string{}, []api.PolicyType{api.PolicyTypeIngress, api.PolicyTypeEgress}, nil, nil)},
			"curl -s localhost; curl -s 10.244.1.5", "Welcome to nginx! Served by pod nginx-ss-0\nWelcome to nginx! Served by pod nginx-ss-0\n", "", 0, ""},

		// Default deny egress drops the DNS queries too.
		{"deny egress: curl -m 2 does not resolve", []*api.NetworkPolicy{denyEgress}, "curl -sS -m 2 web", "",
			"curl: (28) Resolving timed out after 2000 milliseconds\n", 28, "2s"},
		{"deny egress: curl waits for the resolver", []*api.NetworkPolicy{denyEgress}, "curl -sS web", "", "curl: (6) Could not resolve host: web\n", 6, "10s"},
		{"deny egress: wget", []*api.NetworkPolicy{denyEgress}, "wget -qO- -T 2 web", "", "wget: bad address 'web'\n", 1, "10s"},
		{"deny egress: getent", []*api.NetworkPolicy{denyEgress}, "getent hosts web", "", "", 2, "10s"},
		{"deny egress: nslookup", []*api.NetworkPolicy{denyEgress}, "nslookup web", ";; connection timed out; no servers could be reached\n\n", "", 1, "5s"},
		{"deny egress, allow DNS: the connection is dropped", []*api.NetworkPolicy{denyEgress, allowDNS}, "curl -sS -m 2 web", "",
			"curl: (28) Failed to connect to web port 80 after 2000 ms: Timeout was reached\n", 28, "2s"},
		{"deny egress, allow DNS and web", []*api.NetworkPolicy{denyEgress, allowDNS, allowToWeb}, "curl -s -m 2 web", "Welcome to nginx! Served by pod web-1\n", "", 0, ""},
		{"an ingress policy does not drop DNS", []*api.NetworkPolicy{netpol("deny-all-in", map[string]string{}, []api.PolicyType{api.PolicyTypeIngress}, nil, nil)},
			"getent hosts web", "10.96.0.20      web.default.svc.cluster.local\n", "", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, w := policyEnv(t, tc.policies...)
			r := script(t, env, tc.line)
			if r.stdout != tc.stdout || r.stderr != tc.stderr || r.code != tc.code {
				t.Errorf("%s:\nstdout %q\nstderr %q\ncode %d\nwant %q %q %d", tc.line, r.stdout, r.stderr, r.code, tc.stdout, tc.stderr, tc.code)
			}
			if got := w.String(); got != tc.waited {
				t.Errorf("%s waited %q, want %q", tc.line, got, tc.waited)
			}
		})
	}
}

func TestNetworkPolicyDroppedDNSQueriesAreNotSent(t *testing.T) {
	dnsServer := startFakeDNS(t, map[string][]string{"web.default.svc.cluster.local.": {"10.96.0.20"}})
	env, _ := policyEnv(t, denyEgress)
	env.DNSAddress = dnsServer.addr
	script(t, env, "getent hosts web")
	if q := dnsServer.questions(); len(q) != 0 {
		t.Errorf("the DNS was asked %v; a dropped query never reaches it", q)
	}
}

func TestCurlVerboseNamesThePolicies(t *testing.T) {
	env, _ := policyEnv(t, denyWeb)
	r := script(t, env, "curl -v -m 2 web")
	for _, want := range []string{
		"* kplane: DNAT to endpoint 10.244.1.11:80 (pod default/web-1 on node1)\n" +
			"* kplane: dropped by NetworkPolicy default/deny-web (ingress to pod default/web-1: no rule allows this connection)\n" +
			"* Failed to connect to web port 80 after 2000 ms: Timeout was reached\n* Closing connection\n" +
			"curl: (28) Failed to connect to web port 80 after 2000 ms: Timeout was reached\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("curl -v's stderr lacks %q:\n%s", want, r.stderr)
		}
	}

	env, _ = policyEnv(t, denyWeb, allowClients)
	r = script(t, env, "curl -sv web")
	if want := "* kplane: allowed by NetworkPolicy default/allow-clients (ingress to pod default/web-1)\n* Connected to web"; !strings.Contains(r.stderr, want) {
		t.Errorf("curl -v's stderr lacks %q:\n%s", want, r.stderr)
	}

	env, _ = policyEnv(t, denyEgress)
	r = script(t, env, "curl -sv -m 1 web")
	if want := "* kplane: DNS query to 10.96.0.10:53/UDP dropped by NetworkPolicy default/deny-egress (egress from pod default/nginx-ss-0: no rule allows this connection)\n"; !strings.Contains(r.stderr, want) {
		t.Errorf("curl -v's stderr lacks %q:\n%s", want, r.stderr)
	}
}

func TestNetworkPoliciesThatCannotBeReadDropNothing(t *testing.T) {
	env, _ := policyEnv(t, denyWeb)
	env.Cluster.(*fakeCluster).policyErr = errors.New("list networkpolicies in default: forbidden")
	r := script(t, env, "curl -sv web")
	if r.code != 0 || !strings.Contains(r.stderr, "* kplane: NetworkPolicies not checked (list networkpolicies in default: forbidden); the connection is let through\n") {
		t.Errorf("code %d, stderr:\n%s", r.code, r.stderr)
	}
}

func TestADroppedConnectionEndsWithTheSession(t *testing.T) {
	env, _ := policyEnv(t, denyWeb)
	env.After = func(time.Duration) <-chan time.Time { return nil } // never
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	var stdout, stderr bytes.Buffer
	done := make(chan int)
	go func() {
		code, _ := New(ctx, env).Run(ctx, []string{"wget", "-qO-", "web"}, Streams{Stdout: &stdout, Stderr: &stderr})
		done <- code
	}()
	select {
	case code := <-done:
		if code != 130 || stderr.Len() != 0 {
			t.Errorf("code %d, stderr %q; want 130 and nothing printed", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("wget still waits after the session ended")
	}
}

func TestTimeoutFlagsMustBeNumbers(t *testing.T) {
	env, _ := policyEnv(t)
	for line, want := range map[string]string{
		"curl -m soon web":              "curl: option -m: expected a proper numerical parameter\ncurl: try 'curl --help' or 'curl --manual' for more information\n",
		"curl --connect-timeout -1 web": "curl: option --connect-timeout: expected a proper numerical parameter\ncurl: try 'curl --help' or 'curl --manual' for more information\n",
		"wget -T two web":               "wget: invalid number 'two'\n",
	} {
		if r := script(t, env, line); r.stderr != want || r.code == 0 {
			t.Errorf("%s: stderr %q code %d, want %q", line, r.stderr, r.code, want)
		}
	}
}
