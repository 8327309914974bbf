package ui

import (
	"fmt"
	"log/slog"
	"net"
	"strconv"

	"kplane/pkg/client"
	"kplane/pkg/cluster"
)

// DefaultPort is where `ctl ui` listens unless told otherwise: easy to
// remember, and clear of the apiserver's 6443 and kubectl proxy's 8001.
const DefaultPort = 7777

// Options configure the web view's server.
type Options struct {
	// Address is the IP the server listens on; it must be a loopback
	// address (127.0.0.1 by default), because the page shows everything
	// in the cluster.
	Address string
	// Port is the TCP port; 0 picks a free one.
	Port int
	// Client reaches the cluster's API; the server lists and watches
	// through it with the admin's credentials.
	Client *client.Client
	// AdminToken is the cluster administrator's bearer token: requests
	// carrying it are admitted, as are those with a session cookie.
	AdminToken string
	// DataDir is the cluster's data directory, where its components
	// announce their debug APIs (pkg/debug): the panels on the machinery
	// — leases, queues, trace, why, etcd, faults — read them through
	// debug.Connect(DataDir), as ctl's teaching verbs do.
	DataDir string
	// Logger receives the server's and its informers' logs.
	Logger *slog.Logger
}

// DefaultOptions returns Options listening on 127.0.0.1:DefaultPort.
func DefaultOptions() Options {
	return Options{Address: "127.0.0.1", Port: DefaultPort, DataDir: cluster.DefaultOptions().DataDir, Logger: slog.New(slog.DiscardHandler)}
}

// Validate refuses a non-loopback address, a port out of range, and
// missing credentials or client.
func (o Options) Validate() error {
	if err := checkLoopback(o.Address); err != nil {
		return err
	}
	if o.Port < 0 || o.Port > 65535 {
		return fmt.Errorf("--port %d: a port is 0 (any free port) to 65535", o.Port)
	}
	if o.Client == nil {
		return fmt.Errorf("ui: no API client")
	}
	if o.AdminToken == "" {
		return fmt.Errorf("ui: the kubeconfig's user has no bearer token; the web view admits the cluster admin's token only (use the kubeconfig `ctl up` wrote)")
	}
	return nil
}

// ListenAddress is host:port for net.Listen.
func (o Options) ListenAddress() string {
	return net.JoinHostPort(o.Address, strconv.Itoa(o.Port))
}

// checkLoopback accepts "localhost" and loopback IPs (127.0.0.0/8, ::1):
// the web view shows every Secret's name and every object's YAML, so it is
// never served beyond this machine.
func checkLoopback(address string) error {
	if address == "localhost" {
		return nil
	}
	ip := net.ParseIP(address)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--address %q: the web view listens on loopback only (127.0.0.1, ::1 or localhost), because it shows the whole cluster with the admin's rights", address)
	}
	return nil
}
