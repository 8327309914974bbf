package pki

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func mustEnsure(t *testing.T, dir string, hosts []string) *Bundle {
	t.Helper()
	b, err := Ensure(dir, hosts)
	if err != nil {
		t.Fatalf("Ensure(%s, %v): %v", dir, hosts, err)
	}
	return b
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestEnsureCreates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	b := mustEnsure(t, dir, []string{"kplane.example", "192.0.2.7"})

	info, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o700 {
		t.Errorf("dir mode = %o, want 700", perm)
	}
	for _, f := range []struct {
		path string
		perm os.FileMode
	}{
		{b.CAKeyFile, 0o600},
		{b.ServerKeyFile, 0o600},
		{b.CACertFile, 0o644},
		{b.ServerCertFile, 0o644},
	} {
		info, err := os.Stat(f.path)
		if err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		if perm := info.Mode().Perm(); perm != f.perm {
			t.Errorf("%s mode = %o, want %o", f.path, perm, f.perm)
		}
	}
	if !bytes.Equal(readFile(t, b.CACertFile), b.CACertPEM) {
		t.Error("CACertPEM differs from ca.crt on disk")
	}
	if !b.CACert.IsCA {
		t.Error("CA certificate is not a CA")
	}
	if _, err := b.ServerCert.Verify(x509.VerifyOptions{Roots: b.CAPool()}); err != nil {
		t.Errorf("serving certificate does not chain to the CA: %v", err)
	}
	for _, h := range append(append([]string(nil), DefaultHosts...), "kplane.example", "192.0.2.7") {
		if err := b.ServerCert.VerifyHostname(h); err != nil {
			t.Errorf("serving certificate does not cover %q: %v", h, err)
		}
	}
	if life := b.ServerCert.NotAfter.Sub(b.ServerCert.NotBefore); life < 364*24*time.Hour || life > 366*24*time.Hour {
		t.Errorf("serving certificate lifetime = %s, want about a year", life)
	}
	if life := b.CACert.NotAfter.Sub(b.CACert.NotBefore); life < 3649*24*time.Hour {
		t.Errorf("CA lifetime = %s, want about ten years", life)
	}
}

// TestEnsureReuseAndRegenerate runs Ensure on a directory that was prepared
// by a first Ensure and then changed, and checks which files were replaced.
func TestEnsureReuseAndRegenerate(t *testing.T) {
	otherCA, err := newCA(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		hosts       []string // for the second Ensure
		change      func(t *testing.T, b *Bundle)
		wantNewCA   bool
		wantNewCert bool
	}{
		{
			name:   "unchanged files are reused",
			change: func(*testing.T, *Bundle) {},
		},
		{
			name: "missing serving certificate",
			change: func(t *testing.T, b *Bundle) {
				if err := os.Remove(b.ServerCertFile); err != nil {
					t.Fatal(err)
				}
			},
			wantNewCert: true,
		},
		{
			name: "missing serving key",
			change: func(t *testing.T, b *Bundle) {
				if err := os.Remove(b.ServerKeyFile); err != nil {
					t.Fatal(err)
				}
			},
			wantNewCert: true,
		},
		{
			name:        "new host",
			hosts:       []string{"new.example"},
			change:      func(*testing.T, *Bundle) {},
			wantNewCert: true,
		},
		{
			name: "serving certificate expires within 30 days",
			change: func(t *testing.T, b *Bundle) {
				ca, err := readKeyPair(b.CACertFile, b.CAKeyFile)
				if err != nil {
					t.Fatal(err)
				}
				old, err := newServing(ca, servingHosts(nil), time.Now().Add(-340*24*time.Hour))
				if err != nil {
					t.Fatal(err)
				}
				if err := old.write(b.ServerCertFile, b.ServerKeyFile); err != nil {
					t.Fatal(err)
				}
			},
			wantNewCert: true,
		},
		{
			name: "serving certificate signed by another CA",
			change: func(t *testing.T, b *Bundle) {
				foreign, err := newServing(otherCA, servingHosts(nil), time.Now())
				if err != nil {
					t.Fatal(err)
				}
				if err := foreign.write(b.ServerCertFile, b.ServerKeyFile); err != nil {
					t.Fatal(err)
				}
			},
			wantNewCert: true,
		},
		{
			name: "serving key does not match certificate",
			change: func(t *testing.T, b *Bundle) {
				if err := os.WriteFile(b.ServerKeyFile, otherCA.keyPEM, 0o600); err != nil {
					t.Fatal(err)
				}
			},
			wantNewCert: true,
		},
		{
			name: "corrupt CA key",
			change: func(t *testing.T, b *Bundle) {
				if err := os.WriteFile(b.CAKeyFile, []byte("not a key"), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			wantNewCA:   true,
			wantNewCert: true,
		},
		{
			name: "missing CA certificate",
			change: func(t *testing.T, b *Bundle) {
				if err := os.Remove(b.CACertFile); err != nil {
					t.Fatal(err)
				}
			},
			wantNewCA:   true,
			wantNewCert: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			first := mustEnsure(t, dir, nil)
			firstServing := readFile(t, first.ServerCertFile)
			tt.change(t, first)

			second := mustEnsure(t, dir, tt.hosts)

			if gotNew := !bytes.Equal(first.CACertPEM, second.CACertPEM); gotNew != tt.wantNewCA {
				t.Errorf("CA replaced = %v, want %v", gotNew, tt.wantNewCA)
			}
			secondServing := readFile(t, second.ServerCertFile)
			if gotNew := !bytes.Equal(firstServing, secondServing); gotNew != tt.wantNewCert {
				t.Errorf("serving certificate replaced = %v, want %v", gotNew, tt.wantNewCert)
			}
			// Whatever happened, the result on disk must be a usable set that a
			// third start reuses unchanged.
			third := mustEnsure(t, dir, tt.hosts)
			if !bytes.Equal(third.CACertPEM, second.CACertPEM) || !bytes.Equal(readFile(t, third.ServerCertFile), secondServing) {
				t.Error("third Ensure replaced files the second one wrote")
			}
		})
	}
}

// TestConcurrentFirstStarts mirrors parallel tests each starting an
// apiserver in its own data dir.
func TestConcurrentFirstStarts(t *testing.T) {
	root := t.TempDir()
	const n = 8
	bundles := make([]*Bundle, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			bundles[i], errs[i] = Ensure(filepath.Join(root, fmt.Sprint(i), "pki"), nil)
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("Ensure %d: %v", i, errs[i])
		}
		if seen[string(bundles[i].CACertPEM)] {
			t.Errorf("Ensure %d returned a CA another directory already has", i)
		}
		seen[string(bundles[i].CACertPEM)] = true
	}
}

