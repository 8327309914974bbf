package simshell

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"kplane/pkg/api"
)

// testPod is a StatefulSet-like pod: nginx-ss-0 in default with a
// subdomain, on node1.
func testPod() *api.Pod {
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "nginx-ss-0", Namespace: "default"}}
	pod.Spec = api.PodSpec{NodeName: "node1", Hostname: "nginx-ss-0", Subdomain: "nginx-ss", DNSPolicy: api.DNSClusterFirst,
		Containers: []api.Container{{Name: "nginx", Image: "nginx:1.27", Ports: []api.ContainerPort{{ContainerPort: 80}}}}}
	pod.Status.PodIP = "10.244.1.5"
	pod.Status.PodIPs = []api.PodIP{{IP: "10.244.1.5"}}
	return pod
}

// testEnv is an Env for testPod with a fixed clock.
func testEnv() Env {
	pod := testPod()
	return Env{Pod: pod, Container: &pod.Spec.Containers[0], Environ: []string{"PATH=/usr/bin:/bin", "HOSTNAME=nginx-ss-0", "GREETING=hello world", "HOME=/root"},
		NodeIP: "127.0.0.1", ClusterDNS: "10.96.0.10", ClusterDomain: "cluster.local",
		Now: func() time.Time { return time.Date(2026, 11, 27, 14, 44, 3, 0, time.UTC) }}
}

// result is what one run printed and returned.
type result struct {
	stdout, stderr string
	code           int
	err            error
}

// run runs argv in a fresh shell for env, with stdin.
func run(t *testing.T, env Env, stdin string, argv ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	sh := New(context.Background(), env)
	code, err := sh.Run(context.Background(), argv, Streams{Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr})
	return result{stdout.String(), stderr.String(), code, err}
}

// script runs `sh -c line`.
func script(t *testing.T, env Env, line string) result {
	t.Helper()
	return run(t, env, "", "sh", "-c", line)
}

// fakeDNS is a miekg/dns server on a loopback UDP port answering A
// questions from records (name → IPs; for a PTR name, the name it points
// to) authoritatively and NXDOMAIN otherwise; it records the questions it
// was asked.
type fakeDNS struct {
	addr    string
	records map[string][]string
	mu      sync.Mutex
	asked   []string
}

func startFakeDNS(t *testing.T, records map[string][]string) *fakeDNS {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeDNS{addr: pc.LocalAddr().String(), records: records}
	started := make(chan struct{})
	srv := &dns.Server{PacketConn: pc, Handler: f, NotifyStartedFunc: func() { close(started) }}
	go srv.ActivateAndServe()
	<-started
	t.Cleanup(func() { srv.Shutdown() })
	return f
}

func (f *fakeDNS) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	q := req.Question[0]
	f.mu.Lock()
	f.asked = append(f.asked, dns.TypeToString[q.Qtype]+" "+q.Name)
	f.mu.Unlock()
	m := new(dns.Msg)
	m.SetReply(req)
	m.Authoritative = true
	ips, ok := f.records[q.Name]
	if !ok {
		m.Rcode = dns.RcodeNameError
	}
	if q.Qtype == dns.TypePTR && ok {
		m.Answer = append(m.Answer, &dns.PTR{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypePTR, Class: dns.ClassINET, Ttl: 5}, Ptr: ips[0]})
	}
	if q.Qtype == dns.TypeA {
		for _, ip := range ips {
			m.Answer = append(m.Answer, &dns.A{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 5}, A: net.ParseIP(ip)})
		}
	}
	w.WriteMsg(m)
}

// questions returns the questions asked so far and forgets them.
func (f *fakeDNS) questions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := f.asked
	f.asked = nil
	return q
}

// fakeCluster is a Cluster over lists of pods, ConfigMaps,
// NetworkPolicies and namespaces; with policyErr set, listing
// NetworkPolicies fails.
type fakeCluster struct {
	pods       []*api.Pod
	configMaps []*api.ConfigMap
	policies   []*api.NetworkPolicy
	namespaces []*api.Namespace
	policyErr  error
}

func (f *fakeCluster) ListNetworkPolicies(_ context.Context, ns string) ([]*api.NetworkPolicy, error) {
	if f.policyErr != nil {
		return nil, f.policyErr
	}
	var list []*api.NetworkPolicy
	for _, p := range f.policies {
		if p.Namespace == ns {
			list = append(list, p)
		}
	}
	return list, nil
}

func (f *fakeCluster) GetNamespace(_ context.Context, name string) (*api.Namespace, error) {
	for _, ns := range f.namespaces {
		if ns.Name == name {
			return ns, nil
		}
	}
	return nil, nil
}

func (f *fakeCluster) GetPod(_ context.Context, ns, name string) (*api.Pod, error) {
	for _, p := range f.pods {
		if p.Namespace == ns && p.Name == name {
			return p, nil
		}
	}
	return nil, nil
}

func (f *fakeCluster) PodByIP(_ context.Context, ip string) (*api.Pod, error) {
	for _, p := range f.pods {
		if p.Status.PodIP == ip {
			return p, nil
		}
	}
	return nil, nil
}

func (f *fakeCluster) GetConfigMap(_ context.Context, ns, name string) (*api.ConfigMap, error) {
	for _, cm := range f.configMaps {
		if cm.Namespace == ns && cm.Name == name {
			return cm, nil
		}
	}
	return nil, nil
}

func (f *fakeCluster) ListServices(context.Context, string) ([]*api.Service, error) { return nil, nil }

func (f *fakeCluster) GetService(context.Context, string, string) (*api.Service, error) {
	return nil, nil
}

func (f *fakeCluster) GetSecret(context.Context, string, string) (*api.Secret, error) {
	return nil, nil
}

// nginxAnswer is a stand-in for the runtime's nginx answer: port 80 of an
// nginx container answers a page naming the pod.
func nginxAnswer(pod *api.Pod, container *api.Container, port int32, req *http.Request) (*http.Response, bool) {
	if !strings.HasPrefix(container.Image, "nginx") || port != 80 {
		return nil, false
	}
	body := "Welcome to nginx! Served by pod " + pod.Name + "\n"
	if req.URL.Path != "/" {
		return &http.Response{StatusCode: 404, Header: http.Header{"Server": {"nginx"}}, Body: http.NoBody}, true
	}
	return &http.Response{StatusCode: 200, Status: "200 OK",
		Header: http.Header{"Server": {"nginx"}, "Content-Type": {"text/html"}, "Content-Length": {"39"}},
		Body:   ioNopCloser(body)}, true
}
