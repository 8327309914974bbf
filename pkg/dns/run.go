package dns

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"sync"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/cluster"
	"kplane/pkg/clusterclock"
	"kplane/pkg/debug"
	"kplane/pkg/informer"
)

// The DNS's own debug API routes (docs/debug-api.md).
const (
	// PathTable answers the lookup table's zone, address, serial and
	// sizes (TableInfo).
	PathTable = "/debug/kplane/dns"
	// PathZone answers every record the DNS serves, in zone-file form,
	// one per line: what a zone transfer would list (ZoneRecords).
	PathZone = "/debug/kplane/dns/zone"
)

// DNS is the cluster DNS component: informers feeding the Table, the DNS
// Server answering from it, the kube-dns Service, and the HTTP server of
// health, readiness, metrics and the debug API. Build one with New and
// call Run once.
type DNS struct {
	opts  Options
	log   *slog.Logger
	base  *slog.Logger
	clock clock.Clock
	// virtual is clock when it is the cluster clock (--virtual-clock).
	virtual *clock.Virtual
	client  *client.Client

	factory  *informer.SharedInformerFactory
	handlers []informer.ResourceEventHandlerRegistration
	table    *Table

	dns  *Server
	http *debug.Server
}

// Run builds the DNS from opts and runs it until ctx ends.
func Run(ctx context.Context, opts Options) error {
	d, err := New(opts)
	if err != nil {
		return err
	}
	return d.Run(ctx)
}

// New checks opts, connects a client (without contacting the apiserver
// yet), wires the informers to a Table and binds the DNS and HTTP
// addresses, so that a port in use fails here.
func New(opts Options) (*DNS, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("dns options: %w", err)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	clk, virtual := clock.ForComponent(opts.Clock, opts.VirtualClock)
	cfg, err := client.ConfigFromKubeconfig(opts.Kubeconfig, "")
	if err != nil {
		return nil, fmt.Errorf("dns: %w", err)
	}
	cfg.UserAgent = "kplane-dns"
	cfg.Logger = logger
	cfg.OnWrite = opts.Journal.WriteHook(cluster.DNSComponent, nil)
	c, err := client.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("dns: %w", err)
	}
	d := &DNS{
		opts: opts, log: logger.With("component", "dns"), base: logger, clock: clk, virtual: virtual, client: c,
		table: NewTable(opts.ClusterDomain, clk.Now),
	}
	d.factory = informer.NewSharedInformerFactory(c, 0,
		informer.ComponentOptions(logger, clk, opts.Journal, opts.InformerFIFO, opts.TraceInformers)...)
	d.handlers, err = addEventHandlers(d.table, d.factory.Services().Informer(), d.factory.EndpointSlices().Informer(), d.factory.Namespaces().Informer())
	if err != nil {
		return nil, fmt.Errorf("dns: %w", err)
	}
	resolver := NewResolver(d.table, netip.MustParseAddr(opts.ServiceIP), uint32(opts.TTL))
	if d.dns, err = Listen("--listen", opts.Listen, resolver, d.log, opts.Verbosity); err != nil {
		return nil, fmt.Errorf("dns: %w", err)
	}
	if opts.BindAddress != "" {
		mux := debug.ComponentMux(opts.Journal, debug.TokenReviewAuthenticator(c), nil)
		mux.HandleFunc("GET /readyz", d.serveReadyz)
		opts.Journal.Handle("GET "+PathTable, http.HandlerFunc(d.serveTable))
		opts.Journal.Handle("GET "+PathZone, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			for _, line := range resolver.ZoneRecords() {
				_, _ = io.WriteString(w, line+"\n")
			}
		}))
		if d.http, err = debug.Listen("--bind-address", opts.BindAddress, mux); err != nil {
			d.dns.packetConn.Close()
			d.dns.listener.Close()
			return nil, fmt.Errorf("dns: %w", err)
		}
	}
	return d, nil
}

// Addr is the address the DNS answers on, UDP and TCP.
func (d *DNS) Addr() string { return d.dns.Addr() }

// HTTPURL is the base URL of the health, metrics and debug server, or ""
// when Options.BindAddress was empty.
func (d *DNS) HTTPURL() string {
	if d.http == nil {
		return ""
	}
	return d.http.URL()
}

// Table is the DNS's lookup table.
func (d *DNS) Table() *Table { return d.table }

