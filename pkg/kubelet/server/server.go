// Package server is the kubelet's HTTPS API, the part of it `kubectl logs`
// reaches: the apiserver receives GET /api/v1/namespaces/<ns>/pods/<pod>/log,
// finds the pod's node, and calls that node's kubelet at
//
//	GET https://<node InternalIP>:<daemonEndpoints.kubeletEndpoint.Port>/containerLogs/<ns>/<pod>/<container>?follow=…
//
// streaming the answer back to kubectl. Upstream's kubelet serves this (and
// exec, attach, port-forward, and the resource usage metrics-server
// scrapes) on port 10250.
//
// Who may call: like upstream's kubelet with --client-ca-file and
// --authentication-token-webhook, the caller presents a TLS client
// certificate signed by the cluster CA (the apiserver presents its
// apiserver-kubelet-client certificate, see pkg/pki) or a bearer token the
// apiserver vouches for. Then the call is authorized (authz.go) by asking
// the apiserver with a SubjectAccessReview about the node's subresource,
// as upstream's --authorization-mode=Webhook does.
//
// Its own identity: a self-signed serving certificate made in memory at
// start, as a kubelet without --tls-cert-file makes one. Nobody can verify
// it, and nobody tries: upstream's apiserver does not verify kubelet serving
// certificates unless given --kubelet-certificate-authority, and kplane's
// apiserver does not either.
//
// Files: server.go (options, start), authz.go (who may call),
// authz_attributes.go (a call as a question about the node),
// authz_review.go (the SubjectAccessReview and its cache), logs.go (the
// /containerLogs handler), exec.go (/exec and /attach), portforward.go
// (/portForward), stats.go (/stats/summary and /metrics/resource), cert.go
// (the self-signed certificate).
package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/kubelet/runtime"
	"kplane/pkg/kubelet/stats"
)

// ContainerLookup finds the run of a container whose logs are asked for:
// with previous, the last run that has terminated before the current one
// (`kubectl logs --previous`); otherwise the current run, or, when none is
// running (a container waiting in CrashLoopBackOff), the most recent one, as
// upstream's kubelet shows the last run's logs then.
//
// An error wrapping ErrNotFound (see NotFoundf) is answered with 404, an
// error with a StatusCode() int method with that code, any other with 400,
// its message as the body, as upstream's kubelet answers
// ("previous terminated container \"c\" in pod \"p\" not found").
type ContainerLookup func(namespace, pod, container string, previous bool) (runtime.Container, error)

// PodLookup finds a pod this kubelet runs and the runtime its containers
// run in, for `kubectl port-forward`. Errors are answered as
// ContainerLookup's are.
type PodLookup func(namespace, pod string) (*api.Pod, runtime.Runtime, error)

// Backend is what the kubelet gives its server: its containers and pods.
type Backend interface {
	FindContainer(namespace, pod, container string, previous bool) (runtime.Container, error)
	FindPod(namespace, pod string) (*api.Pod, runtime.Runtime, error)
	Summary(nodeName string) (*stats.Summary, error)
}

// StatusCoder is implemented by lookup errors that know the HTTP status the
// server should answer with.
type StatusCoder interface {
	StatusCode() int
}

// lookupStatusCode is the HTTP status for a pod or container lookup error:
// 404 for ErrNotFound, the error's own code if it has one, otherwise 400.
func lookupStatusCode(err error) int {
	var coder StatusCoder
	switch {
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	case errors.As(err, &coder) && coder.StatusCode() >= 400 && coder.StatusCode() <= 599:
		return coder.StatusCode()
	}
	return http.StatusBadRequest
}

// ErrNotFound marks a lookup error about a pod or container the kubelet
// does not know.
var ErrNotFound = errors.New("not found")

// NotFoundf returns an error the server answers with 404 Not Found, such as
// upstream's `pod "web" does not exist`.
func NotFoundf(format string, args ...any) error {
	return &notFoundError{msg: fmt.Sprintf(format, args...)}
}

type notFoundError struct{ msg string }

func (e *notFoundError) Error() string        { return e.msg }
func (e *notFoundError) Is(target error) bool { return target == ErrNotFound }

