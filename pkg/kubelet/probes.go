package kubelet

// This file runs a container's liveness, readiness and startup probes, as
// upstream's prober workers do: one goroutine per probe per run, on the
// probe's own schedule, turning single results into a state only after
// failureThreshold failures or successThreshold successes in a row. A state
// change wakes the pod's worker, which acts on it (marks the pod ready or
// not, or kills a container whose liveness probe failed).

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/kubelet/runtime"
)

// probeKind is liveness, readiness or startup.
type probeKind string

const (
	livenessProbe  probeKind = "Liveness"
	readinessProbe probeKind = "Readiness"
	startupProbe   probeKind = "Startup"
)

// alwaysPass is the prober used when neither the run nor the runtime
// offers one: every probe passes, as an unprobed container is healthy.
type alwaysPass struct{}

func (alwaysPass) Probe(context.Context, *api.Pod, *api.Container, *api.Probe) (bool, string) {
	return true, ""
}

// proberFor picks the Prober for a run: the run itself, else the runtime,
// else alwaysPass (see runtime.Prober).
func proberFor(c runtime.Container, rt runtime.Runtime) runtime.Prober {
	if p, ok := c.(runtime.Prober); ok {
		return p
	}
	if p, ok := rt.(runtime.Prober); ok {
		return p
	}
	return alwaysPass{}
}

// runProbes is the probe state of one container run. Its flags start the
// way upstream's results do: not ready until a readiness probe passes,
// not started until a startup probe passes, alive until a liveness probe
// fails. A container without a given probe gets that probe's success.
type runProbes struct {
	ready   atomic.Bool
	started atomic.Bool
	// failed is set when a liveness or startup probe has failed
	// failureThreshold times in a row; failedKind says which.
	failed     atomic.Bool
	failedKind atomic.Value // probeKind
	// startedCh is closed when started becomes true, releasing the
	// liveness and readiness probes, which wait for it.
	startedCh   chan struct{}
	startedOnce sync.Once
	cancel      context.CancelFunc
	wg          sync.WaitGroup
}

// isReady and isStarted are safe on a nil *runProbes (a run adopted without
// probes), which reports a container that is started and ready.
func (p *runProbes) isReady() bool   { return p == nil || p.ready.Load() }
func (p *runProbes) isStarted() bool { return p == nil || p.started.Load() }

// livenessFailure reports whether a liveness or startup probe has failed,
// and which.
func (p *runProbes) livenessFailure() (probeKind, bool) {
	if p == nil || !p.failed.Load() {
		return "", false
	}
	kind, _ := p.failedKind.Load().(probeKind)
	return kind, true
}

func (p *runProbes) markStarted() {
	p.started.Store(true)
	p.startedOnce.Do(func() { close(p.startedCh) })
}

// stop ends the run's probe goroutines without waiting for them: one may
// be in the middle of a probe (see wait).
func (p *runProbes) stop() {
	if p != nil && p.cancel != nil {
		p.cancel()
	}
}

// wait returns once the probe goroutines have ended (after stop).
func (p *runProbes) wait() {
	if p != nil {
		p.wg.Wait()
	}
}

// probeTarget is everything a probe loop needs besides the probe: whom to
// ask, about what, whom to tell.
type probeTarget struct {
	prober    runtime.Prober
	pod       func() *api.Pod // the latest version of the pod
	container *api.Container
	startedAt time.Time
	// clock schedules the probes (the node's clock).
	clock clock.Clock
	// wake tells the pod worker a probe state changed.
	wake func()
	// unhealthy records an Unhealthy event for a failed probe.
	unhealthy func(kind probeKind, output string)
	// changed records a settled result that changed the run's state: the
	// results in a row and the threshold they reached (nil: not recorded).
	changed func(kind probeKind, ok bool, results, threshold int)
}

// startProbes starts the probe goroutines of a run. wasReady and
// wasStarted seed the state of a run adopted after a kubelet restart, so
// that restarting the kubelet neither flaps its pods' readiness nor runs
// startup probes again (upstream skips them for started containers too).
func startProbes(ctx context.Context, t probeTarget, wasReady, wasStarted bool) *runProbes {
	p := &runProbes{startedCh: make(chan struct{})}
	ctx, p.cancel = context.WithCancel(ctx)
	c := t.container
	if c.StartupProbe == nil || wasStarted {
		p.markStarted()
	} else {
		p.loop(ctx, t, startupProbe, c.StartupProbe)
	}
	if c.ReadinessProbe == nil || wasReady {
		p.ready.Store(true)
	}
	if c.ReadinessProbe != nil {
		p.loop(ctx, t, readinessProbe, c.ReadinessProbe)
	}
	if c.LivenessProbe != nil {
		p.loop(ctx, t, livenessProbe, c.LivenessProbe)
	}
	return p
}

// loop starts one probe's goroutine.
func (p *runProbes) loop(ctx context.Context, t probeTarget, kind probeKind, probe *api.Probe) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.run(ctx, t, kind, probe)
	}()
}

// run probes until the run ends (ctx), the startup probe succeeds, or a
// liveness or startup probe fails for good (the worker then kills the run).
func (p *runProbes) run(ctx context.Context, t probeTarget, kind probeKind, probe *api.Probe) {
	if kind != startupProbe {
		// Liveness and readiness probes wait until the container has
		// started, as upstream's do while a startup probe runs.
		select {
		case <-ctx.Done():
			return
		case <-p.startedCh:
		}
	}
	period := time.Duration(max(probe.PeriodSeconds, 1)) * time.Second
	timeout := time.Duration(max(probe.TimeoutSeconds, 1)) * time.Second
	failureThreshold, successThreshold := int(max(probe.FailureThreshold, 1)), int(max(probe.SuccessThreshold, 1))
	if kind != readinessProbe {
		successThreshold = 1 // upstream requires 1 for liveness and startup
	}

	// The first probe runs initialDelaySeconds after the container started.
	firstAt := t.startedAt.Add(time.Duration(probe.InitialDelaySeconds) * time.Second)
	timer := t.clock.NewTimer(firstAt.Sub(t.clock.Now()))
	defer timer.Stop()

	var lastResult, haveResult bool
	run := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C():
		}
		// The timeout bounds a real dial, HTTP request or exec (the
		// process runtime's), which the net and os/exec packages time on
		// the wall clock, so it is a context deadline, not a clock timer.
		probeCtx, cancel := context.WithTimeout(ctx, timeout)
		ok, output := t.prober.Probe(probeCtx, t.pod(), t.container, probe)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if !ok {
			t.unhealthy(kind, output)
		}
		if haveResult && ok == lastResult {
			run++
		} else {
			lastResult, haveResult, run = ok, true, 1
		}
		if (ok && run >= successThreshold) || (!ok && run >= failureThreshold) {
			if p.apply(kind, ok) {
				if t.changed != nil {
					threshold := failureThreshold
					if ok {
						threshold = successThreshold
					}
					t.changed(kind, ok, run, threshold)
				}
				t.wake()
			}
			switch {
			case kind == startupProbe && ok:
				return // started: liveness and readiness take over
			case kind != readinessProbe && !ok:
				return // the worker will kill this run
			}
		}
		timer.Reset(period)
	}
}

// apply records a settled result and reports whether the state changed.
func (p *runProbes) apply(kind probeKind, ok bool) bool {
	switch kind {
	case readinessProbe:
		return p.ready.Swap(ok) != ok
	case startupProbe:
		if ok {
			changed := !p.started.Load()
			p.markStarted()
			return changed
		}
	}
	if !ok {
		p.failedKind.Store(kind)
		return !p.failed.Swap(true)
	}
	return false
}
