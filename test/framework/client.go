package framework

import (
	"log/slog"
	"os"
	"testing"

	"kplane/pkg/client"
)

// NewClient returns an API client for a kubeconfig, logging nowhere unless
// configure says otherwise, and closes it when the test ends.
func NewClient(t testing.TB, kubeconfigPath string, configure func(*client.Config)) *client.Client {
	t.Helper()
	cfg, err := client.ConfigFromKubeconfig(kubeconfigPath, "")
	if err != nil {
		t.Fatalf("read kubeconfig %s: %v", kubeconfigPath, err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	if configure != nil {
		configure(cfg)
	}
	c, err := client.New(cfg)
	if err != nil {
		t.Fatalf("new client: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// Client returns an API client with the admin's credentials (see NewClient).
func (a *APIServer) Client(t testing.TB, configure func(*client.Config)) *client.Client {
	t.Helper()
	return NewClient(t, a.KubeconfigPath(), configure)
}

// Main runs a test package's tests, then removes the binaries
// BuildBinaries built for the run. Use it as the package's TestMain:
//
//	func TestMain(m *testing.M) { framework.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	RemoveBinaries()
	os.Exit(code)
}
