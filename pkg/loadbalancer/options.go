package loadbalancer

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"
)

// Options configure a Balancer. DefaultOptions gives the defaults.
type Options struct {
	// Listen is the address clients connect to, host:port.
	Listen string
	// Backends are the servers' addresses, host:port, in round-robin order.
	Backends []string
	// HealthPath is the HTTPS path checked on each backend. kind checks
	// /healthz; /readyz here, the endpoint upstream means for "send it
	// traffic" (/healthz is deprecated there; kplane's apiserver answers
	// all three alike today). Empty checks only that a TCP connection
	// opens.
	HealthPath string
	// Interval is the time between two health checks of one backend.
	// HAProxy's default "inter" is 2 s, which kind keeps; 1 s here so that
	// a student who kills an apiserver sees it leave within seconds.
	Interval time.Duration
	// Timeout bounds one health check.
	Timeout time.Duration
	// Rise is how many good checks in a row bring a down backend up, and
	// Fall how many failed ones take an up backend down (HAProxy: 2 and 3).
	Rise, Fall int
	// DialTimeout bounds the dial of a backend for a client connection.
	DialTimeout time.Duration
	// Logger receives one line per backend state change; nil discards.
	Logger *slog.Logger
}

// DefaultOptions returns the defaults: /readyz checked every second, rise 2,
// fall 3, a 1-second check timeout and a 3-second dial timeout.
func DefaultOptions() Options {
	return Options{
		HealthPath:  "/readyz",
		Interval:    time.Second,
		Timeout:     time.Second,
		Rise:        2,
		Fall:        3,
		DialTimeout: 3 * time.Second,
	}
}

// Validate checks the options before anything listens.
func (o Options) Validate() error {
	if _, _, err := net.SplitHostPort(o.Listen); err != nil {
		return fmt.Errorf("--listen %q: %w", o.Listen, err)
	}
	if len(o.Backends) == 0 {
		return errors.New("at least one --backend is required")
	}
	seen := map[string]bool{}
	for _, b := range o.Backends {
		if _, _, err := net.SplitHostPort(b); err != nil {
			return fmt.Errorf("--backend %q: %w", b, err)
		}
		if seen[b] {
			return fmt.Errorf("--backend %q given twice", b)
		}
		seen[b] = true
	}
	if o.HealthPath != "" && !strings.HasPrefix(o.HealthPath, "/") {
		return fmt.Errorf("--health-path %q: must start with /", o.HealthPath)
	}
	if o.Interval <= 0 || o.Timeout <= 0 || o.DialTimeout <= 0 {
		return errors.New("--health-interval, --health-timeout and --dial-timeout must be positive")
	}
	if o.Rise < 1 || o.Fall < 1 {
		return fmt.Errorf("--rise %d and --fall %d must be at least 1", o.Rise, o.Fall)
	}
	return nil
}
