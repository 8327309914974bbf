package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"sync"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/clusterclock"
	"kplane/pkg/debug"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/leaderelection"
	"kplane/pkg/scheduler/framework"
	"kplane/pkg/scheduler/plugins"
)

// Scheduler places pending pods on nodes. Build one with New and call Run
// once.
type Scheduler struct {
	opts Options
	// log is the scheduler's own logger; base the one handed to the
	// client, informers, events and leader election.
	log   *slog.Logger
	base  *slog.Logger
	clock clock.Clock
	// virtual is clock when it is the cluster clock (Options.VirtualClock);
	// Run makes it follow the cluster's offset.
	virtual  *clock.Virtual
	client   *client.Client
	recorder *events.Recorder

	// podFactory lists and watches pods that are not finished (upstream's
	// field selector status.phase!=Succeeded,status.phase!=Failed);
	// factory watches everything else the scheduler reads: nodes,
	// PersistentVolumeClaims and PersistentVolumes. Two factories because
	// a factory's list tweak applies to all its informers.
	podFactory *informer.SharedInformerFactory
	factory    *informer.SharedInformerFactory
	podLister  *informer.Lister[*api.Pod]
	handlers   []informer.ResourceEventHandlerRegistration

	queue   *SchedulingQueue
	cache   *Cache
	profile *framework.Profile

	// nextStartNodeIndex is where the next cycle's search for feasible
	// nodes starts, so that with PercentageOfNodesToScore the nodes take
	// turns being looked at. Only the scheduling loop touches it and rand.
	nextStartNodeIndex int
	rand               *rand.Rand

	// apiSlots bounds the bindings and status updates in flight; apiCalls
	// lets shutdown wait for them.
	apiSlots chan struct{}
	apiCalls sync.WaitGroup

	// identity is the holderIdentity in leader election; server, when
	// BindAddress is set, serves health, metrics and the debug API.
	identity string
	server   *debug.Server
}

// Run builds a scheduler from opts and runs it until ctx ends.
func Run(ctx context.Context, opts Options) error {
	s, err := New(opts)
	if err != nil {
		return err
	}
	return s.Run(ctx)
}

// New checks opts, connects a client (without contacting the apiserver
// yet) and wires informers, queue, cache and plugins together.
func New(opts Options) (*Scheduler, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("scheduler options: %w", err)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	// The client, informers and leader election add their own component
	// attribute; the scheduler's own lines say component=scheduler.
	logger = logger.With("schedulerName", opts.SchedulerName)
	clk, virtual := clock.ForComponent(opts.Clock, opts.VirtualClock)
	cfg, err := client.ConfigFromKubeconfig(opts.Kubeconfig, "")
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	cfg.UserAgent = "kplane-scheduler/" + opts.SchedulerName
	cfg.Logger = logger
	cfg.QPS, cfg.Burst = opts.KubeAPIQPS, opts.KubeAPIBurst
	// Each binding (and every other write) goes into the debug journal,
	// with the profile's name as its actor.
	cfg.OnWrite = opts.Journal.WriteHook(opts.SchedulerName, nil)
	c, err := client.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	s := &Scheduler{
		opts:     opts,
		log:      logger.With("component", "scheduler"),
		base:     logger,
		clock:    clk,
		virtual:  virtual,
		client:   c,
		queue:    NewSchedulingQueue(clk, opts.PodInitialBackoff, opts.PodMaxBackoff, opts.PodMaxInUnschedulablePodsDuration),
		cache:    NewCache(),
		rand:     rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		apiSlots: make(chan struct{}, opts.ParallelBinds),
		identity: leaderelection.NewIdentity(),
	}
	factoryOpts := informer.ComponentOptions(logger, clk, opts.Journal, opts.InformerFIFO, opts.TraceInformers)
	s.podFactory = informer.NewSharedInformerFactory(c, 0, append(factoryOpts,
		informer.WithTweakListOptions(func(o *client.ListOptions) {
			o.FieldSelector = "status.phase!=" + string(api.PodSucceeded) + ",status.phase!=" + string(api.PodFailed)
		}))...)
	s.factory = informer.NewSharedInformerFactory(c, 0, factoryOpts...)
	pods, nodes := s.podFactory.Pods(), s.factory.Nodes()
	claims, volumes, classes := s.factory.PersistentVolumeClaims(), s.factory.PersistentVolumes(), s.factory.StorageClasses()
	s.podLister = pods.Lister()
	s.profile = plugins.DefaultProfile(claims.Lister(), volumes.Lister(), classes.Lister(), c)
	s.handlers, err = s.addEventHandlers(pods.Informer(), nodes.Informer(), claims.Informer(), volumes.Informer(), classes.Informer())
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	if opts.BindAddress != "" {
		// The debug API takes the cluster's tokens, checked by the apiserver.
		mux := debug.ComponentMux(opts.Journal, debug.TokenReviewAuthenticator(c), nil)
		if s.server, err = debug.Listen("--bind-address", opts.BindAddress, mux); err != nil {
			return nil, fmt.Errorf("scheduler: %w", err)
		}
	}
	return s, nil
}

