package pki

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"
)

func TestKubeletClientCertificate(t *testing.T) {
	b := mustEnsure(t, t.TempDir(), nil)

	leaf := b.KubeletClientCert.Leaf
	if leaf == nil {
		t.Fatal("KubeletClientCert has no parsed leaf")
	}
	if leaf.Subject.CommonName != KubeletClientCommonName {
		t.Errorf("CN = %q, want %q", leaf.Subject.CommonName, KubeletClientCommonName)
	}
	if !slices.Equal(leaf.Subject.Organization, []string{KubeletClientOrganization}) {
		t.Errorf("O = %v, want [%s]", leaf.Subject.Organization, KubeletClientOrganization)
	}
	if !slices.Equal(leaf.ExtKeyUsage, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}) {
		t.Errorf("extended key usage = %v, want client auth only", leaf.ExtKeyUsage)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: b.CAPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("kubelet client certificate does not chain to the CA: %v", err)
	}
	if !bytes.Equal(readFile(t, b.KubeletClientCertFile), pemOf(leaf)) {
		t.Error("apiserver-kubelet-client.crt differs from KubeletClientCert")
	}
	for path, want := range map[string]os.FileMode{b.KubeletClientKeyFile: 0o600, b.KubeletClientCertFile: 0o644} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if perm := info.Mode().Perm(); perm != want {
			t.Errorf("%s mode = %o, want %o", path, perm, want)
		}
	}
}

// TestKubeletClientReuseAndRegenerate changes a prepared directory and checks
// whether the second Ensure replaced the kubelet client certificate.
func TestKubeletClientReuseAndRegenerate(t *testing.T) {
	otherCA, err := newCA(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		change  func(t *testing.T, b *Bundle)
		wantNew bool
	}{
		{name: "unchanged files are reused", change: func(*testing.T, *Bundle) {}},
		{
			name:    "missing certificate",
			change:  func(t *testing.T, b *Bundle) { mustRemove(t, b.KubeletClientCertFile) },
			wantNew: true,
		},
		{
			name:    "missing key",
			change:  func(t *testing.T, b *Bundle) { mustRemove(t, b.KubeletClientKeyFile) },
			wantNew: true,
		},
		{
			name: "signed by another CA",
			change: func(t *testing.T, b *Bundle) {
				foreign, err := newKubeletClient(otherCA, time.Now())
				if err != nil {
					t.Fatal(err)
				}
				if err := foreign.write(b.KubeletClientCertFile, b.KubeletClientKeyFile); err != nil {
					t.Fatal(err)
				}
			},
			wantNew: true,
		},
		{
			name: "a serving certificate in its place",
			change: func(t *testing.T, b *Bundle) {
				data := readFile(t, b.ServerCertFile)
				key := readFile(t, b.ServerKeyFile)
				if err := os.WriteFile(b.KubeletClientCertFile, data, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(b.KubeletClientKeyFile, key, 0o600); err != nil {
					t.Fatal(err)
				}
			},
			wantNew: true,
		},
		{
			name: "expires within 30 days",
			change: func(t *testing.T, b *Bundle) {
				ca, err := readKeyPair(b.CACertFile, b.CAKeyFile)
				if err != nil {
					t.Fatal(err)
				}
				old, err := newKubeletClient(ca, time.Now().Add(-340*24*time.Hour))
				if err != nil {
					t.Fatal(err)
				}
				if err := old.write(b.KubeletClientCertFile, b.KubeletClientKeyFile); err != nil {
					t.Fatal(err)
				}
			},
			wantNew: true,
		},
		{
			name:    "CA replaced",
			change:  func(t *testing.T, b *Bundle) { mustRemove(t, b.CAKeyFile) },
			wantNew: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			first := mustEnsure(t, dir, nil)
			before := readFile(t, first.KubeletClientCertFile)
			tt.change(t, first)

			second := mustEnsure(t, dir, nil)
			after := readFile(t, second.KubeletClientCertFile)
			if gotNew := !bytes.Equal(before, after); gotNew != tt.wantNew {
				t.Errorf("kubelet client certificate replaced = %v, want %v", gotNew, tt.wantNew)
			}
			if _, err := second.KubeletClientCert.Leaf.Verify(x509.VerifyOptions{Roots: second.CAPool(),
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
				t.Errorf("certificate after Ensure does not chain to the CA: %v", err)
			}
		})
	}
}

// TestKubeletClientMutualTLS plays the kubelet's side: a server that requires
// a client certificate signed by the cluster CA accepts the apiserver's.
func TestKubeletClientMutualTLS(t *testing.T) {
	b := mustEnsure(t, t.TempDir(), nil)
	other := mustEnsure(t, t.TempDir(), nil)

	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, r.TLS.PeerCertificates[0].Subject.CommonName)
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: b.CAPool()}
	srv.StartTLS()
	defer srv.Close()

	tests := []struct {
		name    string
		certs   []tls.Certificate
		wantErr bool
	}{
		{name: "apiserver's client certificate", certs: []tls.Certificate{b.KubeletClientCert}},
		{name: "certificate from another cluster", certs: []tls.Certificate{other.KubeletClientCert}, wantErr: true},
		{name: "no certificate", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			transport := &http.Transport{TLSClientConfig: &tls.Config{
				Certificates: tt.certs,
				// The test server's own certificate is httptest's.
				InsecureSkipVerify: true,
			}}
			defer transport.CloseIdleConnections()
			resp, err := (&http.Client{Transport: transport}).Get(srv.URL)
			if tt.wantErr {
				if err == nil {
					resp.Body.Close()
					t.Fatal("request succeeded, want the handshake refused")
				}
				return
			}
			if err != nil {
				t.Fatalf("GET: %v", err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if string(body) != KubeletClientCommonName {
				t.Errorf("server saw client %q, want %q", body, KubeletClientCommonName)
			}
		})
	}
}

func mustRemove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

func pemOf(cert *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})
}
