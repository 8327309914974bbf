package podfiles

import (
	"strings"
	"testing"

	"kplane/pkg/api"
)

var settings = DNSSettings{ClusterDNS: "10.96.0.10", ClusterDomain: "cluster.local"}

func podWith(mutate func(*api.Pod)) *api.Pod {
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "nginx-ss-0", Namespace: "default"}}
	pod.Spec.DNSPolicy = api.DNSClusterFirst
	pod.Status.PodIP = "10.244.1.5"
	pod.Status.PodIPs = []api.PodIP{{IP: "10.244.1.5"}}
	if mutate != nil {
		mutate(pod)
	}
	return pod
}

func TestPodResolvConfForEachDNSPolicy(t *testing.T) {
	ndots2 := "2"
	cases := []struct {
		name     string
		settings DNSSettings
		mutate   func(*api.Pod)
		want     string
	}{
		{"ClusterFirst", settings, nil,
			"search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n"},
		{"empty policy is ClusterFirst", settings, func(p *api.Pod) { p.Spec.DNSPolicy = ""; p.Namespace = "shop" },
			"search shop.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n"},
		{"ClusterFirst on the host network falls back to Default", settings, func(p *api.Pod) { p.Spec.HostNetwork = true },
			"search .\nnameserver 127.0.0.1\n"},
		{"ClusterFirstWithHostNet on the host network", settings, func(p *api.Pod) {
			p.Spec.HostNetwork = true
			p.Spec.DNSPolicy = api.DNSClusterFirstWithHostNet
		}, "search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n"},
		{"Default", settings, func(p *api.Pod) { p.Spec.DNSPolicy = api.DNSDefault }, "search .\nnameserver 127.0.0.1\n"},
		{"ClusterFirst without a cluster DNS falls back to Default", DNSSettings{ClusterDomain: "cluster.local"}, nil,
			"search .\nnameserver 127.0.0.1\n"},
		{"None takes only dnsConfig", settings, func(p *api.Pod) {
			p.Spec.DNSPolicy = api.DNSNone
			p.Spec.DNSConfig = &api.PodDNSConfig{Nameservers: []string{"1.2.3.4"}, Searches: []string{"ns1.svc.cluster-domain.example"},
				Options: []api.PodDNSConfigOption{{Name: "ndots", Value: &ndots2}, {Name: "edns0"}}}
		}, "search ns1.svc.cluster-domain.example\nnameserver 1.2.3.4\noptions ndots:2 edns0\n"},
		{"dnsConfig is appended, its options replace", settings, func(p *api.Pod) {
			p.Spec.DNSConfig = &api.PodDNSConfig{Nameservers: []string{"10.96.0.10", "1.1.1.1", "8.8.8.8", "9.9.9.9"},
				Searches: []string{"cluster.local", "example.com"}, Options: []api.PodDNSConfigOption{{Name: "ndots", Value: &ndots2}}}
		}, "search default.svc.cluster.local svc.cluster.local cluster.local example.com\n" +
			"nameserver 10.96.0.10\nnameserver 1.1.1.1\nnameserver 8.8.8.8\noptions ndots:2\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := PodResolvConf(podWith(tc.mutate), tc.settings).String(); got != tc.want {
				t.Errorf("resolv.conf:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestNdots(t *testing.T) {
	for _, tc := range []struct {
		options []string
		want    int
	}{{nil, 1}, {[]string{"ndots:5"}, 5}, {[]string{"edns0", "ndots:0"}, 0}, {[]string{"ndots:99"}, 15}, {[]string{"ndots:x"}, 1}} {
		if got := (ResolvConf{Options: tc.options}).Ndots(); got != tc.want {
			t.Errorf("Ndots(%v) = %d, want %d", tc.options, got, tc.want)
		}
	}
}

const localhostLines = "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n" +
	"fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n"

func TestHostsFile(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*api.Pod)
		want   string
	}{
		{"plain pod", nil, localhostLines + "10.244.1.5\tnginx-ss-0\n"},
		{"hostname and subdomain", func(p *api.Pod) { p.Spec.Hostname = "nginx-ss-0"; p.Spec.Subdomain = "nginx-ss" },
			localhostLines + "10.244.1.5\tnginx-ss-0.nginx-ss.default.svc.cluster.local\tnginx-ss-0\n"},
		{"hostAliases", func(p *api.Pod) {
			p.Spec.HostAliases = []api.HostAlias{{IP: "127.0.0.1", Hostnames: []string{"foo.local", "bar.local"}}, {IP: "10.1.2.3", Hostnames: []string{"foo.remote"}}}
		}, localhostLines + "10.244.1.5\tnginx-ss-0\n\n# Entries added by HostAliases.\n127.0.0.1\tfoo.local\tbar.local\n10.1.2.3\tfoo.remote\n"},
		{"no IP yet", func(p *api.Pod) { p.Status.PodIP = ""; p.Status.PodIPs = nil }, localhostLines},
		{"host network", func(p *api.Pod) { p.Spec.HostNetwork = true; p.Spec.NodeName = "node1" },
			"# Kubernetes-managed hosts file (host network).\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.0.1\tnode1\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := HostsFile(podWith(tc.mutate), "cluster.local", "127.0.0.1"); got != tc.want {
				t.Errorf("hosts:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestHostnameFile(t *testing.T) {
	yes := true
	long := strings.Repeat("a", 62) + "-b"
	cases := []struct {
		name   string
		mutate func(*api.Pod)
		want   string
	}{
		{"pod name", nil, "nginx-ss-0\n"},
		{"spec.hostname", func(p *api.Pod) { p.Spec.Hostname = "db" }, "db\n"},
		{"long name truncated without trailing dash", func(p *api.Pod) { p.Name = long }, strings.Repeat("a", 62) + "\n"},
		{"setHostnameAsFQDN", func(p *api.Pod) { p.Spec.Subdomain = "nginx-ss"; p.Spec.SetHostnameAsFQDN = &yes },
			"nginx-ss-0.nginx-ss.default.svc.cluster.local\n"},
		{"setHostnameAsFQDN without subdomain", func(p *api.Pod) { p.Spec.SetHostnameAsFQDN = &yes }, "nginx-ss-0\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := HostnameFile(podWith(tc.mutate), "cluster.local"); got != tc.want {
				t.Errorf("hostname = %q, want %q", got, tc.want)
			}
		})
	}
}
