package framework

import (
	"log/slog"
	"os"
	"testing"

	"kplane/pkg/auth"
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

// TokenFor returns a bearer token that authenticates as user, adding the
// user to the apiserver's token file if it is new (the server reads the
// same in-memory file, so the token works at once).
func (a *APIServer) TokenFor(t testing.TB, user auth.User) string {
	t.Helper()
	token, err := a.Tokens().EnsureUser(user)
	if err != nil {
		t.Fatalf("token for %s: %v", user.Name, err)
	}
	return token
}

// ClientAs returns an API client that authenticates as user (see TokenFor
// and NewClient); authorization then decides what it may do.
func (a *APIServer) ClientAs(t testing.TB, user auth.User, configure func(*client.Config)) *client.Client {
	t.Helper()
	token := a.TokenFor(t, user)
	return a.Client(t, func(cfg *client.Config) {
		cfg.Token = token
		if configure != nil {
			configure(cfg)
		}
	})
}
