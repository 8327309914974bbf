package dns_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	mdns "github.com/miekg/dns"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/debug"
	"kplane/pkg/dns"
	"kplane/test/framework"
)

const waitTimeout = 30 * time.Second

// startDNS runs a DNS against a and stops it when the test ends,
// checking that Run returns nil.
func startDNS(t *testing.T, a *framework.APIServer, journal *debug.Journal) *dns.DNS {
	t.Helper()
	opts := dns.DefaultOptions()
	opts.Kubeconfig = a.KubeconfigPath()
	opts.Listen, opts.BindAddress = "127.0.0.1:0", "127.0.0.1:0"
	opts.Journal = journal
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	d, err := dns.New(opts)
	if err != nil {
		t.Fatalf("dns.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("dns.Run: %v", err)
			}
		case <-time.After(waitTimeout):
			t.Errorf("the DNS did not stop within %v", waitTimeout)
		}
	})
	return d
}

// waitAnswer asks d name/qtype until the rcode and the answer's records
// (in zone-file form) are as wanted.
func waitAnswer(t *testing.T, d *dns.DNS, name string, qtype uint16, rcode int, want ...string) {
	t.Helper()
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		c := &mdns.Client{Timeout: 2 * time.Second}
		reply, _, err := c.Exchange(new(mdns.Msg).SetQuestion(name, qtype), d.Addr())
		if err != nil {
			return false, err.Error()
		}
		var got []string
		for _, rr := range reply.Answer {
			got = append(got, strings.Join(strings.Fields(rr.String()), " "))
		}
		return reply.Rcode == rcode && slices.Equal(got, want),
			fmt.Sprintf("%s %s: %s %q, want %s %q", name, mdns.TypeToString[qtype], mdns.RcodeToString[reply.Rcode], got, mdns.RcodeToString[rcode], want)
	})
}

