// Command website-controller is a small, complete custom controller built
// on kplane's client and informers: it reconciles each Website
// (examples.kplane.dev/v1alpha1, crd.yaml) into a Deployment and a Service
// it owns, and reports in the Website's status how many replicas are ready.
//
// Run it against a cluster started with `ctl up` (README.md):
//
//	kubectl apply -f examples/controller/crd.yaml
//	go run ./examples/controller --kubeconfig .kplane/kubeconfig
//	kubectl apply -f examples/controller/website.yaml
//
// With --debug-data-dir .kplane it also serves kplane's debug API, so that
// `ctl queues`, `ctl trace website/hello` and `ctl why website/hello` see
// it (debugapi.go).
//
// Reading order: api/types.go (the Website) → controller.go (informers,
// handlers, queue, sync) → objects.go and status.go (what sync computes) →
// controller_test.go (how it is tested against the fake API). The walk
// through all of it is docs/write-a-controller.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/debug"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/leaderelection"
)

// RunOptions are the command's flags.
type RunOptions struct {
	// Kubeconfig is the kubeconfig file to reach the apiserver with.
	Kubeconfig string
	// LeaderElect makes this copy take a Lease before it works, so that of
	// several copies exactly one reconciles at a time.
	LeaderElect bool
	// LeaseNamespace is where the Lease named website-controller lives.
	LeaseNamespace string
	// Workers is how many Websites are synced in parallel.
	Workers int
	// DebugDataDir is the cluster's data directory (`ctl up`'s .kplane).
	// When set, the controller serves kplane's debug API and announces it
	// there, so that `ctl queues`, `ctl trace` and `ctl why` see it
	// (debugapi.go). Empty turns the debug API off.
	DebugDataDir string
	// DebugAddress is where the debug API listens: a loopback host:port,
	// port 0 for one the kernel picks.
	DebugAddress string
}

// DefaultRunOptions returns the flags' defaults.
func DefaultRunOptions() RunOptions {
	return RunOptions{
		Kubeconfig:     os.Getenv("KUBECONFIG"),
		LeaderElect:    false,
		LeaseNamespace: "default",
		Workers:        2,
		DebugAddress:   "127.0.0.1:0",
	}
}

// AddFlags binds the options to fs, each with its default in its help.
func (o *RunOptions) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "kubeconfig file of the cluster (default $KUBECONFIG; `ctl up` writes .kplane/kubeconfig)")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "hold the Lease website-controller before reconciling, so one of several copies works at a time")
	fs.StringVar(&o.LeaseNamespace, "leader-elect-namespace", o.LeaseNamespace, "namespace of the leader-election Lease")
	fs.IntVar(&o.Workers, "workers", o.Workers, "how many Websites are synced in parallel")
	fs.StringVar(&o.DebugDataDir, "debug-data-dir", o.DebugDataDir, "the cluster's data directory (ctl up's .kplane): serve kplane's debug API and announce it in DIR/debug/website-controller.json, where ctl queues, ctl trace and ctl why find it (default: off)")
	fs.StringVar(&o.DebugAddress, "debug-address", o.DebugAddress, "loopback host:port of the debug API, with --debug-data-dir (port 0: any free port)")
}

// Validate reports the first option that cannot work.
func (o RunOptions) Validate() error {
	switch {
	case o.Kubeconfig == "":
		return errors.New("--kubeconfig is required (or set $KUBECONFIG)")
	case o.Workers < 1:
		return fmt.Errorf("--workers must be at least 1, not %d", o.Workers)
	case o.LeaderElect && o.LeaseNamespace == "":
		return errors.New("--leader-elect-namespace must not be empty")
	case o.DebugDataDir != "":
		return debug.CheckLoopback("--debug-address", o.DebugAddress)
	}
	return nil
}

func main() {
	opts := DefaultRunOptions()
	opts.AddFlags(flag.CommandLine)
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil)).With("component", "website-controller")
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, opts, logger); err != nil {
		logger.Error("website-controller failed", "err", err)
		os.Exit(1)
	}
}

// Run connects to the cluster and reconciles Websites until ctx ends. With
// LeaderElect it first waits to hold the Lease, and stops reconciling as
// soon as it loses it.
func Run(ctx context.Context, opts RunOptions, logger *slog.Logger) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	cfg, err := client.ConfigFromKubeconfig(opts.Kubeconfig, "")
	if err != nil {
		return fmt.Errorf("read kubeconfig: %w", err)
	}
	cfg.UserAgent = "website-controller"
	debugging := newDebugAPI(opts)
	// Each write the controller makes goes into its debug journal, with
	// the resourceVersion it produced; a worker names the controller as
	// the write's actor (controllerutil.ProcessNext).
	cfg.OnWrite = debugging.journal.WriteHook(debugComponent, nil)
	c, err := client.New(cfg)
	if err != nil {
		return fmt.Errorf("connect to the apiserver: %w", err)
	}
	defer c.Close()
	recorder := events.NewRecorder(c, api.EventSource{Component: controllerName + "-controller"}, logger)
	defer recorder.Shutdown()
	identity := ""
	if opts.LeaderElect {
		identity = leaderelection.NewIdentity()
	}
	stopDebug, err := debugging.serve(opts, c, identity, logger)
	if err != nil {
		return err
	}
	defer stopDebug()

	reconcile := func(ctx context.Context) {
		// WithJournal records the informers' stages (list, watch, delta,
		// store, handler) in the debug journal, and hands the journal to
		// the controller's workqueue and decision log (nil: off).
		informers := informer.NewSharedInformerFactory(c, 0, informer.WithLogger(logger), informer.WithJournal(debugging.journal))
		defer informers.Shutdown()
		ctrl, err := NewController(c, informers, recorder, Options{Logger: logger})
		if err != nil {
			logger.Error("build the controller", "err", err)
			return
		}
		// Start after NewController has asked for every informer it needs.
		informers.Start(ctx)
		ctrl.Run(ctx, opts.Workers)
	}
	if !opts.LeaderElect {
		reconcile(ctx)
		return nil
	}
	elector, err := leaderelection.New(leaderelection.Config{
		Leases:          c.Leases(opts.LeaseNamespace),
		Namespace:       opts.LeaseNamespace,
		Name:            "website-controller",
		Identity:        identity,
		ReleaseOnCancel: true,
		Logger:          logger,
		Callbacks: leaderelection.Callbacks{
			OnStartedLeading: reconcile,
			OnNewLeader:      func(identity string) { logger.Info("leader is", "identity", identity) },
		},
	})
	if err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	debugging.journal.RegisterLeader(elector)
	elector.Run(ctx)
	return nil
}
