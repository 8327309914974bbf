// Package apiserver is kplane's Kubernetes-compatible API server: it serves
// the Kubernetes REST paths over HTTPS, authenticates bearer tokens, runs
// admission (defaults, validation, namespace lifecycle, IP and port
// allocation) and keeps every object in etcd through pkg/store, serving lists
// and watches from an in-memory watch cache (pkg/store/cache).
//
// Reading order: server.go (start-up) → router.go (paths) → requestinfo.go
// (what a URL means) → handlers_*.go (one verb per file) → admission.go →
// objects.go (what is stored) → watch.go.
package apiserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"kplane/pkg/debug"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
	"kplane/pkg/clock"
	"kplane/pkg/kubeconfig"
	"kplane/pkg/kubeletaddr"
	"kplane/pkg/pki"
	"kplane/pkg/store"
	"kplane/pkg/store/cache"
)

// Options configure an apiserver. DefaultOptions gives the values the
// command-line flags start from.
type Options struct {
	// DataDir holds the embedded etcd data, the PKI, the token file and the
	// admin kubeconfig.
	DataDir string
	// BindAddress is the address to serve HTTPS on; loopback by default.
	BindAddress string
	// SecurePort is the HTTPS port; 0 picks a free one.
	SecurePort int
	// AdvertiseAddress is the address this apiserver lists in the
	// `kubernetes` Service's Endpoints (--advertise-address); empty: the
	// bind address, or 127.0.0.1 when bound to every interface.
	AdvertiseAddress string
	// EndpointReconcilerType says who keeps those Endpoints
	// (--endpoint-reconciler-type): "lease" (the default, as upstream),
	// every apiserver through its key in etcd (endpoint_reconciler.go),
	// or "none", nobody.
	EndpointReconcilerType string
	// EndpointReconcilerTTL and EndpointReconcilerInterval time the lease
	// reconciler: how long an apiserver's key outlives its last renewal
	// and how often it is renewed; zero takes upstream's 15 s and 10 s.
	// Tests shorten them (hidden flags --endpoint-reconciler-ttl and
	// --endpoint-reconciler-interval; upstream has neither).
	EndpointReconcilerTTL      time.Duration
	EndpointReconcilerInterval time.Duration
	// KubeletNetworks are CIDRs, beyond loopback, whose kubelets the
	// apiserver dials for logs, exec, attach, port-forward and the node
	// proxy (--kubelet-networks, kplane-only; package kubeletaddr). Empty:
	// loopback kubelets only, as every node of `ctl up` is.
	KubeletNetworks []string
	// EtcdServers, when set, use an external etcd instead of the embedded one.
	EtcdServers []string
	// TLSSANs are extra host names and IP addresses the serving
	// certificate names besides the defaults and BindAddress
	// (--tls-san, repeatable; upstream's --tls-sni-cert-key and kubeadm's
	// certSANs play this part). Several apiservers sharing one PKI dir are
	// given the same list — every apiserver's address and the load
	// balancer's — so the certificate one writes covers the others and none
	// regenerates it.
	TLSSANs []string
	// KubeconfigServer is the server URL written into the admin kubeconfig
	// (--kubeconfig-server); empty names this apiserver's own URL. Behind a
	// load balancer it is the balancer's URL, so that whichever apiserver
	// (re)starts last, the kubeconfig keeps pointing at the balancer.
	KubeconfigServer string
	// CompactionInterval is how often old etcd revisions are compacted
	// (upstream: 5 minutes). 0 disables compaction.
	CompactionInterval time.Duration
	// MaxRequestBodyBytes caps a request body (upstream: 3 MiB).
	MaxRequestBodyBytes int64
	// Logger receives the server's logs; nil uses slog.Default().
	Logger *slog.Logger
	// Journal is the apiserver's debug journal (see pkg/debug): the writes
	// it stores, with the etcd revision each produced, and the watch
	// fan-out. Nil turns the debug journal off.
	Journal *debug.Journal
	// VirtualClock runs the server on the cluster clock (--virtual-clock):
	// it creates the ConfigMap kube-system/kplane-clock that holds the
	// clock's offset if it is missing, follows it, and stamps creation and
	// deletion timestamps, bindings and its identity Lease with that
	// clock, so that they agree with the other components' (see
	// pkg/clusterclock).
	VirtualClock bool
	// Clock, with VirtualClock, may be the clock.Virtual the server is to
	// move (cmd/apiserver builds it first, so that the debug journal
	// shares it); nil makes a new one. Without VirtualClock the server
	// stamps with the wall clock.
	Clock clock.Clock
	// DebugEndpointFile, when set, is where the apiserver announces its
	// debug API (its own https URL) once it serves; see debug.Endpoint.
	DebugEndpointFile string
	// DebugComponent is the apiserver's name in its debug endpoint file
	// (--debug-component-name, default "apiserver"): what `ctl` calls it,
	// so it is set even when Journal is nil.
	DebugComponent string

	// IdentityLeaseDuration, IdentityLeaseRenewInterval and
	// IdentityLeaseGCPeriod time the apiserver's identity Lease
	// (identitylease.go); zero takes upstream's 1 h, 10 s and 1 h. Tests
	// shorten them; upstream has no flags for them, nor does kplane.
	IdentityLeaseDuration      time.Duration
	IdentityLeaseRenewInterval time.Duration
	IdentityLeaseGCPeriod      time.Duration

	// AuthorizationModes are the authorizers asked, in order, after the
	// system:masters shortcut (--authorization-mode): AlwaysAllow, Node,
	// RBAC.
	AuthorizationModes []string

	// ServiceAccountIssuers are the issuers of ServiceAccount tokens
	// (--service-account-issuer, repeatable): the first is the one new
	// tokens are signed as, all are accepted. Empty:
	// serviceaccount.DefaultIssuer.
	ServiceAccountIssuers []string
	// ServiceAccountSigningKeyFile is the RSA key TokenRequest signs with
	// (--service-account-signing-key-file); empty: DATA_DIR/pki/sa.key,
	// created at first start.
	ServiceAccountSigningKeyFile string
	// ServiceAccountKeyFiles verify ServiceAccount tokens
	// (--service-account-key-file); empty: DATA_DIR/pki/sa.pub.
	ServiceAccountKeyFiles []string
	// ServiceAccountMaxTokenExpiration caps the lifetime a TokenRequest
	// gets (--service-account-max-token-expiration); 0: no cap beyond
	// upstream's 2^32 seconds.
	ServiceAccountMaxTokenExpiration time.Duration
	// ServiceAccountExtendTokenExpiration turns the pods' 3607-second
	// token requests into year-long tokens that warn after the hour
	// (--service-account-extend-token-expiration, upstream default true).
	ServiceAccountExtendTokenExpiration bool
	// TokenSuccessCacheTTL is how long a bearer token's successful
	// authentication is remembered (upstream's BuiltInAuthenticationOptions
	// default, 10 s): a ServiceAccount token whose ServiceAccount, Secret
	// or Pod is deleted keeps working until its entry lapses. 0: no cache.
	TokenSuccessCacheTTL time.Duration
	// TokenFailureCacheTTL is how long a refused token is remembered
	// (upstream's default 0: a token is asked about again at once).
	TokenFailureCacheTTL time.Duration
	// ServiceAccountJWKSURI overrides the jwks_uri of the issuer discovery
	// document (--service-account-jwks-uri); empty: this server's own
	// /openid/v1/jwks.
	ServiceAccountJWKSURI string
	// APIAudiences are the apiserver's own audiences (--api-audiences):
	// a token must name one of them unless the caller asks for others.
	// Empty: the issuers.
	APIAudiences []string
	// MaxRequestsInFlight caps the reads (get, list) served at once
	// (--max-requests-inflight, upstream 400); MaxMutatingRequestsInFlight
	// caps the writes (--max-mutating-requests-inflight, upstream 200).
	// Beyond a cap the apiserver answers 429 (inflight.go). 0 disables a
	// cap.
	MaxRequestsInFlight         int
	MaxMutatingRequestsInFlight int
	// RequestTimeout bounds a request that is not long-running
	// (--request-timeout, upstream 1 m): past it the client gets 504
	// (timeout.go). 0 disables it.
	RequestTimeout time.Duration

	// AuditPolicyFile is the audit.k8s.io Policy that decides how much of
	// each request the audit log records (--audit-policy-file);
	// AuditLogPath is the log, one JSON Event a line, "-" for standard
	// output (--audit-log-path). Auditing is on when both are set
	// (audit.go). AuditLogMaxAge (days), AuditLogMaxBackups and
	// AuditLogMaxSize (MiB) rotate the log, as upstream's flags.
	AuditPolicyFile    string
	AuditLogPath       string
	AuditLogMaxAge     int
	AuditLogMaxBackups int
	AuditLogMaxSize    int

	// AllocatorRepairInterval is how often the repair pass checks the
	// ClusterIP and node port bitmaps against the stored Services
	// (allocator_repair.go); zero takes upstream's 3 minutes. Tests
	// shorten it.
	AllocatorRepairInterval time.Duration

	// APIServiceCheckInterval is how often the aggregator checks every
	// APIService's backend when nothing changed (aggregator.go); zero takes
	// upstream's 30 s. Tests shorten it.
	APIServiceCheckInterval time.Duration
}