// Options configure the kubelet's server.
type Options struct {
	// BindAddress is the address to listen on (upstream's --address):
	// loopback by default, since every node of `ctl up` lives on this
	// machine; a kubelet in another network namespace or on another host
	// serves on its own address so the apiserver can reach it.
	BindAddress string
	// Port is the port to listen on; 0 picks a free one, which Start
	// returns so the kubelet can publish it in
	// node.status.daemonEndpoints.kubeletEndpoint.Port. Upstream: 10250.
	Port int
	// ClientCAPEM holds the CA certificates that sign acceptable client
	// certificates: the cluster CA, the kubeconfig's
	// certificate-authority-data. Required.
	ClientCAPEM []byte
	// NodeName names the node(s) in the serving certificate; optional.
	NodeName string
	// NodeIPs are put in the serving certificate besides loopback and
	// BindAddress: the node's InternalIP, which the apiserver dials.
	NodeIPs []net.IP
	// NodeNames are the nodes the process runs, which calls are
	// authorized against (see nodeFor); empty means NodeName.
	NodeNames []string
	// Reviewer answers the SubjectAccessReviews that authorize each call:
	// the apiserver (a *client.Client). Required.
	Reviewer AccessReviewer
	// Tokens authenticates callers without a client certificate by their
	// bearer token; nil accepts certificates only.
	Tokens TokenAuthenticator
	// Clock times the authorization cache; nil means the real clock.
	Clock clock.Clock
	// Lookup finds containers; it may also be set later with SetLookup.
	Lookup ContainerLookup
	// Pods finds pods and their runtime, for port-forward; it may also be
	// set later with SetPodLookup.
	Pods PodLookup
	// Summaries finds node summaries, for /stats/summary and
	// /metrics/resource; it may also be set later with SetSummaryLookup.
	Summaries SummaryLookup
	// Logger receives the server's logs; nil means slog.Default().
	Logger *slog.Logger
}

// DefaultOptions returns the defaults: 127.0.0.1, a free port.
func DefaultOptions() Options {
	return Options{BindAddress: "127.0.0.1"}
}

// Validate checks the options.
func (o Options) Validate() error {
	var errs []error
	if net.ParseIP(o.BindAddress) == nil {
		errs = append(errs, fmt.Errorf("kubelet server bind address %q is not an IP address", o.BindAddress))
	}
	if o.Port < 0 || o.Port > 65535 {
		errs = append(errs, fmt.Errorf("kubelet server port %d out of range", o.Port))
	}
	if len(o.ClientCAPEM) == 0 {
		errs = append(errs, errors.New("kubelet server needs the cluster CA to authenticate clients"))
	}
	if o.Reviewer == nil {
		errs = append(errs, errors.New("kubelet server needs a SubjectAccessReview client to authorize calls"))
	}
	return errors.Join(errs...)
}

// Server is the kubelet's HTTPS server.
type Server struct {
	opts      Options
	log       *slog.Logger
	clientCAs *x509.CertPool
	reviews   *reviewCache

	mu        sync.RWMutex
	lookup    ContainerLookup
	pods      PodLookup
	summaries SummaryLookup
}

// New checks opts and prepares a server; Start serves it.
func New(opts Options) (*Server, error) {
	if opts.BindAddress == "" {
		opts.BindAddress = "127.0.0.1"
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(opts.ClientCAPEM) {
		return nil, errors.New("kubelet server: the client CA holds no PEM certificate")
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Server{opts: opts, log: log.With("component", "kubelet-server"), clientCAs: pool, lookup: opts.Lookup, pods: opts.Pods,
		summaries: opts.Summaries, reviews: newReviewCache(opts.Reviewer, opts.Clock)}, nil
}

// SetLookup sets (or replaces) how the server finds containers, for a
// kubelet that creates the server before its pod workers exist.
func (s *Server) SetLookup(lookup ContainerLookup) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lookup = lookup
}

func (s *Server) containerLookup() ContainerLookup {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.lookup
}

// SetPodLookup sets (or replaces) how the server finds pods.
func (s *Server) SetPodLookup(pods PodLookup) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pods = pods
}

func (s *Server) podLookup() PodLookup {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.pods
}

