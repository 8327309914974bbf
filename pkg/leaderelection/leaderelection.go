package leaderelection

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/debug"
)

// LeaderElector is one candidate in one election. Create it with New and
// call Run once.
type LeaderElector struct {
	config Config
	clock  clock.Clock
	log    *slog.Logger

	// mu guards the fields below, which IsLeader and GetLeader read from
	// other goroutines while the election loop writes them.
	mu sync.Mutex
	// observedLease is the last version of the Lease this candidate read or
	// wrote; its resourceVersion is what the next update is conditioned on.
	observedLease *api.Lease
	// observedRecord is the holder/timing part of observedLease, and
	// observedTime is when (on our clock) it last changed. Expiry is judged
	// from observedTime, never from the remote renewTime, so clock skew
	// between machines cannot make a live lease look expired.
	observedRecord leaseRecord
	observedTime   time.Time
	// leading is true from a successful acquire until leadership ends.
	leading bool
	// renewedAt is when the last successful acquire or renew was sent. The
	// server applied it no earlier, so no standby can count expiry from an
	// earlier moment: leading until renewedAt+RenewDeadline is safe.
	renewedAt time.Time

	// reportedLeader is the last identity passed to OnNewLeader; only the
	// election loop touches it.
	reportedLeader string
}

// New checks cfg, fills in its defaults and returns a candidate.
func New(cfg Config) (*LeaderElector, error) {
	cfg, err := cfg.complete()
	if err != nil {
		return nil, err
	}
	le := &LeaderElector{config: cfg, clock: cfg.Clock}
	le.log = cfg.Logger.With("component", "leaderelection", "lease", le.leaseName(), "identity", cfg.Identity)
	return le, nil
}

// RunOrDie builds a LeaderElector from cfg and runs it, panicking if cfg is
// invalid (a programming error in the component's wiring).
func RunOrDie(ctx context.Context, cfg Config) {
	le, err := New(cfg)
	if err != nil {
		panic(err)
	}
	le.Run(ctx)
}

// Identity returns this candidate's holderIdentity.
func (le *LeaderElector) Identity() string { return le.config.Identity }

// IsLeader reports whether this candidate currently leads: it won the Lease
// and its last successful renewal is less than RenewDeadline old.
func (le *LeaderElector) IsLeader() bool {
	le.mu.Lock()
	defer le.mu.Unlock()
	return le.leadingLocked(le.clock.Now())
}

// GetLeader returns the holderIdentity this candidate last observed on the
// Lease ("" if none yet, or after a release). It is informational: another
// candidate may have taken over since.
func (le *LeaderElector) GetLeader() string {
	le.mu.Lock()
	defer le.mu.Unlock()
	return le.observedRecord.holder
}

// Run takes part in the election until ctx is done or leadership is lost.
// It blocks while trying to acquire the Lease (every RetryPeriod, jittered);
// once it holds it, it starts OnStartedLeading and renews every RetryPeriod.
// Leading ends when renewing has failed for RenewDeadline, when another
// holder is seen on the Lease, or when ctx is done; Run then cancels the
// leading context, waits for OnStartedLeading to return, releases the Lease
// if ctx was cancelled and ReleaseOnCancel is set, calls OnStoppedLeading
// and returns. Call Run at most once per LeaderElector.
func (le *LeaderElector) Run(ctx context.Context) {
	if !le.acquire(ctx) {
		return
	}
	leadingCtx, stopLeading := context.WithCancel(ctx)
	var work sync.WaitGroup
	if start := le.config.Callbacks.OnStartedLeading; start != nil {
		work.Go(func() { start(leadingCtx) })
	}

	cancelled := le.renew(ctx)

	le.mu.Lock()
	le.leading = false
	le.mu.Unlock()
	le.log.Info("stopped leading", "cancelled", cancelled)
	if cancelled {
		le.recordEvent("stopped leading: shutting down")
	} else {
		le.recordEvent("lost the lease: stopped leading")
	}
	stopLeading()
	// The guarded work must have stopped before the Lease is handed over,
	// or a standby could start while it is still running.
	work.Wait()
	if cancelled && le.config.ReleaseOnCancel {
		le.release()
	}
	if stopped := le.config.Callbacks.OnStoppedLeading; stopped != nil {
		stopped()
	}
}

// acquire tries to become leader every RetryPeriod (jittered) until it
// succeeds (true) or ctx is done (false).
func (le *LeaderElector) acquire(ctx context.Context) bool {
	le.log.Info("attempting to acquire leader lease")
	for {
		attemptCtx, cancel := le.contextWithin(ctx, le.config.RenewDeadline)
		acquired := le.tryAcquireOrRenew(attemptCtx)
		cancel()
		le.maybeReportNewLeader()
		if acquired {
			le.log.Info("successfully acquired lease")
			le.recordEvent("became leader")
			return true
		}
		if !le.sleep(ctx, jitter(le.config.RetryPeriod, JitterFactor)) {
			return false
		}
	}
}