// DefaultOptions returns the defaults: data in ./.kplane, HTTPS on
// 127.0.0.1:6443, embedded etcd compacted every 5 minutes.
func DefaultOptions() Options {
	return Options{
		DataDir:             ".kplane",
		BindAddress:         "127.0.0.1",
		SecurePort:          6443,
		CompactionInterval:  5 * time.Minute,
		MaxRequestBodyBytes: 3 << 20,
		DebugComponent:      "apiserver",

		EndpointReconcilerType: EndpointReconcilerLease,
		AuthorizationModes:     []string{AuthorizationModeNode, AuthorizationModeRBAC},

		ServiceAccountExtendTokenExpiration: true,
		TokenSuccessCacheTTL:                auth.DefaultTokenSuccessTTL,
		TokenFailureCacheTTL:                auth.DefaultTokenFailureTTL,
		// Upstream's defaults (staging/src/k8s.io/apiserver/pkg/server/options/server_run_options.go).
		MaxRequestsInFlight:         400,
		MaxMutatingRequestsInFlight: 200,
		RequestTimeout:              time.Minute,
	}
}

// Validate checks the options before anything starts.
func (o Options) Validate() error {
	if o.DataDir == "" {
		return errors.New("--data-dir is required")
	}
	if o.SecurePort < 0 || o.SecurePort > 65535 {
		return fmt.Errorf("--secure-port %d out of range", o.SecurePort)
	}
	if o.MaxRequestsInFlight < 0 {
		return fmt.Errorf("--max-requests-inflight can not be negative, got %d", o.MaxRequestsInFlight)
	}
	if o.MaxMutatingRequestsInFlight < 0 {
		return fmt.Errorf("--max-mutating-requests-inflight can not be negative, got %d", o.MaxMutatingRequestsInFlight)
	}
	if o.RequestTimeout < 0 {
		return fmt.Errorf("--request-timeout can not be negative, got %s", o.RequestTimeout)
	}
	if ip := net.ParseIP(o.BindAddress); ip == nil {
		return fmt.Errorf("--bind-address %q is not an IP address", o.BindAddress)
	}
	if o.AdvertiseAddress != "" {
		if ip := net.ParseIP(o.AdvertiseAddress); ip == nil || ip.IsUnspecified() {
			return fmt.Errorf("--advertise-address %q is not a usable IP address", o.AdvertiseAddress)
		} else if ip.To4() == nil {
			return fmt.Errorf("--advertise-address %q: only IPv4 is supported (the kubernetes Service is single-stack IPv4)", o.AdvertiseAddress)
		}
	}
	switch o.EndpointReconcilerType {
	case "", EndpointReconcilerLease, EndpointReconcilerNone:
	default:
		return fmt.Errorf("--endpoint-reconciler-type %q: must be %q or %q", o.EndpointReconcilerType, EndpointReconcilerLease, EndpointReconcilerNone)
	}
	if o.EndpointReconcilerTTL < 0 || o.EndpointReconcilerInterval < 0 {
		return errors.New("the endpoint reconciler's TTL and interval can not be negative")
	}
	if _, err := kubeletaddr.ParseNetworks(o.KubeletNetworks); err != nil {
		return fmt.Errorf("--kubelet-networks: %w", err)
	}
	return o.validateFrontDoor()
}