// TestDNSFollowsTheAPI runs the DNS against a real apiserver: it creates
// the kube-dns Service and records that as a decision, becomes ready,
// and answers Services and hand-written EndpointSlices as they are
// created and deleted.
func TestDNSFollowsTheAPI(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	journal := debug.NewJournal("dns", 1000, nil)
	d := startDNS(t, a, journal)

	waitAnswer(t, d, "kube-dns.kube-system.svc.cluster.local.", mdns.TypeA, mdns.RcodeSuccess,
		"kube-dns.kube-system.svc.cluster.local. 5 IN A 10.96.0.10")
	svc, err := c.Services("kube-system").Get(ctx, "kube-dns", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Labels["k8s-app"] != "kube-dns" || svc.Spec.Selector["k8s-app"] != "kube-dns" || len(svc.Spec.Ports) != 3 ||
		svc.Spec.Ports[0].Protocol != api.ProtocolUDP || svc.Spec.Ports[2].Port != 9153 {
		t.Errorf("kube-dns Service = %+v %+v", svc.Labels, svc.Spec)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		records, _ := journal.After(0)
		for _, r := range records {
			if r.Type == debug.TypeDecision && r.Key == "kube-system/kube-dns" && r.Values["created"] == "true" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("no decision about kube-system/kube-dns among %d records", len(records))
	})
	resp, err := http.Get(d.HTTPURL() + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz = %d after the first answer, want 200", resp.StatusCode)
	}

	// A ClusterIP Service, then a headless one with a slice written by hand.
	web, err := c.Services("default").Create(ctx, &api.Service{
		ObjectMeta: api.ObjectMeta{Name: "web"},
		Spec:       api.ServiceSpec{Ports: []api.ServicePort{{Name: "http", Port: 80}}},
	}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitAnswer(t, d, "web.default.svc.cluster.local.", mdns.TypeA, mdns.RcodeSuccess, "web.default.svc.cluster.local. 5 IN A "+web.Spec.ClusterIP)

	if _, err := c.Services("default").Create(ctx, &api.Service{
		ObjectMeta: api.ObjectMeta{Name: "db"},
		Spec:       api.ServiceSpec{ClusterIP: api.ClusterIPNone, Ports: []api.ServicePort{{Name: "sql", Port: 5432}}},
	}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ready, hostname, portName, port, protocol := true, "db-0", "sql", int32(5432), api.ProtocolTCP
	if _, err := c.EndpointSlices("default").Create(ctx, &api.EndpointSlice{
		ObjectMeta:  api.ObjectMeta{Name: "db-manual", Labels: map[string]string{api.LabelServiceName: "db"}},
		AddressType: api.AddressTypeIPv4,
		Endpoints:   []api.Endpoint{{Addresses: []string{"10.244.1.30"}, Hostname: &hostname, Conditions: api.EndpointConditions{Ready: &ready}}},
		Ports:       []api.EndpointSlicePort{{Name: &portName, Port: &port, Protocol: &protocol}},
	}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAnswer(t, d, "db-0.db.default.svc.cluster.local.", mdns.TypeA, mdns.RcodeSuccess, "db-0.db.default.svc.cluster.local. 5 IN A 10.244.1.30")
	waitAnswer(t, d, "_sql._tcp.db.default.svc.cluster.local.", mdns.TypeSRV, mdns.RcodeSuccess,
		"_sql._tcp.db.default.svc.cluster.local. 5 IN SRV 0 100 5432 db-0.db.default.svc.cluster.local.")

	// The debug API lists the zone (the journal's handler without
	// authentication, as the component serves it behind the admin check).
	rec := httptest.NewRecorder()
	journal.Handler(nil, false).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, dns.PathZone, nil))
	if zone := rec.Body.String(); rec.Code != http.StatusOK || !strings.Contains(zone, "db-0.db.default.svc.cluster.local.\t5\tIN\tA\t10.244.1.30\n") ||
		!strings.Contains(zone, "web.default.svc.cluster.local.\t5\tIN\tA\t"+web.Spec.ClusterIP+"\n") {
		t.Errorf("%s = %d:\n%s", dns.PathZone, rec.Code, zone)
	}

	if err := c.Services("default").Delete(ctx, "web", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAnswer(t, d, "web.default.svc.cluster.local.", mdns.TypeA, mdns.RcodeNameError)
}

// TestDNSKeepsAnExistingKubeDNSService: a second DNS finds the Service the
// first created and leaves it as it is.
func TestDNSKeepsAnExistingKubeDNSService(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	if _, err := c.Services("kube-system").Create(context.Background(), &api.Service{
		ObjectMeta: api.ObjectMeta{Name: "kube-dns", Namespace: "kube-system", Labels: map[string]string{"mine": "yes"}},
		Spec:       api.ServiceSpec{ClusterIP: "10.96.0.10", Ports: []api.ServicePort{{Name: "dns", Port: 53, Protocol: api.ProtocolUDP}}},
	}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	journal := debug.NewJournal("dns", 1000, nil)
	d := startDNS(t, a, journal)
	waitAnswer(t, d, "_dns._udp.kube-dns.kube-system.svc.cluster.local.", mdns.TypeSRV, mdns.RcodeSuccess,
		"_dns._udp.kube-dns.kube-system.svc.cluster.local. 5 IN SRV 0 100 53 kube-dns.kube-system.svc.cluster.local.")
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		records, _ := journal.After(0)
		for _, r := range records {
			if r.Type == debug.TypeDecision && r.Key == "kube-system/kube-dns" {
				return r.Values["created"] == "false", "decision " + r.Message
			}
		}
		return false, "no decision about kube-system/kube-dns yet"
	})
	svc, err := c.Services("kube-system").Get(context.Background(), "kube-dns", client.GetOptions{})
	if err != nil || svc.Labels["mine"] != "yes" || len(svc.Spec.Ports) != 1 {
		t.Errorf("kube-dns Service changed: %+v, %v", svc, err)
	}
}
