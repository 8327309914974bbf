package kubeconfig

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
)

// DefaultNamespace is the namespace kubectl uses when the context names none.
const DefaultNamespace = "default"

// Resolved is one context followed through to what a client needs: the
// server's URL, how to trust it, the credential to present and the default
// namespace. File references have been read, so it holds contents, not paths.
type Resolved struct {
	ContextName string
	ClusterName string
	UserName    string

	// Server is the apiserver URL.
	Server string
	// TLSServerName overrides the name checked in the server certificate.
	TLSServerName string
	// InsecureSkipTLSVerify disables certificate checks.
	InsecureSkipTLSVerify bool
	// CAPEM is the CA to trust; empty means the system's roots.
	CAPEM []byte

	// Token is the bearer token, or empty.
	Token string
	// ClientCertPEM and ClientKeyPEM are a client certificate, or empty.
	ClientCertPEM []byte
	ClientKeyPEM  []byte

	// Namespace is the context's namespace, or "default" when it sets none.
	Namespace string
}

// Resolve follows the named context, or current-context when contextName is
// empty, to its cluster and user, reading any files they refer to.
func (c *Config) Resolve(contextName string) (Resolved, error) {
	if contextName == "" {
		contextName = c.CurrentContext
	}
	if contextName == "" {
		return Resolved{}, errors.New("kubeconfig: no context given and current-context is not set")
	}
	ctx, ok := find(c.Contexts, contextName, func(n NamedContext) string { return n.Name })
	if !ok {
		return Resolved{}, fmt.Errorf("kubeconfig: context %q not found", contextName)
	}
	cluster, ok := find(c.Clusters, ctx.Context.Cluster, func(n NamedCluster) string { return n.Name })
	if !ok {
		return Resolved{}, fmt.Errorf("kubeconfig: context %q refers to cluster %q, which is not defined", contextName, ctx.Context.Cluster)
	}
	user, ok := find(c.Users, ctx.Context.User, func(n NamedUser) string { return n.Name })
	if !ok {
		return Resolved{}, fmt.Errorf("kubeconfig: context %q refers to user %q, which is not defined", contextName, ctx.Context.User)
	}

	r := Resolved{
		ContextName:           contextName,
		ClusterName:           cluster.Name,
		UserName:              user.Name,
		Server:                strings.TrimSpace(cluster.Cluster.Server),
		TLSServerName:         cluster.Cluster.TLSServerName,
		InsecureSkipTLSVerify: cluster.Cluster.InsecureSkipTLSVerify,
		Namespace:             ctx.Context.Namespace,
	}
	if r.Server == "" {
		return Resolved{}, fmt.Errorf("kubeconfig: cluster %q has no server defined", cluster.Name)
	}
	if r.Namespace == "" {
		r.Namespace = DefaultNamespace
	}

	var err error
	if r.CAPEM, err = dataOrFile(cluster.Cluster.CertificateAuthorityData, cluster.Cluster.CertificateAuthority); err != nil {
		return Resolved{}, fmt.Errorf("kubeconfig: cluster %q: %w", cluster.Name, err)
	}
	if r.ClientCertPEM, err = dataOrFile(user.User.ClientCertificateData, user.User.ClientCertificate); err != nil {
		return Resolved{}, fmt.Errorf("kubeconfig: user %q: %w", user.Name, err)
	}
	if r.ClientKeyPEM, err = dataOrFile(user.User.ClientKeyData, user.User.ClientKey); err != nil {
		return Resolved{}, fmt.Errorf("kubeconfig: user %q: %w", user.Name, err)
	}
	if r.Token, err = token(user.User); err != nil {
		return Resolved{}, fmt.Errorf("kubeconfig: user %q: %w", user.Name, err)
	}
	if (user.User.Exec != nil || user.User.AuthProvider != nil) && r.Token == "" && len(r.ClientCertPEM) == 0 {
		return Resolved{}, fmt.Errorf("kubeconfig: user %q gets its credentials from a plugin (exec or auth-provider), which kplane's client does not run", user.Name)
	}
	return r, nil
}

// find returns the entry of list whose name is name.
func find[T any](list []T, name string, nameOf func(T) string) (T, bool) {
	for _, item := range list {
		if nameOf(item) == name {
			return item, true
		}
	}
	var zero T
	return zero, false
}

// dataOrFile returns inline data if there is any, else the named file's
// content; kubectl gives *-data the same precedence.
func dataOrFile(data []byte, file string) ([]byte, error) {
	if len(data) > 0 || file == "" {
		return data, nil
	}
	content, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return content, nil
}

// token returns the bearer token: tokenFile's content when it can be read
// (upstream lets it take precedence), else the inline token.
func token(u AuthInfo) (string, error) {
	if u.TokenFile == "" {
		return u.Token, nil
	}
	content, err := os.ReadFile(u.TokenFile)
	if err != nil {
		if u.Token != "" {
			slog.Warn("cannot read tokenFile, using the inline token", "component", "kubeconfig", "tokenFile", u.TokenFile, "err", err)
			return u.Token, nil
		}
		return "", fmt.Errorf("read tokenFile: %w", err)
	}
	return strings.TrimSpace(string(content)), nil
}

// TLSConfig returns the client TLS configuration this context calls for:
// trust CAPEM (or the system's roots when there is none), check TLSServerName
// if set, present the client certificate if there is one. It does not set
// NextProtos; an http.Transport built on it needs ForceAttemptHTTP2 to keep
// speaking HTTP/2.
func (r Resolved) TLSConfig() (*tls.Config, error) {
	cfg := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         r.TLSServerName,
		InsecureSkipVerify: r.InsecureSkipTLSVerify,
	}
	if len(r.CAPEM) > 0 {
		// kubectl refuses this combination too: a CA that is never checked
		// would only give a false sense of security.
		if r.InsecureSkipTLSVerify {
			return nil, fmt.Errorf("kubeconfig: cluster %q: a certificate authority cannot be combined with insecure-skip-tls-verify", r.ClusterName)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(r.CAPEM) {
			return nil, fmt.Errorf("kubeconfig: cluster %q: certificate authority holds no PEM certificate", r.ClusterName)
		}
		cfg.RootCAs = pool
	}
	if len(r.ClientCertPEM) > 0 || len(r.ClientKeyPEM) > 0 {
		pair, err := tls.X509KeyPair(r.ClientCertPEM, r.ClientKeyPEM)
		if err != nil {
			return nil, fmt.Errorf("kubeconfig: user %q: client certificate: %w", r.UserName, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}