// Server is a running apiserver.
type Server struct {
	opts   Options
	log    *slog.Logger
	reg    *registry
	store  store.Interface
	etcd   *store.EtcdStore
	caches map[*resource]*cache.Cache
	// custom holds the resources CRDs add while the server runs
	// (customresource_registry.go); caches holds only the built-ins'.
	custom customResources
	tokens *auth.TokenFile
	// authn names the user of each request and of each TokenReview
	// (authn.go); start builds it.
	authn auth.Chain
	// authorizer decides what each user may do (authz.go).
	authorizer authorizer.Authorizer
	// ruleResolvers list users' rules for SelfSubjectRulesReview: the
	// authorizers of --authorization-mode that can (AlwaysAllow, Node,
	// RBAC), in its order.
	ruleResolvers []authorizer.RuleResolver
	// rbac is the RBAC authorizer over the caches, built on first use
	// (authz_rbac.go).
	rbac rbacPolicy
	// serviceAccountTokens authenticates ServiceAccount JWTs
	// (pkg/serviceaccount, set up in serviceaccount_tokens.go).
	serviceAccountTokens auth.TokenAuthenticator
	// serviceAccounts issues them (tokenrequest.go) and publishes their
	// keys (oidc.go).
	serviceAccounts *serviceAccountTokens
	pki             *pki.Bundle
	// alloc hands out ClusterIPs and node ports from bitmaps in etcd
	// (allocator_service.go).
	alloc   *serviceAllocators
	metrics *metrics
	// inFlightHook, when set, runs in each request holding an in-flight
	// slot (inflight.go); only tests set it.
	inFlightHook inFlightHook
	// audit is the audit policy and log; nil when auditing is off.
	audit *auditor
	// faults are the api-error rules of `ctl fault api-error` (faults.go).
	faults *faultInjector
	// endpoints keeps the `kubernetes` Endpoints listing every live
	// apiserver (endpoint_reconciler.go); nil with
	// --endpoint-reconciler-type none.
	endpoints *leaseEndpointReconciler
	// recent passes objects this server wrote to the watch cache.
	recent recentWrites
	// limitRangeMisses are the namespaces recently found without
	// LimitRanges (limitrange_misses.go).
	limitRangeMisses limitRangeMisses
	url              string
	// port is the port the server listens on (SecurePort, or the one
	// picked when that is 0).
	port int
	// kubeletNets are Options.KubeletNetworks, parsed once.
	kubeletNets kubeletaddr.Networks
	started     time.Time
	// clock is the time the server stamps on objects: the wall clock, or
	// with Options.VirtualClock the cluster clock (virtual).
	clock   clock.Clock
	virtual *clock.Virtual

	// quotaLocks serialise quota charges per namespace (admission_quota.go).
	quotaLocks quotaLocks

	// watchFence holds new watches while a compaction fault runs
	// (fault_compact.go): watches set up under its read lock.
	watchFence sync.RWMutex

	httpServer *http.Server
	embedded   *store.Embedded
	stopOnce   sync.Once
	cancel     context.CancelFunc
	done       chan struct{}
	openapi    openAPIDocs
	// aggregator proxies the group/versions other servers serve
	// (aggregator.go).
	aggregator *aggregator
	ctx        context.Context
	runErr     error
}

