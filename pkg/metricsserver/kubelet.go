package metricsserver

// This file is how metrics-server reaches a kubelet: upstream's
// pkg/scraper/client/resource/client.go. The address comes from the Node
// object, as the apiserver finds a kubelet for `kubectl logs`: the node's
// InternalIP and status.daemonEndpoints.kubeletEndpoint.port, loopback
// only (package kubeletaddr, shared with the apiserver).

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/kubeletaddr"
)

// resourceMetricsPath is the kubelet's resource metrics endpoint.
const resourceMetricsPath = "/metrics/resource"

// maxResourceMetricsBytes caps a kubelet's answer: upstream reads at most
// 10 MiB (a node with a few hundred pods answers well under 1 MiB).
const maxResourceMetricsBytes = 10 << 20

// kubeletDialTimeout bounds connecting to a kubelet; the whole request is
// bounded by the scrape timeout.
const kubeletDialTimeout = 5 * time.Second

// kubeletURL is the node's /metrics/resource URL, or why it has none.
func kubeletURL(node *api.Node) (string, error) {
	host, err := kubeletaddr.Host(node, "metrics-server")
	if err != nil {
		return "", err
	}
	return "https://" + host + resourceMetricsPath, nil
}

// kubeletClient fetches resource metrics from kubelets.
type kubeletClient struct {
	http *http.Client
}

// newKubeletClient returns a client presenting cert (when it has one) and
// verifying kubelets against roots; nil roots skips verification, which is
// upstream's --kubelet-insecure-tls and what kplane's self-signed kubelet
// certificates need, as the apiserver does for them.
func newKubeletClient(cert *tls.Certificate, roots *x509.CertPool) *kubeletClient {
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots}
	if roots == nil {
		tlsConfig.InsecureSkipVerify = true //nolint:gosec // kubelets serve self-signed certificates
	}
	if cert != nil {
		tlsConfig.Certificates = []tls.Certificate{*cert}
	}
	transport := &http.Transport{
		Proxy:               nil, // never through a proxy from the environment
		DialContext:         kubeletaddr.DialContext(kubeletDialTimeout),
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: kubeletDialTimeout,
		MaxIdleConnsPerHost: 2,
	}
	return &kubeletClient{http: &http.Client{Transport: transport}}
}

// get fetches and decodes url; now stamps samples without a timestamp.
func (c *kubeletClient) get(ctx context.Context, url string, now func() time.Time) (*MetricsBatch, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("GET %s: %s: %s", url, resp.Status, body)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResourceMetricsBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", url, err)
	}
	if len(body) > maxResourceMetricsBytes {
		return nil, errors.New("GET " + url + ": answer larger than 10 MiB")
	}
	batch, err := DecodeBatch(bytes.NewReader(body), now())
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	return batch, nil
}

// close releases idle connections.
func (c *kubeletClient) close() { c.http.CloseIdleConnections() }
