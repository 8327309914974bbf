package dns

import (
	"net/netip"
	"testing"
)

// TestParseName splits names as CoreDNS's parseRequest does.
func TestParseName(t *testing.T) {
	const zone = "cluster.local."
	tests := []struct {
		name string
		want query
		err  bool
	}{
		{name: "cluster.local.", want: query{}},
		{name: "svc.cluster.local.", want: query{}},
		{name: "pod.cluster.local.", want: query{}},
		{name: "default.svc.cluster.local.", want: query{kind: kindService, namespace: "default"}},
		{name: "web.default.svc.cluster.local.", want: query{kind: kindService, namespace: "default", service: "web"}},
		{name: "web-0.web.default.svc.cluster.local.", want: query{kind: kindService, namespace: "default", service: "web", endpoint: "web-0"}},
		{name: "_http._tcp.web.default.svc.cluster.local.", want: query{kind: kindService, namespace: "default", service: "web", port: "http", protocol: "tcp"}},
		{name: "10-244-1-5.default.pod.cluster.local.", want: query{kind: kindPod, namespace: "default", service: "10-244-1-5"}},
		{name: "web.default.cluster.local.", want: query{kind: "default"}, err: true},
		{name: "a.b.web.default.svc.cluster.local.", want: query{kind: kindService, namespace: "default", service: "web", port: "a", protocol: "b"}},
		{name: "a.b.c.web.default.svc.cluster.local.", want: query{kind: kindService, namespace: "default", service: "web"}, err: true},
	}
	for _, tt := range tests {
		got, err := parseName(tt.name, zone)
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("parseName(%q) = %+v, %v; want %+v, error %v", tt.name, got, err, tt.want, tt.err)
		}
	}
}

// TestAddressFromReverse reads full reverse names only.
func TestAddressFromReverse(t *testing.T) {
	tests := []struct {
		name string
		want string // "" for not an address
	}{
		{"5.1.244.10.in-addr.arpa.", "10.244.1.5"},
		{"1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa.", "fd00::1"},
		{"1.244.10.in-addr.arpa.", ""},
		{"256.1.244.10.in-addr.arpa.", ""},
		{"05.1.244.10.in-addr.arpa.", ""},
		{"x.1.244.10.in-addr.arpa.", ""},
		{"0.0.ip6.arpa.", ""},
	}
	for _, tt := range tests {
		got, ok := addressFromReverse(tt.name)
		if tt.want == "" {
			if ok {
				t.Errorf("addressFromReverse(%q) = %v, want none", tt.name, got)
			}
			continue
		}
		if !ok || got != netip.MustParseAddr(tt.want) {
			t.Errorf("addressFromReverse(%q) = %v, %v; want %s", tt.name, got, ok, tt.want)
		}
	}
}
