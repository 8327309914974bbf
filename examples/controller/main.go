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
}

// DefaultRunOptions returns the flags' defaults.
func DefaultRunOptions() RunOptions {
	return RunOptions{
		Kubeconfig:     os.Getenv("KUBECONFIG"),
		LeaderElect:    false,
		LeaseNamespace: "default",
		Workers:        2,
	}
}

// AddFlags binds the options to fs, each with its default in its help.
func (o *RunOptions) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "kubeconfig file of the cluster (default $KUBECONFIG; `ctl up` writes .kplane/kubeconfig)")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "hold the Lease website-controller before reconciling, so one of several copies works at a time")
	fs.StringVar(&o.LeaseNamespace, "leader-elect-namespace", o.LeaseNamespace, "namespace of the leader-election Lease")
	fs.IntVar(&o.Workers, "workers", o.Workers, "how many Websites are synced in parallel")
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
	c, err := client.New(cfg)
	if err != nil {
		return fmt.Errorf("connect to the apiserver: %w", err)
	}
	defer c.Close()
	recorder := events.NewRecorder(c, api.EventSource{Component: controllerName + "-controller"}, logger)
	defer recorder.Shutdown()

	reconcile := func(ctx context.Context) {
		informers := informer.NewSharedInformerFactory(c, 0, informer.WithLogger(logger))
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
	elector.Run(ctx)
	return nil
}