// Start brings the apiserver up and returns once it is ready: etcd started,
// caches loaded, bootstrap objects present, HTTPS listening and the admin
// kubeconfig written. Stop (or cancelling ctx) shuts it down.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if opts.MaxRequestBodyBytes == 0 {
		opts.MaxRequestBodyBytes = 3 << 20
	}
	if opts.BindAddress == "" {
		opts.BindAddress = "127.0.0.1"
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	kubeletNets, _ := kubeletaddr.ParseNetworks(opts.KubeletNetworks) // Validate parsed them
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("component", "apiserver")
	ctx, cancel := context.WithCancel(ctx)
	s := &Server{opts: opts, log: log, reg: newRegistry(builtinResources()), cancel: cancel, ctx: ctx, metrics: newMetrics(),
		done: make(chan struct{}), started: time.Now(), clock: clock.Real{}, faults: newFaultInjector(clock.Real{}, opts.Journal),
		kubeletNets: kubeletNets}
	if opts.VirtualClock {
		s.virtual = clock.VirtualFor(opts.Clock)
		s.clock = s.virtual
	}
	s.registerFaultRoutes()
	if err := s.start(ctx); err != nil {
		cancel()
		s.shutdown()
		close(s.done)
		return nil, err
	}
	go func() {
		<-ctx.Done()
		s.shutdown()
		close(s.done)
	}()
	return s, nil
}

