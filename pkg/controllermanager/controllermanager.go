// Package controllermanager is kplane's kube-controller-manager: one process
// that runs many controllers over one client and one shared informer
// factory, so each resource is listed and watched once however many
// controllers care about it. With --leader-elect several managers may run;
// only the holder of the kube-system/kube-controller-manager Lease runs the
// controllers, and the others keep their caches warm to take over.
//
// The controllers it can run are listed in controllers.go; see
// docs/controllers.md for the flow from informer event to API write.
package controllermanager

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/clusterclock"
	"kplane/pkg/debug"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/leaderelection"
)

// ControllerManager runs the selected controllers. Build one with New and
// call Run once.
type ControllerManager struct {
	opts Options
	// log is the manager's own logger (component=controller-manager);
	// base is handed to the client, informers, recorders, controllers and
	// leader election, which add their own attributes.
	log   *slog.Logger
	base  *slog.Logger
	clock clock.Clock
	// virtual is clock when it is the cluster clock (Options.VirtualClock);
	// Run makes it follow the cluster's offset.
	virtual  *clock.Virtual
	identity string

	client *client.Client
	// rootCA is the CA of the kubeconfig, for root-ca-cert-publisher.
	rootCA    []byte
	informers *informer.SharedInformerFactory
	// recorders are one per controller, so each controller's Events carry
	// its own source component; Run flushes them on the way out.
	recorders   []*events.Recorder
	controllers []managed

	// server serves /metrics, /healthz and the debug API on --bind-address.
	server *debug.Server
}

// managed is one controller the manager built.
type managed struct {
	name       string
	workers    int
	controller Controller
}

// Run builds a controller-manager from opts and runs it until ctx ends.
func Run(ctx context.Context, opts Options) error {
	m, err := New(opts)
	if err != nil {
		return err
	}
	return m.Run(ctx)
}

// New checks opts, connects a client (without contacting the apiserver
// yet), builds every selected controller — each registers the informers it
// needs on the shared factory — and binds the metrics address. Call Run
// next: it releases all of this when it returns.
func New(opts Options) (*ControllerManager, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("%s options: %w", opts.name(), err)
	}
	base := opts.Logger
	if base == nil {
		level := slog.LevelInfo
		if opts.Verbosity >= 4 {
			level = slog.LevelDebug
		}
		base = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	}
	clk, virtual := clock.ForComponent(opts.Clock, opts.VirtualClock)
	identity := opts.Identity
	if identity == "" {
		identity = leaderelection.NewIdentity()
	}
	m := &ControllerManager{opts: opts, log: base.With("component", opts.name()), base: base, clock: clk, virtual: virtual, identity: identity}

	cfg, err := client.ConfigFromKubeconfig(opts.Kubeconfig, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opts.name(), err)
	}
	cfg.UserAgent = "kplane-" + opts.name()
	cfg.Logger = base
	cfg.QPS, cfg.Burst = opts.KubeAPIQPS, opts.KubeAPIBurst
	// Each write goes into the debug journal; a controller's worker names
	// the controller as its actor (controllerutil.ProcessNext).
	cfg.OnWrite = opts.Journal.WriteHook(opts.name(), nil)
	m.rootCA = cfg.CAData
	if m.client, err = client.New(cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", opts.name(), err)
	}
	m.informers = informer.NewSharedInformerFactory(m.client, 0,
		informer.ComponentOptions(base, clk, opts.Journal, opts.InformerFIFO, opts.TraceInformers)...)

	if opts.Registry == nil {
		for _, entry := range cloudControllersNamed(opts.Controllers) {
			m.log.Info("controller runs in the cloud-controller-manager, as upstream's do with an external cloud provider; ignored here",
				"controller", entry, "cloudControllerManagerController", CloudControllers[strings.TrimPrefix(entry, "-")])
		}
	}
	if err := m.buildControllers(); err != nil {
		m.release()
		return nil, err
	}
	// The debug API takes the cluster's tokens, checked by the apiserver.
	mux := debug.ComponentMux(opts.Journal, debug.TokenReviewAuthenticator(m.client), nil)
	if m.server, err = debug.Listen("--bind-address", opts.BindAddress, mux); err != nil {
		m.release()
		return nil, fmt.Errorf("%s: %w", opts.name(), err)
	}
	return m, nil
}

// buildControllers calls New of every selected controller, in registry
// order, each with a recorder of its own.
func (m *ControllerManager) buildControllers() error {
	clients := &controllerClients{root: m.client, perSA: m.opts.UseServiceAccountCredentials, agent: "kplane-" + m.opts.name(),
		clock: m.clock, log: m.log, sources: map[string]*serviceAccountTokenSource{}}
	for _, d := range enabledControllers(m.opts.Controllers, m.opts.registry()) {
		source := d.EventSource
		if source == "" {
			source = d.Name + "-controller"
		}
		// The controller's writes and its Events go out under its own
		// identity; the shared informers stay on the manager's.
		c := clients.clientFor(d.ServiceAccount)
		recorder := events.NewRecorder(c, api.EventSource{Component: source}, m.base, events.WithClock(m.clock))
		m.recorders = append(m.recorders, recorder)
		ctrl, err := d.New(ControllerContext{
			Client: c, Informers: m.informers, Recorder: recorder,
			Logger: m.base, Clock: m.clock, Options: m.opts, RootCA: m.rootCA,
			ClientFor: clients.clientFor,
		})
		if err != nil {
			return fmt.Errorf("%s: build %s controller: %w", m.opts.name(), d.Name, err)
		}
		if ctrl == nil {
			continue // off for want of what it needs (New logged why)
		}
		m.controllers = append(m.controllers, managed{name: d.Name, workers: m.opts.workers(d), controller: ctrl})
	}
	return nil
}