// Run starts the informers, waits until the cache holds the cluster, and
// schedules until ctx ends — or, with leader election, while it leads. It
// returns nil after a clean shutdown (bindings in flight finished, events
// flushed, the Lease released) and an error if the caches never synced or
// leadership was lost.
func (s *Scheduler) Run(ctx context.Context) error {
	defer s.client.Close()
	// On the cluster clock, every timer must start from the cluster's time.
	stopFollowing, err := clusterclock.Follow(ctx, s.client, s.virtual, s.base)
	if err != nil {
		return fmt.Errorf("scheduler: %w", err)
	}
	defer stopFollowing()
	if s.server != nil {
		s.log.Info("serving health, metrics and the debug API", "address", s.server.URL())
		defer s.server.Serve(s.log)()
		identity := ""
		if s.opts.LeaderElect {
			identity = s.identity
		}
		if err := debug.Announce(s.opts.DebugEndpointFile, s.opts.DebugComponent, s.server.URL(), identity); err != nil {
			return fmt.Errorf("scheduler: %w", err)
		}
	}
	s.recorder = events.NewRecorder(s.client, api.EventSource{Component: s.opts.SchedulerName}, s.base, events.WithClock(s.clock),
		// As upstream's scheduler: events.k8s.io/v1 events, repeats in a series.
		events.WithEventsV1(0))
	defer s.recorder.Shutdown() // flushes the events still buffered

	s.podFactory.Start(ctx)
	s.factory.Start(ctx)
	defer s.factory.Shutdown()
	defer s.podFactory.Shutdown()
	synced := []func() bool{}
	for _, reg := range s.handlers {
		synced = append(synced, reg.HasSynced)
	}
	if !informer.WaitForCacheSync(ctx, synced...) {
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("scheduler: informer caches did not sync")
	}
	s.log.Info("caches synced", "nodes", s.cache.NodeCount())

	if !s.opts.LeaderElect {
		s.scheduleUntilDone(ctx)
		return nil
	}
	return s.runWithLeaderElection(ctx)
}

// runWithLeaderElection schedules only while this process holds the
// Lease, as kube-scheduler --leader-elect does.
func (s *Scheduler) runWithLeaderElection(ctx context.Context) error {
	le, err := leaderelection.New(leaderelection.Config{
		Leases:          s.client.Leases(s.opts.LeaderElectResourceNamespace),
		Namespace:       s.opts.LeaderElectResourceNamespace,
		Name:            s.opts.LeaderElectResourceName,
		Identity:        s.identity,
		LeaseDuration:   s.opts.LeaseDuration,
		RenewDeadline:   s.opts.RenewDeadline,
		RetryPeriod:     s.opts.RetryPeriod,
		ReleaseOnCancel: true,
		Clock:           s.clock,
		Logger:          s.base,
		Journal:         s.opts.Journal,
		Callbacks: leaderelection.Callbacks{
			OnStartedLeading: func(leadingCtx context.Context) {
				s.log.Info("started leading; scheduling pods")
				s.scheduleUntilDone(leadingCtx)
			},
		},
	})
	if err != nil {
		return fmt.Errorf("scheduler: %w", err)
	}
	s.opts.Journal.RegisterLeader(le)
	le.Run(ctx)
	if ctx.Err() == nil {
		// Upstream exits here so that a fresh process starts clean; the
		// caller (cmd/scheduler) does the same by returning the error.
		return errors.New("scheduler: leader election lost")
	}
	return nil
}

// scheduleUntilDone runs the queue's flush loops and the scheduling loop
// until ctx ends, then waits for the API calls in flight.
func (s *Scheduler) scheduleUntilDone(ctx context.Context) {
	var loops sync.WaitGroup
	loops.Go(func() { s.queue.Run(ctx) }) // closes the queue when ctx ends, waking Pop
	for {
		qp, ok := s.queue.Pop()
		if !ok {
			break
		}
		s.scheduleOne(ctx, qp)
	}
	loops.Wait()
	s.apiCalls.Wait()
}

// v reports whether the verbosity is at least level (--v).
func (s *Scheduler) v(level int) bool { return s.opts.Verbosity >= level }

// goAPICall runs fn in the bounded pool of API calls, waiting for a free
// slot first. The waiting is deliberate back-pressure: a scheduling loop
// that outruns the apiserver would only pile up assumed pods.
func (s *Scheduler) goAPICall(fn func()) {
	s.apiSlots <- struct{}{}
	s.apiCalls.Go(func() {
		defer func() { <-s.apiSlots }()
		fn()
	})
}