// Run starts the server and blocks until ctx is cancelled.
func Run(ctx context.Context, opts Options) error {
	s, err := Start(ctx, opts)
	if err != nil {
		return err
	}
	<-s.done
	return s.runErr
}

func (s *Server) start(ctx context.Context) error {
	if err := os.MkdirAll(s.opts.DataDir, 0o700); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}

	// Storage: the embedded etcd in the data dir, or an external cluster.
	if len(s.opts.EtcdServers) > 0 {
		st, err := store.Connect(ctx, s.opts.EtcdServers)
		if err != nil {
			return fmt.Errorf("connect to etcd %v: %w", s.opts.EtcdServers, err)
		}
		s.etcd = st
	} else {
		emb, err := store.StartEmbedded(ctx, s.opts.DataDir)
		if err != nil {
			return fmt.Errorf("start embedded etcd: %w", err)
		}
		s.embedded = emb
		s.etcd = emb.Store()
		s.log.Info("embedded etcd ready", "url", emb.ClientURL())
	}
	s.store = s.etcd
	if s.opts.CompactionInterval > 0 {
		go store.RunCompactor(ctx, s.etcd, s.opts.CompactionInterval)
	}

	// One watch cache per resource, each fed by its own etcd watch.
	s.caches = map[*resource]*cache.Cache{}
	for _, res := range s.reg.all {
		res := res
		c := cache.New(s.store, res.keyPrefix(""), func(kv store.KV) (any, error) {
			if so := s.recent.take(res, kv.Key, kv.ModRevision); so != nil {
				return so, nil
			}
			return s.decodeStored(res, kv)
		}, cache.Options{Logger: s.log, OnDispatch: s.fanoutTracer(res), Index: cacheIndexFor(res)})
		s.caches[res] = c
		go func() {
			if err := c.Run(ctx); err != nil && ctx.Err() == nil {
				s.log.Error("watch cache stopped", "resource", res.plural, "err", err)
			}
		}()
	}
	for res, c := range s.caches {
		select {
		case <-c.Ready():
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(30 * time.Second):
			return fmt.Errorf("watch cache for %s did not load", res.plural)
		}
	}

	// The debug API's etcd browser and compaction fault; only served
	// when the apiserver has a journal.
	s.registerDebugRoutes()

	// Security: CA and serving certificate, bearer tokens.
	bundle, err := pki.Ensure(filepath.Join(s.opts.DataDir, "pki"), append([]string{s.opts.BindAddress}, s.opts.TLSSANs...))
	if err != nil {
		return fmt.Errorf("prepare certificates: %w", err)
	}
	s.pki = bundle
	tokens, err := auth.EnsureTokens(filepath.Join(s.opts.DataDir, "pki"))
	if err != nil {
		return fmt.Errorf("prepare tokens: %w", err)
	}
	s.tokens = tokens
	if err := s.setUpServiceAccountTokens(); err != nil {
		return err
	}
	s.authn = s.newAuthenticator(bundle.CAPool())

	if len(s.opts.AuthorizationModes) == 0 {
		s.opts.AuthorizationModes = DefaultOptions().AuthorizationModes
	}
	if s.authorizer, err = s.buildAuthorizer(); err != nil {
		return err
	}

	if s.audit, err = newAuditor(s.opts, s.log); err != nil {
		return err
	}

	// The repair pass runs once before anything allocates: it creates the
	// range bitmaps on a new cluster and brings them up to date with the
	// stored Services on an old one (allocator_repair.go).
	s.alloc = newServiceAllocators(s.store, s.log)
	repair := newAllocatorRepair(s.alloc, s.listServicesFromEtcd, s.log)
	if err := repair.runOnce(ctx); err != nil {
		return err
	}
	repairInterval := s.opts.AllocatorRepairInterval
	if repairInterval <= 0 {
		repairInterval = DefaultAllocatorRepairInterval
	}
	go repair.run(ctx, repairInterval)

	ln, err := net.Listen("tcp", net.JoinHostPort(s.opts.BindAddress, strconv.Itoa(s.opts.SecurePort)))
	if err != nil {
		return fmt.Errorf("listen on %s:%d: %w", s.opts.BindAddress, s.opts.SecurePort, err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	s.port = port
	s.url = "https://" + net.JoinHostPort(s.opts.BindAddress, strconv.Itoa(port))

	if s.virtual != nil {
		if err := s.readClusterClock(ctx); err != nil {
			ln.Close()
			return err
		}
	}
	if err := s.bootstrap(ctx); err != nil {
		ln.Close()
		return fmt.Errorf("bootstrap: %w", err)
	}
	// The resources of the CRDs already Established are served before the
	// server reports ready; the controller follows the CRDs from then on.
	s.runCRDController(ctx)
	if s.opts.EndpointReconcilerType != EndpointReconcilerNone {
		// The first reconcile lists this server before it reports ready.
		endpoints := s.newLeaseEndpointReconciler(port)
		if err := endpoints.reconcile(ctx); err != nil {
			ln.Close()
			return fmt.Errorf("bootstrap: %w", err)
		}
		s.endpoints = endpoints
		go endpoints.run(ctx)
	}
	if err := s.autoregisterLocalAPIServices(ctx); err != nil {
		ln.Close()
		return fmt.Errorf("register local APIServices: %w", err)
	}
	s.aggregator = newAggregator(s, s.opts.APIServiceCheckInterval)
	if s.virtual != nil {
		if err := s.startClusterClock(ctx); err != nil {
			ln.Close()
			return err
		}
	} else {
		s.dropClusterClock(ctx)
	}

	identity, err := s.newIdentityLease()
	if err != nil {
		ln.Close()
		return err
	}
	// The first renewal creates the Lease before the server reports ready,
	// so that a client that asks at once finds it.
	if err := identity.renew(ctx); err != nil {
		s.log.Warn("create apiserver identity lease", "lease", identity.name, "err", err)
	}
	go identity.run(ctx)

	tlsConfig := bundle.ServerTLSConfig()
	// Ask clients for a certificate but let them connect without one or
	// with one the handshake does not check: the authenticator chain
	// verifies it against the cluster CA (authn.go) and answers 401, as
	// upstream does, rather than failing the handshake. ClientCAs only
	// names the cluster CA in the certificate request, so that a client
	// holding several certificates picks one it signed.
	tlsConfig.ClientAuth = tls.RequestClientCert
	tlsConfig.ClientCAs = bundle.CAPool()
	s.httpServer = &http.Server{
		Handler:           s.router(),
		TLSConfig:         tlsConfig,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       90 * time.Second,
		MaxHeaderBytes:    1 << 20,
		HTTP2:             http2Settings(),
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	go s.aggregator.run(ctx)
	go func() {
		if err := s.httpServer.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("https server stopped", "err", err)
			s.runErr = err
			s.cancel()
		}
	}()

	if err := s.writeKubeconfig(); err != nil {
		return err
	}
	if err := debug.Announce(s.opts.DebugEndpointFile, s.opts.DebugComponent, s.url, ""); err != nil {
		return err
	}
	s.log.Info("apiserver ready", "url", s.url, "kubeconfig", s.KubeconfigPath(),
		"startup", time.Since(s.started).Round(time.Millisecond))
	return nil
}

// now is the time the server stamps on what it writes, truncated to the
// second as stored timestamps are.
func (s *Server) now() api.Time {
	return api.NewTime(s.clock.Now().UTC().Truncate(time.Second))
}

// writeKubeconfig (re)writes DIR/kubeconfig for the admin, pointing at the
// port this run listens on, or at Options.KubeconfigServer.
func (s *Server) writeKubeconfig() error {
	token, ok := s.tokens.TokenFor(auth.AdminUserName)
	if !ok {
		return errors.New("no admin token")
	}
	server := s.url
	if s.opts.KubeconfigServer != "" {
		server = s.opts.KubeconfigServer
	}
	cfg := kubeconfig.New(kubeconfig.AdminClusterName, server, s.pki.CACertPEM, kubeconfig.AdminUserName, token)
	if err := cfg.WriteFile(s.KubeconfigPath()); err != nil {
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	return nil
}

// URL is the HTTPS address the server listens on.
func (s *Server) URL() string { return s.url }

// KubeconfigPath is where the admin kubeconfig is written.
func (s *Server) KubeconfigPath() string { return filepath.Join(s.opts.DataDir, "kubeconfig") }

// CACertPEM is the cluster CA certificate clients should trust.
func (s *Server) CACertPEM() []byte { return s.pki.CACertPEM }

// Tokens gives access to the bearer tokens (components fetch theirs here).
func (s *Server) Tokens() *auth.TokenFile { return s.tokens }

// Store exposes the storage, for tests and benchmarks that compare with raw etcd.
func (s *Server) Store() store.Interface { return s.store }

// EtcdClientURL is the embedded etcd's client URL ("" with external etcd).
func (s *Server) EtcdClientURL() string {
	if s.embedded == nil {
		return ""
	}
	return s.embedded.ClientURL()
}

// Stop shuts the server down and waits until it has.
func (s *Server) Stop() {
	s.cancel()
	<-s.done
}

// Done is closed once the server has stopped.
func (s *Server) Done() <-chan struct{} { return s.done }

func (s *Server) shutdown() {
	s.stopOnce.Do(func() {
		if s.endpoints != nil {
			// Leave the Endpoints first, so clients that follow them
			// stop coming before the server stops answering.
			ctx, cancel := context.WithTimeout(context.Background(), endpointRemovalTimeout)
			if err := s.endpoints.remove(ctx); err != nil {
				s.log.Warn("remove this apiserver from the kubernetes endpoints; its lease expires on its own", "err", err)
			}
			cancel()
		}
		if s.httpServer != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = s.httpServer.Shutdown(ctx)
			cancel()
			_ = s.httpServer.Close()
		}
		if s.audit != nil {
			if err := s.audit.backend.Close(); err != nil {
				s.log.Error("close audit log", "err", err)
			}
		}
		if s.embedded != nil {
			if err := s.embedded.Close(); err != nil {
				s.log.Error("stop embedded etcd", "err", err)
			}
		} else if s.etcd != nil {
			_ = s.etcd.Close()
		}
	})
}
