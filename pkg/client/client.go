package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"kplane/pkg/clock"
)

// Client talks to one apiserver. It owns one HTTP transport, so every
// request and watch of a component shares one pool of keep-alive
// connections (with HTTP/2, usually a single connection multiplexing
// everything). Safe for concurrent use.
type Client struct {
	base  string // Host without a trailing slash
	token string
	// tokenSource, when set, gives each request's token instead of token
	// (see WithTokenSource).
	tokenSource TokenSource
	userAgent   string

	transport *http.Transport
	http      *http.Client
	// anonymous is transport without the client certificate, for
	// WithTokenSource's clones; shared by them, made on first use.
	anonymous *anonymousTransport

	// limiter is nil when QPS is 0 (no client-side throttling).
	limiter    *RateLimiter
	timeout    time.Duration
	maxRetries int
	backoff    backoff
	clock      clock.Clock
	// sleep waits between retries; tests replace it to record the waits.
	sleep func(ctx context.Context, d time.Duration) error

	log *slog.Logger
	// baseLog is Config.Logger (or the default), before the client's own
	// attributes.
	baseLog *slog.Logger
	warn    func(string)
	// onWrite is Config.OnWrite (nil: writes are not reported).
	onWrite func(WriteInfo)
}

// Transport settings, chosen as client-go chooses them: keep-alive TCP,
// bounded handshakes, and HTTP/2 pings so that a watch on a connection that
// died silently (a laptop sleeping, a NAT dropping state) is noticed within
// about 45 s instead of hanging forever.
const (
	dialTimeout          = 30 * time.Second
	tcpKeepAlive         = 30 * time.Second
	tlsHandshakeTimeout  = 10 * time.Second
	idleConnTimeout      = 90 * time.Second
	maxIdleConnsPerHost  = 25
	http2ReadIdleTimeout = 30 * time.Second // upstream HTTP2_READ_IDLE_TIMEOUT_SECONDS
	http2PingTimeout     = 15 * time.Second // upstream HTTP2_PING_TIMEOUT_SECONDS
)

// New returns a Client for cfg. It does not contact the server.
func New(cfg *Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	tlsConfig, err := clientTLSConfig(cfg)
	if err != nil {
		return nil, err
	}
	transport := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: dialTimeout, KeepAlive: tcpKeepAlive}).DialContext,
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: tlsHandshakeTimeout,
		// A custom TLSClientConfig turns HTTP/2 off unless asked for; the
		// apiserver serves HTTP/2 and watches multiplex well over it.
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: maxIdleConnsPerHost,
		IdleConnTimeout:     idleConnTimeout,
		HTTP2:               &http.HTTP2Config{SendPingTimeout: http2ReadIdleTimeout, PingTimeout: http2PingTimeout},
	}
	clk := cfg.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	userAgent := cfg.UserAgent
	if userAgent == "" {
		userAgent = DefaultUserAgent()
	}
	c := &Client{
		base:      strings.TrimRight(cfg.Host, "/"),
		token:     cfg.Token,
		userAgent: userAgent,
		transport: transport,
		anonymous: &anonymousTransport{},
		// No http.Client.Timeout: it would cut watches. Timeouts are per
		// request (Config.Timeout) through the request's context.
		http:       &http.Client{Transport: transport},
		timeout:    cfg.Timeout,
		maxRetries: cfg.maxRetries(),
		backoff:    defaultBackoff(),
		clock:      clk,
		sleep:      sleepFor(clk),
		log:        log.With("component", "client", "userAgent", userAgent),
		baseLog:    log,
		warn:       cfg.WarningHandler,
		onWrite:    cfg.OnWrite,
	}
	if cfg.QPS > 0 {
		c.limiter = NewRateLimiter(cfg.QPS, cfg.Burst, clk)
	}
	if c.warn == nil {
		c.warn = func(text string) { c.log.Warn("apiserver warning", "warning", text) }
	}
	return c, nil
}

// clientTLSConfig is cfg.TLSClientConfig (cloned, as the transport may
// change it) or a config trusting CAData.
func clientTLSConfig(cfg *Config) (*tls.Config, error) {
	if cfg.TLSClientConfig != nil {
		return cfg.TLSClientConfig.Clone(), nil
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(cfg.CAData) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(cfg.CAData) {
			return nil, fmt.Errorf("client config: CA data holds no PEM certificate")
		}
		tlsConfig.RootCAs = pool
	}
	return tlsConfig, nil
}

// Host is the apiserver URL this client talks to.
func (c *Client) Host() string { return c.base }

// Close releases the client's idle connections. Requests and watches still
// running are not interrupted; cancel their contexts for that.
func (c *Client) Close() { c.transport.CloseIdleConnections() }

// Do sends a raw request, for what the typed and dynamic clients do not
// cover (discovery documents, Tables, /version). path may carry a query
// ("/api/v1/pods?limit=500"); headers may set Accept or Content-Type
// (JSON by default). It is throttled and retried like every other request.
// For a non-2xx answer it returns the status and body and also a
// *errors.StatusError.
func (c *Client) Do(ctx context.Context, method, path string, body []byte, headers map[string]string) (status int, respBody []byte, err error) {
	u, err := url.Parse(path)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	r := &request{method: method, path: u.Path, query: u.Query(), body: body, headers: headers}
	resp, err := c.do(ctx, r)
	if resp == nil {
		return 0, nil, err
	}
	return resp.code, resp.body, err
}

// Stream sends a GET like Do but returns the body as soon as a 2xx answer
// has started, for the caller to read and close: a watch in a form the
// typed and dynamic clients do not decode (`ctl get -w` asks for Tables).
// Cancel ctx or close the body to end it. A non-2xx answer is a
// *errors.StatusError.
func (c *Client) Stream(ctx context.Context, path string, headers map[string]string) (io.ReadCloser, error) {
	u, err := url.Parse(path)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	resp, err := c.stream(ctx, &request{method: http.MethodGet, path: u.Path, query: u.Query(), headers: headers})
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}
