package metricsserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/clusterclock"
	"kplane/pkg/debug"
	"kplane/pkg/informer"
)

// PathStore is the debug API route answering what the store holds and how
// the last scrape went (StoreInfo).
const PathStore = "/debug/kplane/metrics-server"

// MetricsServer is the component: informers for nodes and pods, the
// scraper filling the store, and the HTTPS server of the metrics API. Build
// one with New and call Run once.
type MetricsServer struct {
	opts    Options
	log     *slog.Logger
	base    *slog.Logger
	clock   clock.Clock
	virtual *clock.Virtual
	client  *client.Client

	factory *informer.SharedInformerFactory
	nodes   informer.TypedInformer[*api.Node]
	pods    informer.TypedInformer[*api.Pod]
	store   *Store
	scraper *scraper

	listener net.Listener
	server   *http.Server
	debug    *debug.Server

	// synced is set once the informers have listed; stored once the first
	// scrape round is in the store. /readyz needs both.
	synced, stored atomic.Bool
	// lastRound is the last scrape round's RoundResult.
	lastRound atomic.Pointer[RoundResult]
}

// Run builds metrics-server from opts and runs it until ctx ends.
func Run(ctx context.Context, opts Options) error {
	m, err := New(opts)
	if err != nil {
		return err
	}
	return m.Run(ctx)
}

// New checks opts, loads the certificates, connects a client (without
// contacting the apiserver yet) and binds the HTTPS address, so that a
// port in use or a bad certificate fails here.
func New(opts Options) (*MetricsServer, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("metrics-server options: %w", err)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	clk, virtual := clock.ForComponent(opts.Clock, opts.VirtualClock)
	tlsConfig, err := servingTLS(opts)
	if err != nil {
		return nil, fmt.Errorf("metrics-server: %w", err)
	}
	kubelet, err := kubeletClientFrom(opts)
	if err != nil {
		return nil, fmt.Errorf("metrics-server: %w", err)
	}
	cfg, err := client.ConfigFromKubeconfig(opts.Kubeconfig, "")
	if err != nil {
		return nil, fmt.Errorf("metrics-server: %w", err)
	}
	cfg.UserAgent = "kplane-metrics-server"
	cfg.Logger = logger
	c, err := client.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("metrics-server: %w", err)
	}
	m := &MetricsServer{
		opts: opts, log: logger.With("component", ComponentName), base: logger,
		clock: clk, virtual: virtual, client: c,
		store: NewStore(opts.MetricResolution),
	}
	m.factory = informer.NewSharedInformerFactory(c, 0,
		informer.ComponentOptions(logger, clk, opts.Journal, opts.InformerFIFO, opts.TraceInformers)...)
	m.nodes, m.pods = m.factory.Nodes(), m.factory.Pods()
	metrics := newServerMetrics(m.store)
	m.scraper = &scraper{
		nodes: nodeLister{m.nodes.Lister()}, kubelet: kubelet, clock: clk, metrics: metrics,
		timeout: time.Duration(float64(opts.MetricResolution) * scrapeTimeoutFraction),
	}
	mux := http.NewServeMux()
	for _, path := range []string{"/healthz", "/livez"} {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, _ *http.Request) { writeText(w, http.StatusOK, "ok") })
	}
	mux.HandleFunc("GET /readyz", m.serveReadyz)
	mux.Handle("/", authenticate(NewAPI(m.store, m.nodes.Lister(), m.pods.Lister(), clk.Now).Handler()))

	address := net.JoinHostPort(opts.BindAddress, strconv.Itoa(opts.SecurePort))
	if m.listener, err = net.Listen("tcp", address); err != nil {
		c.Close()
		return nil, fmt.Errorf("metrics-server: listen on %s: %w", address, err)
	}
	m.server = &http.Server{Handler: mux, TLSConfig: tlsConfig, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelDebug)}
	if opts.DebugAddress != "" {
		dmux := debug.ComponentMux(opts.Journal, debug.TokenReviewAuthenticator(c), metrics.handler())
		opts.Journal.Handle("GET "+PathStore, http.HandlerFunc(m.serveStoreInfo))
		if m.debug, err = debug.Listen("--debug-address", opts.DebugAddress, dmux); err != nil {
			m.listener.Close()
			c.Close()
			return nil, fmt.Errorf("metrics-server: %w", err)
		}
	}
	return m, nil
}

// Addr is the host:port the HTTPS API listens on.
func (m *MetricsServer) Addr() string { return m.listener.Addr().String() }