// Run answers DNS queries until ctx ends. Queries inside the zone get
// SERVFAIL until the informers' first lists are in the table; the
// kube-dns Service is ensured in the background meanwhile, retried until
// the apiserver takes it. It returns nil after a clean shutdown.
func (d *DNS) Run(ctx context.Context) error {
	defer d.client.Close()
	stopFollowing, err := clusterclock.Follow(ctx, d.client, d.virtual, d.base)
	if err != nil {
		return fmt.Errorf("dns: %w", err)
	}
	defer stopFollowing()
	if d.http != nil {
		d.log.Info("serving health, readiness, metrics and the debug API", "address", d.http.URL())
		defer d.http.Serve(d.log)()
		if err := debug.Announce(d.opts.DebugEndpointFile, d.opts.DebugComponent, d.http.URL(), ""); err != nil {
			return fmt.Errorf("dns: %w", err)
		}
	}
	defer d.dns.Serve()()
	d.log.Info("answering DNS", "address", d.dns.Addr(), "zone", d.table.Zone(), "serviceIP", d.opts.ServiceIP,
		"try", digHint(d.dns.Addr(), d.table.Zone()))

	var background sync.WaitGroup
	defer background.Wait()
	background.Go(func() { d.ensureKubeDNS(ctx) })

	d.factory.Start(ctx)
	defer d.factory.Shutdown()
	synced := make([]func() bool, 0, len(d.handlers))
	for _, reg := range d.handlers {
		synced = append(synced, reg.HasSynced)
	}
	if !informer.WaitForCacheSync(ctx, synced...) {
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("dns: informer caches did not sync")
	}
	d.table.MarkSynced()
	counts := d.table.Counts()
	d.log.Info("caches synced; answering from the table", "namespaces", counts.Namespaces, "services", counts.Services, "endpoints", counts.Endpoints)
	<-ctx.Done()
	return nil
}

// ensureKubeDNS makes sure the kube-dns Service exists, retrying every
// second while the apiserver is not there yet, and records what it found
// as a decision. A refusal the apiserver will repeat (the cluster IP
// taken, an invalid Service) is logged and not retried.
func (d *DNS) ensureKubeDNS(ctx context.Context) {
	for {
		svc, created, err := ensureKubeDNSService(ctx, d.client, d.opts.ServiceIP)
		if err == nil {
			d.recordKubeDNS(svc, created)
			return
		}
		if ctx.Err() != nil {
			return
		}
		if isPermanent(err) {
			d.log.Error("the kube-dns Service cannot be created; DNS answers anyway, at its own address", "err", err)
			return
		}
		d.log.Info("kube-dns Service not ensured yet; retrying", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-d.clock.After(time.Second):
		}
	}
}

// recordKubeDNS logs and journals the kube-dns Service found or created.
func (d *DNS) recordKubeDNS(svc *api.Service, created bool) {
	verb := "found"
	if created {
		verb = "created"
	}
	message := fmt.Sprintf("kube-dns Service %s with clusterIP %s; no pod backs it: the DNS is the process answering at %s", verb, svc.Spec.ClusterIP, d.dns.Addr())
	if svc.Spec.ClusterIP != d.opts.ServiceIP {
		message += fmt.Sprintf(" (the Service's clusterIP is not --service-ip %s: pods' resolv.conf names %s)", d.opts.ServiceIP, d.opts.ServiceIP)
	}
	d.log.Info(message)
	d.opts.Journal.Decision(debug.Decision{
		Actor: "dns", Resource: "services", Key: kubeDNSNamespace + "/" + kubeDNSName,
		UID: svc.UID, ResourceVersion: svc.ResourceVersion, Message: message,
		Values: map[string]string{"created": fmt.Sprint(created), "clusterIP": svc.Spec.ClusterIP, "address": d.dns.Addr()},
		Source: "cmd/kubeadm/app/phases/addons/dns/dns.go",
	})
}

// serveReadyz answers /readyz: 200 once the table holds the cluster,
// 503 before, as CoreDNS's ready plugin does.
func (d *DNS) serveReadyz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if !d.table.Synced() {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("informer caches not synced yet"))
		return
	}
	_, _ = w.Write([]byte("ok"))
}

// TableInfo is the answer of PathTable.
type TableInfo struct {
	Zone    string `json:"zone"`
	Address string `json:"address"`
	Synced  bool   `json:"synced"`
	Serial  uint32 `json:"serial"`
	Counts
}

func (d *DNS) serveTable(w http.ResponseWriter, _ *http.Request) {
	debug.WriteJSON(w, TableInfo{Zone: d.table.Zone(), Address: d.dns.Addr(), Synced: d.table.Synced(), Serial: d.table.Serial(), Counts: d.table.Counts()})
}

// isPermanent reports whether the apiserver will refuse the same create
// again: an invalid object (the cluster IP taken) or one it forbids.
func isPermanent(err error) bool {
	return apierrors.IsInvalid(err) || apierrors.IsForbidden(err) || apierrors.IsBadRequest(err)
}

// digHint is the dig command a student can try against addr.
func digHint(addr, zone string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	return "dig @" + host + " -p " + port + " kubernetes.default.svc." + zone
}