// renew keeps the Lease until ctx is done (it returns true) or leadership
// is lost (false): renewing failed until RenewDeadline after the last
// success, or another candidate is seen holding the Lease.
func (le *LeaderElector) renew(ctx context.Context) (cancelled bool) {
	for {
		le.mu.Lock()
		deadline := le.renewedAt.Add(le.config.RenewDeadline)
		le.mu.Unlock()

		// Wake for the next renewal, or at the deadline if that is sooner.
		wait := min(le.config.RetryPeriod, deadline.Sub(le.clock.Now()))
		if !le.sleep(ctx, wait) {
			return true
		}
		if !le.clock.Now().Before(deadline) {
			le.log.Warn("failed to renew lease before the renew deadline; giving up leadership",
				"renewDeadline", le.config.RenewDeadline)
			return false
		}
		// An attempt must not outlive the deadline: a request that
		// succeeds after it would leave us renewing a lease we no longer
		// believe we hold.
		attemptCtx, cancel := le.contextUntil(ctx, deadline)
		renewed := le.tryAcquireOrRenew(attemptCtx)
		cancel()
		le.maybeReportNewLeader()
		if renewed {
			le.log.Debug("renewed lease")
			continue
		}
		if holder := le.GetLeader(); holder != le.config.Identity && le.isLeaseValid() {
			le.log.Warn("lease is now held by another candidate; giving up leadership", "holder", holder)
			return false
		}
	}
}

// maybeReportNewLeader calls OnNewLeader when the observed holder changed.
// A released lease (holder "") is not a new leader and is not reported.
func (le *LeaderElector) maybeReportNewLeader() {
	holder := le.GetLeader()
	if holder == le.reportedLeader {
		return
	}
	le.reportedLeader = holder
	if holder == "" {
		return
	}
	le.log.Info("new leader observed", "holder", holder)
	le.recordEvent("new leader observed: " + holder)
	if report := le.config.Callbacks.OnNewLeader; report != nil {
		report(holder)
	}
}

// sleep waits d on the elector's clock; it returns false if ctx ended first.
func (le *LeaderElector) sleep(ctx context.Context, d time.Duration) bool {
	if ctx.Err() != nil {
		return false
	}
	timer := le.clock.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C():
		return true
	}
}

// contextWithin returns a child of ctx cancelled d from now on the
// elector's clock.
func (le *LeaderElector) contextWithin(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return le.contextUntil(ctx, le.clock.Now().Add(d))
}

// contextUntil returns a child of ctx cancelled when the elector's clock
// reaches deadline. It uses the injected clock rather than
// context.WithDeadline so tests and "fast-forward" lessons control it.
func (le *LeaderElector) contextUntil(ctx context.Context, deadline time.Time) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	timer := le.clock.NewTimer(deadline.Sub(le.clock.Now()))
	go func() {
		defer timer.Stop()
		select {
		case <-timer.C():
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// jitter returns a duration in [d, d+maxFactor·d), as upstream's
// wait.Jitter does.
func jitter(d time.Duration, maxFactor float64) time.Duration {
	return d + time.Duration(rand.Float64()*maxFactor*float64(d))
}

// DebugState reports this election for the debug API
// (debug.LeaderSource): the Lease, who holds it as last observed, and
// whether this candidate leads now.
func (le *LeaderElector) DebugState() debug.LeaderState {
	le.mu.Lock()
	defer le.mu.Unlock()
	state := debug.LeaderState{
		Lease:         le.leaseName(),
		Identity:      le.config.Identity,
		Leader:        le.observedRecord.holder,
		IsLeader:      le.leadingLocked(le.clock.Now()),
		LeaseDuration: le.config.LeaseDuration,
	}
	if le.observedLease != nil && le.observedLease.Spec.RenewTime != nil {
		state.ObservedRenew = le.observedLease.Spec.RenewTime.Time
	}
	return state
}

// recordEvent adds an event record about this election to the journal.
func (le *LeaderElector) recordEvent(message string) {
	le.config.Journal.Add(debug.Record{
		Type:     debug.TypeEvent,
		Stage:    "leader-election",
		Actor:    le.config.Identity,
		Resource: "leases.coordination.k8s.io",
		Key:      le.leaseName(),
		Message:  message,
	})
}

// leaseName is the Lease's "namespace/name" (just "name" when the
// namespace was left to the client's scope).
func (le *LeaderElector) leaseName() string {
	if le.config.Namespace == "" {
		return le.config.Name
	}
	return le.config.Namespace + "/" + le.config.Name
}
