package dns

import (
	"encoding/binary"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"kplane/pkg/api"
)

// BenchmarkDNSServiceQueries measures the queries a second the DNS
// answers for a Service name over loopback UDP (the issue asks for at
// least 20 000): a table of 1 000 Services with 10 endpoints each, and
// dnsBenchClients clients each sending its share of b.N queries one after
// another, waiting for every answer. Run it with a fixed count, as
// `make bench` does:
//
//	go test -run '^$' -bench DNSServiceQueries -benchtime 100000x -count 5 ./pkg/dns/
func BenchmarkDNSServiceQueries(b *testing.B) {
	table, r := newFixture(b)
	for i := range 1000 {
		name := fmt.Sprintf("svc-%d", i)
		table.SetService(clusterIPService("default", name, []string{fmt.Sprintf("10.96.%d.%d", 1+i/250, 1+i%250)}, port("http", 80)))
		var endpoints []endpoint
		for j := range 10 {
			endpoints = append(endpoints, endpoint{ip: fmt.Sprintf("10.244.%d.%d", i%250, 1+j), ready: true})
		}
		table.SetEndpointSlice(slice("default", name, name+"-abcde", api.AddressTypeIPv4, []api.ServicePort{port("http", 80)}, endpoints...))
	}
	s := startServer(b, r)
	query, err := new(dns.Msg).SetQuestion("web.default.svc.cluster.local.", dns.TypeA).Pack()
	if err != nil {
		b.Fatal(err)
	}

	per := max(b.N/dnsBenchClients, 1)
	errs := make(chan error, dnsBenchClients)
	var clients sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range dnsBenchClients {
		clients.Go(func() { errs <- askRepeatedly(s.Addr(), query, per) })
	}
	clients.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	close(errs)
	for err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(per*dnsBenchClients)/elapsed.Seconds(), "queries/s")
}

// dnsBenchClients is how many clients query at once: a few resolvers'
// worth of concurrency, enough to keep both of the machine's cores busy.
const dnsBenchClients = 8

// askRepeatedly sends query n times over one UDP socket, each after the
// previous answer, and checks each answer's header: NOERROR with one
// answer. Reading only the header keeps the client's cost small beside
// the server's.
func askRepeatedly(addr string, query []byte, n int) error {
	conn, err := net.Dial("udp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	buf := make([]byte, dns.DefaultMsgSize)
	for i := range n {
		if err := conn.SetDeadline(time.Now().Add(5 * time.Second)); err != nil {
			return err
		}
		if _, err := conn.Write(query); err != nil {
			return fmt.Errorf("query %d: %w", i, err)
		}
		size, err := conn.Read(buf)
		if err != nil {
			return fmt.Errorf("answer %d: %w", i, err)
		}
		if size < 12 {
			return fmt.Errorf("answer %d: %d bytes, shorter than a header", i, size)
		}
		rcode, answers := buf[3]&0x0f, binary.BigEndian.Uint16(buf[6:8])
		if rcode != dns.RcodeSuccess || answers != 1 {
			return fmt.Errorf("answer %d: rcode %d with %d answers, want NOERROR with 1", i, rcode, answers)
		}
	}
	return nil
}
