package server

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net/http"
	"testing"
	"time"

	"kplane/pkg/kubelet/runtime"
	"kplane/pkg/pki"
)

// TestServerAuthorizesByGroup: a certificate the cluster CA signed gets
// through TLS, but only the apiserver's kubelet-client identity (and
// system:masters) may use the API; anyone else is told 403 in upstream's
// words, and /healthz stays open.
func TestServerAuthorizesByGroup(t *testing.T) {
	run := newFakeRun("secret output\n")
	run.exit()
	cluster := testBundle(t)
	s := newTestServer(t, cluster, func(string, string, string, bool) (runtime.Container, error) { return run, nil })
	base := startTLS(t, s)

	tests := []struct {
		name     string
		cert     tls.Certificate
		wantCode int
		wantBody string
	}{
		{"apiserver's kubelet client", cluster.KubeletClientCert, http.StatusOK, "secret output\n"},
		{"an admin", signedClientCert(t, cluster, "admin", "system:masters"), http.StatusOK, "secret output\n"},
		{"a node", signedClientCert(t, cluster, "system:node:node2", "system:nodes"), http.StatusForbidden,
			"Forbidden (user=system:node:node2, verb=get, resource=nodes, subresource=proxy)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := clientWith(tt.cert)
			defer client.CloseIdleConnections()
			resp, err := client.Get(base + "/containerLogs/default/web/app")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantCode || string(body) != tt.wantBody {
				t.Errorf("got %d %q, want %d %q", resp.StatusCode, body, tt.wantCode, tt.wantBody)
			}
			health, err := client.Get(base + "/healthz")
			if err != nil {
				t.Fatal(err)
			}
			health.Body.Close()
			if health.StatusCode != http.StatusOK {
				t.Errorf("/healthz: %d", health.StatusCode)
			}
		})
	}
}

// signedClientCert is a client certificate for user in group, signed by
// the bundle's CA.
func signedClientCert(t *testing.T, b *pki.Bundle, user, group string) tls.Certificate {
	t.Helper()
	ca, err := tls.LoadX509KeyPair(b.CACertFile, b.CAKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: user, Organization: []string{group}},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, b.CACert, key.Public(), ca.PrivateKey.(crypto.Signer))
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
