package client

import (
	"crypto/tls"
	"path/filepath"
	"strings"
	"testing"

	"kplane/pkg/kubeconfig"
)

// testCAPEM is any valid certificate; these tests never connect.
func testCAPEM(t *testing.T) []byte {
	t.Helper()
	fs := startFakeServer(t, nil, nil)
	return fs.caPEM()
}

func TestConfigFromKubeconfig(t *testing.T) {
	ca := testCAPEM(t)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	kc := kubeconfig.New("kplane", "https://127.0.0.1:6443", ca, "admin", "s3cret")
	kc.Contexts = append(kc.Contexts, kubeconfig.NamedContext{Name: "dev",
		Context: kubeconfig.Context{Cluster: "kplane", User: "admin", Namespace: "dev"}})
	if err := kc.WriteFile(path); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		context       string
		wantNamespace string
	}{
		{"", "default"},
		{"dev", "dev"},
	}
	for _, tt := range tests {
		cfg, err := ConfigFromKubeconfig(path, tt.context)
		if err != nil {
			t.Fatalf("context %q: %v", tt.context, err)
		}
		if cfg.Host != "https://127.0.0.1:6443" || cfg.Token != "s3cret" || string(cfg.CAData) != string(ca) ||
			cfg.Namespace != tt.wantNamespace || cfg.TLSClientConfig == nil || cfg.TLSClientConfig.RootCAs == nil {
			t.Errorf("context %q: config = %+v", tt.context, cfg)
		}
		if _, err := New(cfg); err != nil {
			t.Errorf("New from kubeconfig: %v", err)
		}
	}

	if _, err := ConfigFromKubeconfig(path, "missing"); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("unknown context: err = %v", err)
	}
	if _, err := ConfigFromKubeconfig(filepath.Join(t.TempDir(), "nope"), ""); err == nil {
		t.Error("a missing file was accepted")
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"ok", Config{Host: "https://127.0.0.1:6443"}, ""},
		{"no host", Config{}, "host is required"},
		{"no scheme", Config{Host: "127.0.0.1:6443"}, `host "127.0.0.1:6443"`},
		{"ftp", Config{Host: "ftp://x"}, "https://"},
		{"negative qps", Config{Host: "https://x", QPS: -1}, "qps"},
		{"bad retries", Config{Host: "https://x", MaxRetries: -2}, "maxRetries"},
		{"negative timeout", Config{Host: "https://x", Timeout: -1}, "timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate = %v, want an error about %q", err, tt.wantErr)
			}
		})
	}
}

func TestNewDefaults(t *testing.T) {
	c, err := New(&Config{Host: "https://127.0.0.1:6443/"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Host() != "https://127.0.0.1:6443" || c.maxRetries != DefaultMaxRetries || c.limiter != nil ||
		!strings.HasSuffix(c.userAgent, "kplane") || !c.transport.ForceAttemptHTTP2 {
		t.Errorf("defaults: host %q retries %d limiter %v agent %q", c.Host(), c.maxRetries, c.limiter, c.userAgent)
	}
	limited, err := New(&Config{Host: "https://x", QPS: 5, Burst: 10, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if limited.limiter == nil || limited.maxRetries != 0 {
		t.Errorf("QPS 5 gave limiter %v, MaxRetries -1 gave %d retries", limited.limiter, limited.maxRetries)
	}
	if _, err := New(&Config{Host: "https://x", CAData: []byte("not pem")}); err == nil {
		t.Error("CA data without a certificate was accepted")
	}
	// A caller's TLS config is cloned, not shared with the transport.
	own := &tls.Config{ServerName: "api"}
	c, _ = New(&Config{Host: "https://x", TLSClientConfig: own})
	if c.transport.TLSClientConfig == own || c.transport.TLSClientConfig.ServerName != "api" {
		t.Error("TLSClientConfig was not cloned")
	}
}
