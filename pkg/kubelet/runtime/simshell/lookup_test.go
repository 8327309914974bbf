package simshell

import (
	"slices"
	"testing"
)

// clusterRecords are the names the fake cluster DNS knows.
var clusterRecords = map[string][]string{
	"web.default.svc.cluster.local.":                 {"10.96.0.20"},
	"nginx-ss.default.svc.cluster.local.":            {"10.244.1.5", "10.244.2.7"},
	"nginx-ss-1.nginx-ss.default.svc.cluster.local.": {"10.244.2.7"},
	"db.shop.svc.cluster.local.":                     {"10.96.0.30"},
	"7.2.244.10.in-addr.arpa.":                       {"10-244-2-7.nginx-ss.default.svc.cluster.local."},
}

func TestGetentHostsFollowsSearchListAndNdots(t *testing.T) {
	dnsServer := startFakeDNS(t, clusterRecords)
	env := testEnv()
	env.DNSAddress = dnsServer.addr
	cases := []struct {
		name, stdout string
		code         int
		asked        []string
	}{
		{"web", "10.96.0.20      web.default.svc.cluster.local\n", 0, []string{"A web.default.svc.cluster.local."}},
		{"nginx-ss-1.nginx-ss", "10.244.2.7      nginx-ss-1.nginx-ss.default.svc.cluster.local\n", 0,
			[]string{"A nginx-ss-1.nginx-ss.default.svc.cluster.local."}},
		{"nginx-ss-1.nginx-ss.default.svc.cluster.local", "10.244.2.7      nginx-ss-1.nginx-ss.default.svc.cluster.local\n", 0,
			// five dots, as many as ndots:5: as it is first.
			[]string{"A nginx-ss-1.nginx-ss.default.svc.cluster.local."}},
		{"web.default.svc.cluster.local", "10.96.0.20      web.default.svc.cluster.local\n", 0,
			// four dots, fewer than ndots:5: the search list first (the
			// famous ndots:5 cost of a Service's full name without the dot).
			[]string{"A web.default.svc.cluster.local.default.svc.cluster.local.",
				"A web.default.svc.cluster.local.svc.cluster.local.",
				"A web.default.svc.cluster.local.cluster.local.",
				"A web.default.svc.cluster.local."}},
		{"nginx-ss", "10.244.1.5      nginx-ss.default.svc.cluster.local\n10.244.2.7      nginx-ss.default.svc.cluster.local\n", 0,
			[]string{"A nginx-ss.default.svc.cluster.local."}},
		{"db.shop", "10.96.0.30      db.shop.svc.cluster.local\n", 0,
			[]string{"A db.shop.default.svc.cluster.local.", "A db.shop.svc.cluster.local."}},
		{"web.default.svc.cluster.local.", "10.96.0.20      web.default.svc.cluster.local\n", 0, []string{"A web.default.svc.cluster.local."}},
		{"nginx-ss-0", "10.244.1.5      nginx-ss-0.nginx-ss.default.svc.cluster.local nginx-ss-0\n", 0, nil}, // /etc/hosts
		{"localhost", "127.0.0.1       localhost\n", 0, nil},
		{"10.244.1.5", "10.244.1.5      nginx-ss-0.nginx-ss.default.svc.cluster.local nginx-ss-0\n", 0, nil}, // /etc/hosts
		{"10.244.2.7", "10.244.2.7      10-244-2-7.nginx-ss.default.svc.cluster.local\n", 0, []string{"PTR 7.2.244.10.in-addr.arpa."}},
		{"10.9.9.9", "", 2, []string{"PTR 9.9.9.10.in-addr.arpa."}},
		{"nope", "", 2, []string{"A nope.default.svc.cluster.local.", "A nope.svc.cluster.local.", "A nope.cluster.local.", "A nope."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, env, "", "getent", "hosts", tc.name)
			if r.stdout != tc.stdout || r.code != tc.code {
				t.Errorf("stdout %q code %d, want %q %d", r.stdout, r.code, tc.stdout, tc.code)
			}
			if asked := dnsServer.questions(); !slices.Equal(asked, tc.asked) {
				t.Errorf("questions %q, want %q", asked, tc.asked)
			}
		})
	}
}

func TestNoReachableDNS(t *testing.T) {
	env := testEnv() // no DNSAddress: nothing answers
	if r := run(t, env, "", "getent", "hosts", "web"); r.code != 2 || r.stdout != "" {
		t.Errorf("getent without DNS: %+v", r)
	}
	r := run(t, env, "", "nslookup", "web")
	if r.stdout != ";; connection timed out; no servers could be reached\n\n" || r.code != 1 {
		t.Errorf("nslookup without DNS: %+v", r)
	}
	dnsServer := startFakeDNS(t, clusterRecords)
	env.DNSAddress = dnsServer.addr
	env.Pod.Spec.DNSPolicy = "Default" // nameserver 127.0.0.1 is not the cluster DNS
	if r := run(t, env, "", "getent", "hosts", "web"); r.code != 2 {
		t.Errorf("getent with dnsPolicy Default: %+v", r)
	}
	if asked := dnsServer.questions(); len(asked) != 0 {
		t.Errorf("a Default pod's look-up reached the cluster DNS: %q", asked)
	}
}

func TestNslookupPrintsBusyboxBlocks(t *testing.T) {
	dnsServer := startFakeDNS(t, clusterRecords)
	env := testEnv()
	env.DNSAddress = dnsServer.addr
	r := run(t, env, "", "nslookup", "web")
	want := "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\n" +
		"Name:\tweb.default.svc.cluster.local\nAddress: 10.96.0.20\n\n" +
		"** server can't find web.svc.cluster.local: NXDOMAIN\n\n" +
		"** server can't find web.cluster.local: NXDOMAIN\n\n" +
		"\n" + // AAAA web.default.svc.cluster.local: NODATA, an empty block
		"** server can't find web.svc.cluster.local: NXDOMAIN\n\n" +
		"** server can't find web.cluster.local: NXDOMAIN\n\n"
	if r.stdout != want || r.code != 1 {
		t.Errorf("nslookup web:\n%s\ncode %d; want:\n%s", r.stdout, r.code, want)
	}
	r = run(t, env, "", "nslookup", "nginx-ss-1.nginx-ss.default.svc.cluster.local")
	want = "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\n" +
		"Name:\tnginx-ss-1.nginx-ss.default.svc.cluster.local\nAddress: 10.244.2.7\n\n\n"
	if r.stdout != want || r.code != 0 {
		t.Errorf("nslookup of a full name:\n%q\ncode %d; want:\n%q", r.stdout, r.code, want)
	}
}

func TestNslookupSRVAndPTR(t *testing.T) {
	dnsServer := startFakeDNS(t, clusterRecords)
	env := testEnv()
	env.DNSAddress = dnsServer.addr
	run(t, env, "", "nslookup", "-type=srv", "_http._tcp.nginx-ss.default.svc.cluster.local")
	run(t, env, "", "nslookup", "10.244.2.7")
	want := []string{"SRV _http._tcp.nginx-ss.default.svc.cluster.local.", "PTR 7.2.244.10.in-addr.arpa."}
	if asked := dnsServer.questions(); !slices.Equal(asked, want) {
		t.Errorf("questions %q, want %q", asked, want)
	}
	if r := run(t, env, "", "nslookup", "-type=BOGUS", "web"); r.code != 1 || r.stderr != "nslookup: invalid query type \"BOGUS\"\n" {
		t.Errorf("bad type: %+v", r)
	}
}