// TestTLSHandshake serves HTTPS with ServerTLSConfig and connects as a
// client that trusts only CACertPEM, under each name a client might use.
func TestTLSHandshake(t *testing.T) {
	b := mustEnsure(t, t.TempDir(), []string{"kplane.example"})

	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "ok")
	}))
	srv.TLS = b.ServerTLSConfig()
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()

	trusted := x509.NewCertPool()
	if !trusted.AppendCertsFromPEM(b.CACertPEM) {
		t.Fatal("CACertPEM holds no certificate")
	}
	tests := []struct {
		name       string
		serverName string
		roots      *x509.CertPool
		wantErr    bool
	}{
		{name: "loopback IP", serverName: "127.0.0.1", roots: trusted},
		{name: "localhost", serverName: "localhost", roots: trusted},
		{name: "in-cluster service name", serverName: "kubernetes.default.svc.cluster.local", roots: trusted},
		{name: "extra host", serverName: "kplane.example", roots: trusted},
		{name: "name not in certificate", serverName: "elsewhere.example", roots: trusted, wantErr: true},
		{name: "client that does not trust the CA", serverName: "localhost", roots: x509.NewCertPool(), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			transport := &http.Transport{
				TLSClientConfig:   &tls.Config{RootCAs: tt.roots, ServerName: tt.serverName},
				ForceAttemptHTTP2: true,
			}
			defer transport.CloseIdleConnections()
			resp, err := (&http.Client{Transport: transport}).Get(srv.URL)
			if tt.wantErr {
				if err == nil {
					resp.Body.Close()
					t.Fatal("request succeeded, want a TLS verification error")
				}
				return
			}
			if err != nil {
				t.Fatalf("GET: %v", err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if string(body) != "ok" {
				t.Errorf("body = %q, want ok", body)
			}
			if resp.ProtoMajor != 2 {
				t.Errorf("protocol = %s, want HTTP/2", resp.Proto)
			}
			if v := resp.TLS.Version; v < tls.VersionTLS12 {
				t.Errorf("TLS version = %x, want 1.2 or newer", v)
			}
		})
	}
}

func TestServerRefusesOldTLS(t *testing.T) {
	b := mustEnsure(t, t.TempDir(), nil)
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.TLS = b.ServerTLSConfig()
	srv.StartTLS()
	defer srv.Close()

	conn, err := tls.Dial("tcp", srv.Listener.Addr().String(), &tls.Config{
		RootCAs:    b.CAPool(),
		ServerName: "localhost",
		MinVersion: tls.VersionTLS10,
		MaxVersion: tls.VersionTLS11,
	})
	if err == nil {
		conn.Close()
		t.Fatal("TLS 1.1 handshake succeeded, want it refused")
	}
	if !strings.Contains(err.Error(), "protocol version") {
		t.Errorf("handshake error = %v, want a protocol version alert", err)
	}
}
