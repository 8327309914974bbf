package kubeproxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/clusterclock"
	"kplane/pkg/debug"
	"kplane/pkg/informer"
	"kplane/pkg/proxy"
	"kplane/pkg/proxy/iptables"
	"kplane/pkg/proxy/runner"
)

// Snapshot is the result of one sync: the node's model and its iptables
// rules. A snapshot never changes; the next sync replaces it.
type Snapshot struct {
	State    *proxy.State
	IPTables *iptables.Ruleset
	// Synced is when the sync ran; Took how long computing took.
	Synced time.Time
	Took   time.Duration
}

// Proxier is one node's kube-proxy. Build it with New and call Run once.
type Proxier struct {
	opts  Options
	log   *slog.Logger
	base  *slog.Logger
	clock clock.Clock
	// virtual is clock when it is the cluster clock (Options.VirtualClock).
	virtual *clock.Virtual

	client   *client.Client
	factory  *informer.SharedInformerFactory
	services *informer.Lister[*api.Service]
	slices   *informer.Lister[*api.EndpointSlice]
	nodes    *informer.Lister[*api.Node]
	handlers []informer.ResourceEventHandlerRegistration

	runner  *runner.BoundedFrequencyRunner
	metrics *metrics
	// current is the last sync's Snapshot (nil before the first).
	current atomic.Pointer[Snapshot]
	// walker answers /proxy/route; its recent lists (session affinity)
	// outlive syncs, as the kernel's do.
	walker *iptables.Walker
	// randMu guards rand, which the walker draws from.
	randMu sync.Mutex
	rand   *rand.Rand

	server *debug.Server
	// lastRules is the last sync's summary of each Service's rules, so the
	// next records only the Services that changed; only the sync loop
	// touches it.
	lastRules map[string]serviceRules
}

// Run builds a kube-proxy from opts and runs it until ctx ends.
func Run(ctx context.Context, opts Options) error {
	p, err := New(opts)
	if err != nil {
		return err
	}
	return p.Run(ctx)
}

// New checks opts, connects a client (without contacting the apiserver
// yet), wires informers to the sync loop and binds the HTTP server.
func New(opts Options) (*Proxier, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("kube-proxy options: %w", err)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	clk, virtual := clock.ForComponent(opts.Clock, opts.VirtualClock)
	cfg, err := client.ConfigFromKubeconfig(opts.Kubeconfig, "")
	if err != nil {
		return nil, fmt.Errorf("kube-proxy: %w", err)
	}
	cfg.UserAgent = "kplane-kube-proxy/" + opts.HostnameOverride
	cfg.Logger = logger
	cfg.QPS, cfg.Burst = opts.KubeAPIQPS, opts.KubeAPIBurst
	c, err := client.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("kube-proxy: %w", err)
	}
	p := &Proxier{
		opts:    opts,
		log:     logger.With("component", "kube-proxy", "node", opts.HostnameOverride),
		base:    logger,
		clock:   clk,
		virtual: virtual,
		client:  c,
		metrics: newMetrics(),
		rand:    rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
	}
	p.walker = &iptables.Walker{Recent: iptables.NewRecentLists(), Random: p.random, Now: clk.Now}
	p.runner = runner.New(p.sync, opts.MinSyncPeriod, opts.SyncPeriod, clk)
	p.factory = informer.NewSharedInformerFactory(c, 0,
		informer.ComponentOptions(logger, clk, opts.Journal, opts.InformerFIFO, opts.TraceInformers)...)
	services, slices, nodes := p.factory.Services(), p.factory.EndpointSlices(), p.factory.Nodes()
	p.services, p.slices, p.nodes = services.Lister(), slices.Lister(), nodes.Lister()
	// Only this node's own object matters (its addresses are where
	// NodePorts listen), as upstream's kube-proxy watches only its node.
	ownNode := informer.FilteringResourceEventHandler{
		FilterFunc: func(obj any) bool {
			n, ok := informer.DeletedObject[*api.Node](obj) // a Node, or a tombstone of one
			return ok && n.Name == opts.HostnameOverride
		},
		Handler: p.changeHandler(func() {}),
	}
	for _, h := range []struct {
		inf     informer.SharedIndexInformer
		handler informer.ResourceEventHandler
	}{
		{services.Informer(), p.changeHandler(p.metrics.serviceChanges.Inc)},
		{slices.Informer(), p.changeHandler(p.metrics.endpointChanges.Inc)},
		{nodes.Informer(), ownNode},
	} {
		reg, err := h.inf.AddEventHandler(h.handler)
		if err != nil {
			return nil, fmt.Errorf("kube-proxy: %w", err)
		}
		p.handlers = append(p.handlers, reg)
	}
	if opts.MetricsBindAddress != "" {
		if p.server, err = debug.Listen("--metrics-bind-address", opts.MetricsBindAddress, p.mux(debug.TokenReviewAuthenticator(c))); err != nil {
			return nil, fmt.Errorf("kube-proxy: %w", err)
		}
	}
	return p, nil
}

// changeHandler asks for a sync on every change, as upstream's
// OnServiceUpdate / OnEndpointSliceUpdate do: the runner batches them.
func (p *Proxier) changeHandler(count func()) informer.ResourceEventHandler {
	ask := func() {
		count()
		p.metrics.lastQueued.Set(float64(p.clock.Now().UnixNano()) / 1e9)
		p.runner.Run()
	}
	return informer.ResourceEventHandlerFuncs{
		AddFunc:    func(api.Object) { ask() },
		UpdateFunc: func(old, cur api.Object) { ask() },
		DeleteFunc: func(any) { ask() },
	}
}

