package ctl

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"kplane/pkg/client"
	"kplane/pkg/ui"
)

// newUICommand is `ctl ui`: the live web view (package ui).
func newUICommand(f *factory) *cobra.Command {
	opts := ui.DefaultOptions()
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Serve a live web view of the cluster on loopback",
		Long: `ui serves a web page that shows the cluster as it changes: the nodes with
their pods, the ownership graph (Deployment → ReplicaSets → Pods, Service →
EndpointSlices → Pods, custom resources), and the selected object's
conditions, Events, YAML and the diff of its last change. The server
watches the cluster with kplane's own informers and pushes each change to
the page over server-sent events.

It listens on loopback only and admits the cluster admin's bearer token or
the session cookie of a one-time login link, which it prints: open that
link in a browser on this machine. Each link works once; run ` + "`ctl ui`" + `
again for a new one. Ctrl-C stops it.`,
		Example: `  ctl ui
  ctl ui --port 0
  ctl up --ui`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.clientConfig()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runUI(ctx, cfg, opts, f.out())
		},
	}
	cmd.Flags().StringVar(&opts.Address, "address", opts.Address, "loopback address to listen on (127.0.0.1, ::1 or localhost)")
	cmd.Flags().IntVar(&opts.Port, "port", opts.Port, "port to listen on; 0 picks a free one")
	cmd.Flags().StringVar(&opts.DataDir, "data-dir", opts.DataDir, "the cluster's data directory, where its components announce their debug APIs (the panels on the machinery read them)")
	return cmd
}

// runUI serves the web view of the cluster cfg reaches until ctx ends,
// after printing where and a one-time login link to out.
func runUI(ctx context.Context, cfg *client.Config, opts ui.Options, out io.Writer) error {
	watchCfg := *cfg
	// The informers retry on their own with back-off; ctl's one quick
	// retry and request timeout are for single commands.
	watchCfg.MaxRetries, watchCfg.Timeout = 0, 0
	watchCfg.Logger = slog.New(slog.DiscardHandler)
	c, err := client.New(&watchCfg)
	if err != nil {
		return fmt.Errorf("ui: %w", err)
	}
	defer c.Close()
	opts.Client, opts.AdminToken = c, cfg.Token
	server, err := ui.New(opts)
	if err != nil {
		return err
	}
	listener, err := server.Listen()
	if err != nil {
		return err
	}
	base := "http://" + listener.Addr().String()
	fmt.Fprintf(out, "kplane ui: serving %s (loopback only; Ctrl-C stops it)\n", base)
	fmt.Fprintf(out, "Open this one-time login link: %s\n", server.LoginURL(base))
	return server.Serve(ctx, listener)
}

// upUIOptions are `ctl up --ui` and --ui-port.
type upUIOptions struct {
	enabled bool
	port    int
}

// startUpUI serves the web view beside a foreground `ctl up` of the
// cluster in dataDir, reading the admin kubeconfig the cluster wrote; the
// returned func stops it and waits.
// A failure is reported, not fatal: the cluster runs on without its view.
func startUpUI(ctx context.Context, dataDir string, port int, streams IOStreams) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		cfg, err := client.ConfigFromKubeconfig(filepath.Join(dataDir, "kubeconfig"), "")
		if err == nil {
			opts := ui.DefaultOptions()
			opts.Port, opts.DataDir = port, dataDir
			err = runUI(ctx, cfg, opts, streams.Out)
		}
		if err != nil {
			fmt.Fprintf(streams.ErrOut, "ctl up --ui: %v\n", err)
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
