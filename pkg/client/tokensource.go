package client

import (
	"context"
	"crypto/tls"
	"net/http"
	"sync"
)

// TokenSource gives the bearer token of each request. A client with one
// asks it before every request instead of sending a fixed Config.Token, so
// a token that is replaced before it expires (a ServiceAccount token from
// the TokenRequest API) is picked up without building a new client — the
// job client-go's transport.TokenSource does.
type TokenSource interface {
	// Token returns the token to send now. An error fails the request.
	Token(ctx context.Context) (string, error)
}

// WithTokenSource returns a client that sends source's token instead of
// c's credentials, with userAgent (empty keeps c's). It shares c's
// connections, rate limiter and settings: many such clients (one per
// controller) cost no more connections than c alone. When c presents a
// client certificate, the clones share one second pool of connections
// that present none: the apiserver reads a certificate before a bearer
// token, so the token would otherwise never be looked at (upstream's
// controller-manager builds its ServiceAccount clients from an anonymous
// copy of its config for the same reason, rest.AnonymousClientConfig).
func (c *Client) WithTokenSource(source TokenSource, userAgent string) *Client {
	clone := *c
	clone.token, clone.tokenSource = "", source
	if presentsClientCertificate(c.transport.TLSClientConfig) {
		anonymous := c.anonymous
		if anonymous == nil {
			anonymous = &anonymousTransport{}
		}
		clone.transport = anonymous.from(c.transport)
		clone.http = &http.Client{Transport: clone.transport}
	}
	if userAgent != "" {
		clone.userAgent = userAgent
		clone.log = c.baseLog.With("component", "client", "userAgent", userAgent)
	}
	return &clone
}

// anonymousTransport is a copy of a client's transport that presents no
// client certificate, made once and shared by every WithTokenSource clone.
type anonymousTransport struct {
	once      sync.Once
	transport *http.Transport
}

// from returns the anonymous copy of withCertificate, making it on first use.
func (a *anonymousTransport) from(withCertificate *http.Transport) *http.Transport {
	a.once.Do(func() {
		a.transport = withCertificate.Clone()
		tlsConfig := withCertificate.TLSClientConfig.Clone()
		tlsConfig.Certificates, tlsConfig.GetClientCertificate = nil, nil
		a.transport.TLSClientConfig = tlsConfig
	})
	return a.transport
}

// presentsClientCertificate reports whether cfg sends a client certificate.
func presentsClientCertificate(cfg *tls.Config) bool {
	return cfg != nil && (len(cfg.Certificates) > 0 || cfg.GetClientCertificate != nil)
}