// Run serves the API and scrapes every resolution until ctx ends. It
// returns nil after a clean shutdown.
func (m *MetricsServer) Run(ctx context.Context) error {
	defer m.client.Close()
	defer m.scraper.kubelet.close()
	stopFollowing, err := clusterclock.Follow(ctx, m.client, m.virtual, m.base)
	if err != nil {
		return fmt.Errorf("metrics-server: %w", err)
	}
	defer stopFollowing()
	if m.debug != nil {
		defer m.debug.Serve(m.log)()
		if err := debug.Announce(m.opts.DebugEndpointFile, m.opts.DebugComponent, m.debug.URL(), ""); err != nil {
			return fmt.Errorf("metrics-server: %w", err)
		}
	}
	served := make(chan error, 1)
	go func() { served <- m.server.ServeTLS(m.listener, "", "") }()
	defer func() {
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = m.server.Shutdown(shutdown)
	}()
	m.log.Info("serving the resource metrics API", "address", "https://"+m.Addr(), "group", GroupVersion,
		"metricResolution", m.opts.MetricResolution.String())

	m.factory.Start(ctx)
	defer m.factory.Shutdown()
	if !informer.WaitForCacheSync(ctx, m.nodes.Informer().HasSynced, m.pods.Informer().HasSynced) {
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("metrics-server: informer caches did not sync")
	}
	m.synced.Store(true)

	ticker := m.clock.NewTicker(m.opts.MetricResolution)
	defer ticker.Stop()
	for {
		m.scrapeOnce(ctx)
		select {
		case <-ctx.Done():
			return nil
		case err := <-served:
			if errors.Is(err, http.ErrServerClosed) {
				return nil
			}
			return fmt.Errorf("metrics-server: serve: %w", err)
		case <-ticker.C():
		}
	}
}

// scrapeOnce runs one round and stores it, logging what failed.
func (m *MetricsServer) scrapeOnce(ctx context.Context) {
	began := m.clock.Now()
	batches, result := m.scraper.scrape(ctx)
	if ctx.Err() != nil {
		return
	}
	m.store.Store(batches)
	m.stored.Store(true)
	m.lastRound.Store(&result)
	for node, reason := range result.Errors {
		m.log.Warn("failed to scrape node", "node", node, "err", reason)
	}
	counts := m.store.Counts()
	m.log.Debug("scrape round done", "nodes", result.Scraped, "failed", result.Failed,
		"nodesWithMetrics", counts.NodesWithMetrics, "containersWithMetrics", counts.ContainersWithMetrics,
		"duration", m.clock.Since(began).String())
}

// serveReadyz answers 200 once the informers have synced and a first
// scrape round is stored, as upstream's metric-storage-ready check.
func (m *MetricsServer) serveReadyz(w http.ResponseWriter, _ *http.Request) {
	switch {
	case !m.synced.Load():
		writeText(w, http.StatusServiceUnavailable, "informer caches not synced yet")
	case !m.stored.Load():
		writeText(w, http.StatusServiceUnavailable, "metric storage not ready: no scrape round finished yet")
	default:
		writeText(w, http.StatusOK, "ok")
	}
}

// StoreInfo is the answer of PathStore.
type StoreInfo struct {
	MetricResolution string       `json:"metricResolution"`
	Counts           Counts       `json:"counts"`
	LastRound        *RoundResult `json:"lastRound,omitempty"`
}

func (m *MetricsServer) serveStoreInfo(w http.ResponseWriter, _ *http.Request) {
	debug.WriteJSON(w, StoreInfo{MetricResolution: m.opts.MetricResolution.String(), Counts: m.store.Counts(), LastRound: m.lastRound.Load()})
}

func writeText(w http.ResponseWriter, code int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(text))
}

// nodeLister adapts the node informer's lister to NodeLister.
type nodeLister struct{ lister *informer.Lister[*api.Node] }

func (l nodeLister) List() ([]*api.Node, error) { return l.lister.List(nil) }

// servingTLS is the HTTPS configuration: the serving certificate, and
// client certificates verified against the client CA when presented
// (health checks need none; the API answers 401 without one).
func servingTLS(o Options) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(o.TLSCertFile, o.TLSPrivateKeyFile)
	if err != nil {
		return nil, fmt.Errorf("serving certificate: %w", err)
	}
	pool, err := loadPool(o.ClientCAFile)
	if err != nil {
		return nil, fmt.Errorf("--client-ca-file: %w", err)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.VerifyClientCertIfGiven,
		ClientCAs:    pool,
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"h2", "http/1.1"},
	}, nil
}

// kubeletClientFrom builds the kubelet client the options describe.
func kubeletClientFrom(o Options) (*kubeletClient, error) {
	var cert *tls.Certificate
	if o.KubeletClientCertificate != "" {
		c, err := tls.LoadX509KeyPair(o.KubeletClientCertificate, o.KubeletClientKey)
		if err != nil {
			return nil, fmt.Errorf("kubelet client certificate: %w", err)
		}
		cert = &c
	}
	var roots *x509.CertPool
	if o.KubeletCertificateAuthority != "" {
		pool, err := loadPool(o.KubeletCertificateAuthority)
		if err != nil {
			return nil, fmt.Errorf("--kubelet-certificate-authority: %w", err)
		}
		roots = pool
	}
	return newKubeletClient(cert, roots), nil
}

// loadPool reads a PEM bundle of CA certificates.
func loadPool(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return pool, nil
}
