package loadbalancer

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// startHealthChecks runs one checker per backend until ctx ends; the
// returned group is done when they all have returned.
func (b *Balancer) startHealthChecks(ctx context.Context) *sync.WaitGroup {
	var wg sync.WaitGroup
	check := b.tcpCheck
	if b.opts.HealthPath != "" {
		check = b.httpsCheck()
	}
	for _, be := range b.backends {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ticker := time.NewTicker(b.opts.Interval)
			defer ticker.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-ticker.C:
				}
				checkCtx, cancel := context.WithTimeout(ctx, b.opts.Timeout)
				err := check(checkCtx, be.address)
				cancel()
				if ctx.Err() != nil {
					return
				}
				switch be.observe(err == nil, b.opts.Rise, b.opts.Fall) {
				case "up":
					b.log.Info("backend up: health checks pass", "backend", be.address)
				case "down":
					b.log.Warn("backend down: health checks fail; its connections are closed", "backend", be.address, "err", err)
				}
			}
		}()
	}
	return &wg
}

// tcpCheck passes when a TCP connection to address opens.
func (b *Balancer) tcpCheck(ctx context.Context, address string) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", address)
	if err != nil {
		return err
	}
	return conn.Close()
}

// httpsCheck returns a check that passes when GET https://address/HealthPath
// answers 200. The certificate is not verified: the check asks "is this
// apiserver ready", not "is it who it claims", as kind's HAProxy config
// does with "check-ssl verify none". Each check opens a fresh
// connection, so a hung server cannot pass on an old one.
func (b *Balancer) httpsCheck() func(context.Context, string) error {
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // a readiness probe, see above
		DisableKeepAlives: true,
	}}
	return func(ctx context.Context, address string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+address+b.opts.HealthPath, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s", b.opts.HealthPath, resp.Status)
		}
		return nil
	}
}
