package dns

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/miekg/dns"

	"kplane/pkg/debug"
)

// Server serves a Resolver on one loopback address, over UDP and TCP on
// the same port, as a DNS server must (RFC 7766): a reply too large for
// the client's UDP buffer is cut and marked truncated (TC), and the
// client asks again over TCP.
type Server struct {
	resolver *Resolver
	log      *slog.Logger
	// verbosity is --v: at 4 every query is logged.
	verbosity int
	// label is the server label of the metrics: "dns://<address>".
	label string

	packetConn net.PacketConn
	listener   net.Listener
	udp, tcp   *dns.Server
}

// Listen binds addr (host:port on a loopback address; port 0 picks a
// free one) for UDP and then TCP on the port UDP got, so that a port in
// use fails here, at start. flag names the address's flag in errors.
// With port 0 the kernel picks a UDP port whose TCP twin may belong to
// someone else; Listen then tries another port, a few times.
func Listen(flag, addr string, resolver *Resolver, log *slog.Logger, verbosity int) (*Server, error) {
	if err := debug.CheckLoopback(flag, addr); err != nil {
		return nil, err
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", flag, addr, err)
	}
	attempts := 1
	if port == "0" {
		attempts = 10
	}
	var pc net.PacketConn
	var ln net.Listener
	for range attempts {
		pc, ln, err = listenUDPAndTCP(addr)
		if err == nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.Default()
	}
	s := &Server{resolver: resolver, log: log, verbosity: verbosity, packetConn: pc, listener: ln}
	s.label = "dns://" + s.Addr()
	return s, nil
}

// listenUDPAndTCP binds addr for UDP, then TCP on the port UDP got.
func listenUDPAndTCP(addr string) (net.PacketConn, net.Listener, error) {
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listen on %s/udp: %w", addr, err)
	}
	ln, err := net.Listen("tcp", pc.LocalAddr().String())
	if err != nil {
		pc.Close()
		return nil, nil, fmt.Errorf("listen on %s/tcp: %w", pc.LocalAddr(), err)
	}
	return pc, ln, nil
}

// Addr is the address the server listens on, UDP and TCP.
func (s *Server) Addr() string { return s.packetConn.LocalAddr().String() }

// Serve answers queries in two goroutines, one per transport, until the
// stop it returns is called; stop waits for the queries in flight. Serve
// returns once both transports accept queries.
func (s *Server) Serve() (stop func()) {
	var started sync.WaitGroup
	started.Add(2)
	// Each transport says once that it started, or that it failed to.
	var udpStarted, tcpStarted sync.Once
	s.udp = &dns.Server{PacketConn: s.packetConn, Handler: s, UDPSize: dns.DefaultMsgSize,
		NotifyStartedFunc: func() { udpStarted.Do(started.Done) }}
	s.tcp = &dns.Server{Listener: s.listener, Handler: s,
		NotifyStartedFunc: func() { tcpStarted.Do(started.Done) }}
	var done sync.WaitGroup
	for _, srv := range []*dns.Server{s.udp, s.tcp} {
		done.Go(func() {
			if err := srv.ActivateAndServe(); err != nil && !errors.Is(err, net.ErrClosed) {
				s.log.Error("dns server stopped", "err", err)
			}
			srv.NotifyStartedFunc() // a server that never started must not hold Serve
		})
	}
	started.Wait()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.udp.ShutdownContext(ctx)
		_ = s.tcp.ShutdownContext(ctx)
		done.Wait()
	}
}

// ServeDNS answers one query: resolve, fit the reply to the transport,
// count it, write it.
func (s *Server) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	start := time.Now()
	proto, family := transportOf(w.RemoteAddr())
	reply := s.resolver.Resolve(req)
	fit(reply, req, proto)
	// Counted before the reply goes out, so that a client that has its
	// answer also finds it in /metrics.
	s.count(req, reply, proto, family, time.Since(start))
	if err := w.WriteMsg(reply); err != nil {
		s.log.Warn("dns: write reply", "client", w.RemoteAddr().String(), "err", err)
	}
	if s.verbosity >= 4 {
		name := ""
		if len(req.Question) == 1 {
			name = req.Question[0].Name
		}
		s.log.Info("query", "name", name, "type", queryTypeLabel(req), "proto", proto, "rcode", dns.RcodeToString[reply.Rcode],
			"answers", len(reply.Answer), "truncated", reply.Truncated, "client", w.RemoteAddr().String(), "duration", time.Since(start))
	}
}

// count adds one query to the metrics; elapsed is the time to resolve
// and fit it, the write not included.
func (s *Server) count(req, reply *dns.Msg, proto, family string, elapsed time.Duration) {
	qtype := queryTypeLabel(req)
	plugin := "kubernetes"
	if reply.Rcode == dns.RcodeRefused || reply.Rcode == dns.RcodeFormatError || reply.Rcode == dns.RcodeNotImplemented {
		plugin = ""
	}
	requestsTotal.WithLabelValues(s.label, metricsZone, "", proto, family, qtype).Inc()
	responsesTotal.WithLabelValues(s.label, metricsZone, "", dns.RcodeToString[reply.Rcode], plugin).Inc()
	requestDuration.WithLabelValues(s.label, metricsZone, "", qtype).Observe(elapsed.Seconds())
}

// transportOf is the proto ("udp", "tcp") and family ("1" IPv4, "2"
// IPv6) labels of a client's address.
func transportOf(addr net.Addr) (proto, family string) {
	proto, family = "udp", "1"
	var ip net.IP
	switch a := addr.(type) {
	case *net.TCPAddr:
		proto, ip = "tcp", a.IP
	case *net.UDPAddr:
		ip = a.IP
	}
	if ip != nil && ip.To4() == nil {
		family = "2"
	}
	return proto, family
}

// queryTypeLabel is the type label of req's question.
func queryTypeLabel(req *dns.Msg) string {
	if len(req.Question) != 1 {
		return "other"
	}
	return typeLabel(req.Question[0].Qtype)
}

// fit cuts reply to what the client can take: over TCP a whole message,
// over UDP the buffer size its EDNS0 OPT record advertises, or 512 bytes
// without one (RFC 1035). What does not fit is left out and the TC bit
// set, so the client retries over TCP.
func fit(reply, req *dns.Msg, proto string) {
	size := dns.MinMsgSize
	switch {
	case proto == "tcp":
		size = dns.MaxMsgSize
	case req.IsEdns0() != nil:
		size = int(req.IsEdns0().UDPSize())
	}
	reply.Truncate(size)
}
