package client

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"kplane/pkg/clock"
	"kplane/pkg/kubeconfig"
)

// DefaultMaxRetries is how many times a request is retried when Config
// leaves MaxRetries at 0. Five retries with the default back-off span about
// six seconds: enough to ride out an apiserver restart, short enough that a
// controller's own workqueue back-off takes over after that.
const DefaultMaxRetries = 5

// Config says how to reach an apiserver.
type Config struct {
	// Host is the apiserver's base URL, e.g. "https://127.0.0.1:6443".
	Host string
	// CAData is the PEM of the CA to trust; empty means the system roots.
	// It is ignored when TLSClientConfig is set.
	CAData []byte
	// Token is the bearer token sent in the Authorization header.
	Token string
	// UserAgent names the component in the apiserver's logs, e.g.
	// "kplane-controller-manager/v0.1". Empty gives DefaultUserAgent().
	UserAgent string
	// QPS is the client-side rate limit in requests per second; 0 means
	// unlimited (kplane's default; upstream client-go defaults to 5).
	QPS float32
	// Burst is the token bucket size when QPS > 0: how many requests may go
	// out back to back after a quiet spell. Values below 1 mean 1.
	Burst int
	// Timeout bounds each attempt of a non-watch request; 0 means none.
	// Watches are never cut by it: they end with their context.
	Timeout time.Duration
	// MaxRetries bounds retries on 429, 5xx and broken connections
	// (0 means DefaultMaxRetries; -1 disables retries).
	MaxRetries int

	// TLSClientConfig, when set, is used as is (cloned) instead of building
	// one from CAData; ConfigFromKubeconfig sets it so that client
	// certificates, tls-server-name and insecure-skip-tls-verify from the
	// kubeconfig are honoured.
	TLSClientConfig *tls.Config
	// Namespace is the kubeconfig context's namespace ("default" when it
	// names none). The client itself never uses it; commands like ctl pick
	// it as the namespace when the user gives none.
	Namespace string
	// WarningHandler receives each `Warning:` header text the apiserver
	// sends (for example about dropped unknown fields). Nil logs them.
	WarningHandler func(warning string)
	// Logger receives the client's logs (retries at Info, each request at
	// Debug); nil uses slog.Default().
	Logger *slog.Logger
	// Clock drives the rate limiter and the waits between retries, so tests
	// and "fast-forward time" lessons can move time by hand; nil is the
	// wall clock.
	Clock clock.Clock
	// OnWrite, when set, is called after every write the apiserver
	// accepted (see WriteInfo): components point it at their debug
	// journal. It runs on the caller's goroutine, so it must be quick.
	OnWrite func(WriteInfo)
}

// DefaultUserAgent is the user agent sent when Config.UserAgent is empty:
// the program's name and platform, in the shape client-go uses
// ("<binary> (<os>/<arch>) kplane").
func DefaultUserAgent() string {
	name := "kplane"
	if len(os.Args) > 0 && os.Args[0] != "" {
		name = filepath.Base(os.Args[0])
	}
	return fmt.Sprintf("%s (%s/%s) kplane", name, runtime.GOOS, runtime.GOARCH)
}

// ConfigFromKubeconfig reads a kubeconfig file and follows the named context
// (current-context when context is "") to a Config: the server, its CA, the
// user's token and the context's namespace. The kubeconfig's TLS settings
// (including a client certificate) are kept in TLSClientConfig.
func ConfigFromKubeconfig(path, context string) (*Config, error) {
	kc, err := kubeconfig.Load(path)
	if err != nil {
		return nil, err
	}
	resolved, err := kc.Resolve(context)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	tlsConfig, err := resolved.TLSConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	return &Config{
		Host:            resolved.Server,
		CAData:          resolved.CAPEM,
		Token:           resolved.Token,
		Namespace:       resolved.Namespace,
		TLSClientConfig: tlsConfig,
	}, nil
}

// Validate checks that the Config can build a client.
func (c *Config) Validate() error {
	if c == nil {
		return errors.New("client config is nil")
	}
	if c.Host == "" {
		return errors.New("client config: host is required")
	}
	u, err := url.Parse(c.Host)
	if err != nil {
		return fmt.Errorf("client config: host %q: %w", c.Host, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return fmt.Errorf("client config: host %q must be an https:// (or http://) URL", c.Host)
	}
	if u.Host == "" {
		return fmt.Errorf("client config: host %q has no host name", c.Host)
	}
	if c.QPS < 0 {
		return fmt.Errorf("client config: qps %v must not be negative", c.QPS)
	}
	if c.MaxRetries < -1 {
		return fmt.Errorf("client config: maxRetries %d must be -1 (off), 0 (default) or positive", c.MaxRetries)
	}
	if c.Timeout < 0 {
		return fmt.Errorf("client config: timeout %v must not be negative", c.Timeout)
	}
	return nil
}

// maxRetries turns the Config's MaxRetries into a retry count.
// TLSConfig is the TLS configuration the client uses, for connections it
// does not make itself (ctl exec's WebSocket).
func (c *Config) TLSConfig() (*tls.Config, error) { return clientTLSConfig(c) }

func (c *Config) maxRetries() int {
	switch {
	case c.MaxRetries < 0:
		return 0
	case c.MaxRetries == 0:
		return DefaultMaxRetries
	default:
		return c.MaxRetries
	}
}