// release flushes the recorders and closes the client: the end of Run, and
// the clean-up of a New that failed half-way.
func (m *ControllerManager) release() {
	for _, r := range m.recorders {
		r.Shutdown()
	}
	m.client.Close()
}

// Addr returns the address the metrics server is bound to, with the port
// the kernel chose when --bind-address asked for port 0.
func (m *ControllerManager) Addr() string { return m.server.Addr() }

// Identity returns this manager's holderIdentity in leader election.
func (m *ControllerManager) Identity() string { return m.identity }

// leaderIdentity is the identity announced with the debug endpoint: the
// holderIdentity when this manager takes part in leader election.
func (m *ControllerManager) leaderIdentity() string {
	if !m.opts.LeaderElect {
		return ""
	}
	return m.identity
}

// Run serves /metrics and /healthz, starts the shared informers and runs
// the controllers until ctx ends — or, with leader election, while this
// manager leads. It returns nil after a clean shutdown (controllers
// stopped, Events flushed, the Lease released, informers stopped) and an
// error when leadership was lost: like upstream, the process then exits,
// so that it restarts clean rather than with controllers half-stopped.
func (m *ControllerManager) Run(ctx context.Context) error {
	defer m.release()
	m.log.Info("serving metrics and health", "address", "http://"+m.Addr(), "paths", "/metrics /healthz")
	stopServing := m.server.Serve(m.log)
	defer stopServing()
	if err := debug.Announce(m.opts.DebugEndpointFile, m.opts.DebugComponent, "http://"+m.Addr(), m.leaderIdentity()); err != nil {
		return fmt.Errorf("%s: %w", m.opts.name(), err)
	}

	// On the cluster clock, every timer must start from the cluster's time.
	stopFollowing, err := clusterclock.Follow(ctx, m.client, m.virtual, m.base)
	if err != nil {
		return fmt.Errorf("%s: %w", m.opts.name(), err)
	}
	defer stopFollowing()

	// Informers start before the election, so a standby's caches are
	// full when it wins. (Upstream starts them only once it leads.)
	m.informers.Start(ctx)
	defer m.informers.Shutdown()

	if len(m.controllers) == 0 {
		m.log.Warn("no controllers selected", "controllers", m.opts.Controllers)
	}
	if !m.opts.LeaderElect {
		m.runControllers(ctx)
		return nil
	}
	return m.runWithLeaderElection(ctx)
}

// runWithLeaderElection runs the controllers only while this process holds
// the Lease, as kube-controller-manager --leader-elect does.
func (m *ControllerManager) runWithLeaderElection(ctx context.Context) error {
	le, err := leaderelection.New(leaderelection.Config{
		Leases:          m.client.Leases(m.opts.LeaderElectResourceNamespace),
		Namespace:       m.opts.LeaderElectResourceNamespace,
		Name:            m.opts.LeaderElectResourceName,
		Identity:        m.identity,
		LeaseDuration:   m.opts.LeaseDuration,
		RenewDeadline:   m.opts.RenewDeadline,
		RetryPeriod:     m.opts.RetryPeriod,
		ReleaseOnCancel: true, // safe: Run waits for the controllers to stop first
		Clock:           m.clock,
		Logger:          m.base,
		Journal:         m.opts.Journal,
		Callbacks: leaderelection.Callbacks{
			OnStartedLeading: func(leadingCtx context.Context) {
				m.log.Info("started leading; starting controllers", "identity", m.identity)
				m.runControllers(leadingCtx)
			},
		},
	})
	if err != nil {
		return fmt.Errorf("%s: %w", m.opts.name(), err)
	}
	m.opts.Journal.RegisterLeader(le)
	m.log.Info("waiting to lead", "lease", m.opts.LeaderElectResourceNamespace+"/"+m.opts.LeaderElectResourceName, "identity", m.identity)
	le.Run(ctx)
	if ctx.Err() == nil {
		return fmt.Errorf("%s: leader election lost", m.opts.name())
	}
	return nil
}

// runControllers runs every controller in its own goroutine and returns
// once ctx has ended and all of them have returned.
func (m *ControllerManager) runControllers(ctx context.Context) {
	var wg sync.WaitGroup
	for _, mc := range m.controllers {
		m.log.Info("started controller", "controller", mc.name, "workers", mc.workers)
		wg.Go(func() {
			mc.controller.Run(ctx, mc.workers)
			m.log.Info("stopped controller", "controller", mc.name)
		})
	}
	wg.Wait()
}
