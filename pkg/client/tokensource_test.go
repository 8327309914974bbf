package client_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"

	"kplane/pkg/client"
	"kplane/pkg/pki"
)

type fixedToken string

func (f fixedToken) Token(context.Context) (string, error) { return string(f), nil }

// A client that authenticates with a certificate and hands out clones with
// a token source (the controller-manager's --use-service-account-credentials
// with a certificate kubeconfig): the clones must send only the token, or
// the apiserver, which reads the certificate first, would never see it.
func TestWithTokenSourceDropsClientCertificate(t *testing.T) {
	dir := t.TempDir()
	if _, err := pki.Ensure(dir, nil); err != nil {
		t.Fatal(err)
	}
	user, err := pki.IssueUserCertificate(dir, "system:kube-controller-manager", nil)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(user.CertPEM, user.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		certificate   bool
		authorization string
	}
	requests := make(chan seen, 4)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests <- seen{certificate: len(r.TLS.PeerCertificates) > 0, authorization: r.Header.Get("Authorization")}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	srv.StartTLS()
	defer srv.Close()

	root, err := client.New(&client.Config{Host: srv.URL, TLSClientConfig: &tls.Config{
		Certificates: []tls.Certificate{cert}, InsecureSkipVerify: true}}) //nolint:gosec // a test server
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		c    *client.Client
		want seen
	}{
		{"root client", root, seen{certificate: true}},
		{"token-source clone", root.WithTokenSource(fixedToken("sa-token"), "test/job-controller"), seen{authorization: "Bearer sa-token"}},
		{"root client again", root, seen{certificate: true}},
	} {
		if _, _, err := tc.c.Do(ctx, http.MethodGet, "/api", nil, nil); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := <-requests; got != tc.want {
			t.Errorf("%s: the server saw %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