// Run starts the informers, waits for their caches, syncs once and then
// keeps the rules in step until ctx ends.
func (p *Proxier) Run(ctx context.Context) error {
	defer p.client.Close()
	stopFollowing, err := clusterclock.Follow(ctx, p.client, p.virtual, p.base)
	if err != nil {
		return fmt.Errorf("kube-proxy: %w", err)
	}
	defer stopFollowing()
	if p.server != nil {
		p.log.Info("serving metrics, health, routes and the debug API", "address", p.server.URL(), "mode", p.opts.Mode)
		defer p.server.Serve(p.log)()
		if err := debug.Announce(p.opts.DebugEndpointFile, p.opts.DebugComponent, p.server.URL(), ""); err != nil {
			return fmt.Errorf("kube-proxy: %w", err)
		}
	}
	p.factory.Start(ctx)
	defer p.factory.Shutdown()
	synced := make([]func() bool, 0, len(p.handlers))
	for _, reg := range p.handlers {
		synced = append(synced, reg.HasSynced)
	}
	if !informer.WaitForCacheSync(ctx, synced...) {
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("kube-proxy: informer caches did not sync")
	}
	p.log.Info("caches synced; syncing rules", "minSyncPeriod", p.opts.MinSyncPeriod, "syncPeriod", p.opts.SyncPeriod)
	p.runner.Run() // the first sync, once both Services and slices are known
	p.runner.Loop(ctx)
	return nil
}

// sync recomputes the node's rules from the caches: upstream's
// syncProxyRules without the iptables-restore.
func (p *Proxier) sync() {
	start := p.clock.Now()
	services, err := p.services.List(labels.Everything())
	if err != nil {
		p.log.Error("list services", "err", err)
		return
	}
	slices, err := p.slices.List(labels.Everything())
	if err != nil {
		p.log.Error("list endpointslices", "err", err)
		return
	}
	st := proxy.Build(p.node(), services, slices)
	rules := iptables.Compute(st)
	took := p.clock.Since(start)
	p.current.Store(&Snapshot{State: st, IPTables: rules, Synced: start, Took: took})

	p.metrics.syncDuration.Observe(took.Seconds())
	p.metrics.lastSync.Set(float64(p.clock.Now().UnixNano()) / 1e9)
	p.metrics.syncs.Inc()
	p.metrics.rules.WithLabelValues("filter").Set(float64(rules.Filter.RuleCount()))
	p.metrics.rules.WithLabelValues("nat").Set(float64(rules.NAT.RuleCount()))
	p.recordSync(st, rules, took)
	if p.opts.Journal != nil {
		summary := summarizeServices(st)
		p.recordServiceChanges(p.lastRules, summary)
		p.lastRules = summary
	}
}

// node is what the model needs to know about this node: its addresses
// come from its Node object's status (none until the kubelet registered).
func (p *Proxier) node() proxy.Node {
	n := proxy.Node{Name: p.opts.HostnameOverride, ClusterCIDR: p.opts.ClusterCIDR, ServiceCIDR: p.opts.ServiceCIDR}
	if node, err := p.nodes.Get(p.opts.HostnameOverride); err == nil {
		for _, a := range node.Status.Addresses {
			if a.Type == api.NodeInternalIP || a.Type == api.NodeExternalIP {
				n.IPs = append(n.IPs, a.Address)
			}
		}
	}
	return n
}

// recordSync logs the sync and records it as a decision in the journal.
func (p *Proxier) recordSync(st *proxy.State, rules *iptables.Ruleset, took time.Duration) {
	if p.opts.Journal == nil && p.opts.Verbosity < 2 {
		return
	}
	services := map[string]bool{}
	for _, sp := range st.Ports {
		services[sp.Name.Namespace+"/"+sp.Name.Name] = true
	}
	endpoints := st.EndpointCount()
	if p.opts.Verbosity >= 2 {
		p.log.Info("synced proxy rules", "services", len(services), "servicePorts", len(st.Ports), "endpoints", endpoints,
			"filterRules", rules.Filter.RuleCount(), "natRules", rules.NAT.RuleCount(), "took", took)
	}
	p.opts.Journal.Decision(debug.Decision{
		Actor: "kube-proxy", Resource: "nodes", Key: p.opts.HostnameOverride,
		Message: fmt.Sprintf("synced the %s rules: %d services (%d ports), %d endpoints, %d filter and %d nat rules, in %v",
			p.opts.Mode, len(services), len(st.Ports), endpoints, rules.Filter.RuleCount(), rules.NAT.RuleCount(), took.Round(time.Microsecond)),
		Values: map[string]string{
			"services": strconv.Itoa(len(services)), "servicePorts": strconv.Itoa(len(st.Ports)),
			"endpoints": strconv.Itoa(endpoints), "filterRules": strconv.Itoa(rules.Filter.RuleCount()),
			"natRules": strconv.Itoa(rules.NAT.RuleCount()), "tookSeconds": strconv.FormatFloat(took.Seconds(), 'f', 6, 64),
		},
		Source: "pkg/proxy/iptables/proxier.go",
	})
}

// Current returns the last sync's snapshot, or nil before the first.
func (p *Proxier) Current() *Snapshot { return p.current.Load() }

// URL is the HTTP server's base URL ("" without a server).
func (p *Proxier) URL() string {
	if p.server == nil {
		return ""
	}
	return p.server.URL()
}

func (p *Proxier) random() float64 {
	p.randMu.Lock()
	defer p.randMu.Unlock()
	return p.rand.Float64()
}