// Handler is the server's HTTP handler, without TLS (tests use it
// directly).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", s.serveContainerLogs)
	// exec and attach come as GET (WebSocket) or POST (SPDY), as upstream.
	for _, method := range []string{"GET", "POST"} {
		mux.HandleFunc(method+" /exec/{namespace}/{pod}/{container}", s.serveExec)
		mux.HandleFunc(method+" /attach/{namespace}/{pod}/{container}", s.serveAttach)
		mux.HandleFunc(method+" /portForward/{namespace}/{pod}", s.servePortForward)
	}
	mux.HandleFunc("GET /stats/summary", s.serveStatsSummary)
	mux.HandleFunc("GET /metrics/resource", s.serveResourceMetrics)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("ok"))
	})
	return mux
}

// Start listens and serves HTTPS until ctx is cancelled, and returns the
// port it listens on.
func (s *Server) Start(ctx context.Context) (port int, err error) {
	// The wall clock: clients check the certificate's validity against theirs.
	cert, err := selfSignedCertificate(s.opts.NodeName, time.Now(), append([]net.IP{net.ParseIP(s.opts.BindAddress)}, s.opts.NodeIPs...)...)
	if err != nil {
		return 0, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(s.opts.BindAddress, strconv.Itoa(s.opts.Port)))
	if err != nil {
		return 0, fmt.Errorf("kubelet server: listen: %w", err)
	}
	srv := &http.Server{
		Handler: s.authorize(s.Handler()),
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{cert},
			// A certificate, if given, must chain to the cluster CA; a
			// caller without one may still bring a bearer token.
			ClientAuth: tls.VerifyClientCertIfGiven,
			ClientCAs:  s.clientCAs,
			MinVersion: tls.VersionTLS12,
		},
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go func() {
		if err := srv.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("kubelet server stopped", "err", err)
		}
	}()
	go func() {
		<-ctx.Done()
		// Followed log streams end with their requests' contexts, which
		// derive from ctx, so Close does not cut a well-behaved stream.
		_ = srv.Close()
	}()
	port = ln.Addr().(*net.TCPAddr).Port
	s.log.Info("kubelet server listening", "address", net.JoinHostPort(s.opts.BindAddress, strconv.Itoa(port)))
	return port, nil
}

// StartServer starts the kubelet's server on a free port of 127.0.0.1,
// trusting clients whose certificates clientCAPEM's CA signed (the cluster
// CA from the kubelet's kubeconfig) or whose tokens tokens accepts,
// authorizing calls with reviewer, finding containers and pods in
// backend. It serves until ctx ends and returns the port for
// node.status.daemonEndpoints.kubeletEndpoint.Port: the whole job of a
// kubelet's server hook.
func StartServer(ctx context.Context, clientCAPEM []byte, reviewer AccessReviewer, tokens TokenAuthenticator, backend Backend, logger *slog.Logger) (int32, error) {
	return StartServerAt(ctx, "", "", clientCAPEM, reviewer, tokens, backend, logger)
}

// StartServerAt is StartServer on a free port of bindAddress ("" is
// 127.0.0.1): the kubelet's --address. nodeIP (--node-ip; "" for none) is
// the address the apiserver dials, which the serving certificate names.
func StartServerAt(ctx context.Context, bindAddress, nodeIP string, clientCAPEM []byte, reviewer AccessReviewer, tokens TokenAuthenticator, backend Backend, logger *slog.Logger) (int32, error) {
	opts := DefaultOptions()
	if bindAddress != "" {
		opts.BindAddress = bindAddress
	}
	if ip := net.ParseIP(nodeIP); ip != nil {
		opts.NodeIPs = []net.IP{ip}
	}
	opts.ClientCAPEM, opts.Lookup, opts.Pods, opts.Summaries, opts.Logger = clientCAPEM, backend.FindContainer, backend.FindPod, backend.Summary, logger
	opts.Reviewer, opts.Tokens = reviewer, tokens
	if named, ok := backend.(interface{ NodeNames() []string }); ok {
		opts.NodeNames = named.NodeNames()
	}
	s, err := New(opts)
	if err != nil {
		return 0, err
	}
	port, err := s.Start(ctx)
	return int32(port), err
}
