package runtime

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/kubelet/runtime/simshell"
	"kplane/pkg/kubelet/simload"
)

// SimulatedName is the simulated runtime's name for --runtime.
const SimulatedName = "simulated"

func init() {
	Register(SimulatedName, func(cfg Config) (Runtime, error) {
		s := NewSimulated(cfg.Logger, cfg.Clock)
		s.shell = shellSettingsFrom(cfg)
		return s, nil
	})
}

// Simulated is the runtime in which nothing runs. Each run is a goroutine
// and a timer: it "runs" for as long as the pod's sim.kplane.io/*
// annotations say (by default forever for a long-running container, one
// second for one that runs to completion), then exits with the code they
// say. Probes and reported usage come from the same annotations. A
// simulated run costs a few hundred bytes, so one process can simulate
// hundreds of nodes. Its timers run on a clock.Clock, so under a fake
// clock a run lasts exactly as long as the clock is stepped. It is safe for
// concurrent use.
type Simulated struct {
	log   *slog.Logger
	clock clock.Clock
	// shell is what the simulated shell of exec and attach needs to know
	// about the node (simulated_shell.go).
	shell shellSettings
	// noise draws the load model's noise, a number in [0, 1)
	// (rand.Float64; tests fix it).
	noise func() float64

	// storage holds each pod's writable files by pod UID, from its first
	// container's start until ForgetPod (simulated_storage.go).
	storageMu sync.Mutex
	storage   map[string]*simshell.PodStorage
}

// NewSimulated returns a simulated runtime whose runs live on clk (nil:
// the wall clock) and that logs annotation mistakes to logger (nil:
// slog.Default()).
func NewSimulated(logger *slog.Logger, clk clock.Clock) *Simulated {
	if logger == nil {
		logger = slog.Default()
	}
	if clk == nil {
		clk = clock.Real{}
	}
	return &Simulated{log: logger, clock: clk, noise: rand.Float64, storage: map[string]*simshell.PodStorage{}}
}

// Name returns "simulated".
func (s *Simulated) Name() string { return SimulatedName }

// Start begins a simulated run. It waits out the plan's start delay (the
// container stays in ContainerCreating meanwhile), so it returns early only
// when ctx ends.
func (s *Simulated) Start(ctx context.Context, pod *api.Pod, container *api.Container, attempt int) (Container, error) {
	plan, problems := simPlanFor(pod, container, attempt)
	_, loadProblems := simload.ContainerLoad(pod.Annotations, container.Name)
	for _, p := range loadProblems {
		problems = append(problems, p.Error())
	}
	for _, p := range problems {
		s.log.Warn("ignoring simulation annotation", "pod", pod.Namespace+"/"+pod.Name, "container", container.Name, "problem", p)
	}
	if plan.startDelay > 0 {
		t := s.clock.NewTimer(plan.startDelay)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("start container %s: %w", container.Name, ctx.Err())
		case <-t.C():
		}
	}
	return newSimContainer(ctx, s, pod, container.Name, plan, s.clock.Now()), nil
}

// Adopt takes over a run a previous kubelet started: the new run keeps the
// old start time, so a container meant to run for a minute still exits a
// minute after it first started.
func (s *Simulated) Adopt(ctx context.Context, pod *api.Pod, container *api.Container, status *api.ContainerStatus) (Container, bool) {
	if status.State.Running == nil {
		return nil, false
	}
	plan, _ := simPlanFor(pod, container, int(status.RestartCount))
	return newSimContainer(ctx, s, pod, container.Name, plan, status.State.Running.StartedAt.Time), true
}

// simContainer is one simulated run. Its goroutine (live) waits for the
// first of: the plan's run time passing, a Stop, or the kubelet's context
// ending; then it records the exit and closes done.
type simContainer struct {
	name      string
	plan      simPlan
	clock     clock.Clock
	startedAt time.Time
	done      chan struct{}
	stop      chan time.Duration
	stopOnce  sync.Once
	logs      *simLog
	// shell is the node's settings for the simulated shell; session is
	// held while a client is attached to an interactive shell container,
	// and shellExit carries that shell's exit status to live.
	shell     *shellSettings
	session   sync.Mutex
	shellExit chan int
	// storage is the pod's writable storage; layer is this run's writable
	// layer in it, released when the run exits.
	storage *simshell.PodStorage
	layer   *simshell.Tree

	// noise draws the load model's noise (Simulated.noise).
	noise func() float64

	mu       sync.Mutex
	pod      *api.Pod // latest version, for usage and probes
	exitCode int
	reason   string
	// load is what the latest pod's annotations say the container uses;
	// cpu integrates it (with noise) into the CPU counter since startedAt.
	load simload.Load
	cpu  *simload.CPUCounter
}

func newSimContainer(ctx context.Context, s *Simulated, pod *api.Pod, name string, plan simPlan, startedAt time.Time) *simContainer {
	c := &simContainer{name: name, plan: plan, clock: s.clock, startedAt: startedAt, pod: pod,
		done: make(chan struct{}), stop: make(chan time.Duration, 1), logs: newSimLog(),
		shell: &s.shell, shellExit: make(chan int, 1), noise: s.noise, storage: s.podStorage(pod.UID)}
	c.layer = c.storage.NewLayer()
	c.load, _ = simload.ContainerLoad(pod.Annotations, name)
	c.cpu = simload.NewCPUCounter(startedAt, c.load.NanoCores(c.noise()))
	if plan.logs != "" {
		text := plan.logs
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		c.logs.write([]byte(text))
	}
	go c.live(ctx)
	return c
}

func (c *simContainer) live(ctx context.Context) {
	var exited <-chan time.Time
	var commandExit <-chan int
	if c.plan.runsCommand {
		commandCtx, cancel := context.WithCancel(ctx)
		defer cancel() // a stop ends the command too
		commandExit = c.runCommand(commandCtx)
	} else if !c.plan.forever {
		t := c.clock.NewTimer(c.startedAt.Add(c.plan.runFor).Sub(c.clock.Now()))
		defer t.Stop()
		exited = t.C()
	}
	select {
	case <-exited:
		c.exit(c.plan.exitCode, c.plan.reason)
	case code := <-commandExit:
		c.exit(code, ExitReason(code))
	case grace := <-c.stop:
		c.exit(c.terminate(ctx, grace))
	case code := <-c.shellExit:
		c.exit(code, ExitReason(code))
	case <-ctx.Done():
		c.exit(137, ReasonError)
	}
}

// terminate plays out a stop: a container that takes no longer than the
// grace period to exit exits 0; a slower one is killed when the grace
// period ends, with SIGKILL's 137.
func (c *simContainer) terminate(ctx context.Context, grace time.Duration) (int, string) {
	wait, code := c.plan.stopAfter, 0
	if wait > grace {
		wait, code = grace, 137
	}
	if wait > 0 {
		t := c.clock.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C():
		case <-ctx.Done():
			return 137, ReasonError
		}
	}
	return code, ExitReason(code)
}

func (c *simContainer) exit(code int, reason string) {
	c.mu.Lock()
	c.exitCode, c.reason = code, reason
	c.mu.Unlock()
	c.layer.Release() // a container's writable layer goes with the run
	c.logs.close()
	close(c.done)
}

// Done is closed when the run has exited.
func (c *simContainer) Done() <-chan struct{} { return c.done }

// ExitCode is the run's exit code, valid after Done.
func (c *simContainer) ExitCode() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exitCode
}

// Reason is Completed, Error or OOMKilled, valid after Done.
func (c *simContainer) Reason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reason
}

// Stop asks the run to exit; see terminate for how long it takes.
func (c *simContainer) Stop(grace time.Duration) {
	c.stopOnce.Do(func() { c.stop <- grace })
}

// Logs returns what the run printed: its sim.kplane.io/logs text.
func (c *simContainer) Logs(follow bool) io.ReadCloser { return c.logs.reader(follow) }

// Usage samples the load model (package simload): the CPU counter brought
// up to now, the rate it counted at, and the working set the latest pod's
// annotations say, less noise. Each sample draws the noise of the next
// stretch of the counter, so the rate metrics-server computes between two
// scrapes is the rate this sample reports.
func (c *simContainer) Usage() Usage { return c.UsageAt(c.sampleTime()) }

// sampleTime is now on the run's clock, on a whole millisecond: the unit
// of the timestamps a scraper divides the CPU counter by, so the counter
// moves only at instants a timestamp can name.
func (c *simContainer) sampleTime() time.Time { return c.clock.Now().Truncate(time.Millisecond) }

// UsageAt is Usage sampled at now, an instant of the run's clock
// (UsageSampler). A now before the previous sample adds no CPU time.
func (c *simContainer) UsageAt(now time.Time) Usage {
	select {
	case <-c.done:
		return Usage{}
	default:
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	u := Usage{Time: now, UsageCoreNanoSeconds: c.cpu.Advance(now), UsageNanoCores: c.cpu.Rate(),
		WorkingSetBytes: c.load.WorkingSetBytes(c.noise())}
	c.cpu.SetRate(now, c.load.NanoCores(c.noise()))
	return u
}

// StartedAt is when the run started.
func (c *simContainer) StartedAt() time.Time { return c.startedAt }

// ObservePod keeps the latest version of the pod for Usage and Probe. A
// changed load counts from now: `kubectl annotate` takes effect live.
func (c *simContainer) ObservePod(pod *api.Pod) {
	load, _ := simload.ContainerLoad(pod.Annotations, c.name)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pod = pod
	if load != c.load {
		c.load = load
		c.cpu.SetRate(c.sampleTime(), load.NanoCores(c.noise()))
	}
}

// Probe answers a probe from the pod's sim.kplane.io/readiness,
// liveness or startup annotation and the age of the run. A failure's output
// reads like the real prober's for the probe's handler.
func (c *simContainer) Probe(_ context.Context, pod *api.Pod, container *api.Container, probe *api.Probe) (bool, string) {
	key := SimLiveness
	switch probe {
	case container.ReadinessProbe:
		key = SimReadiness
	case container.StartupProbe:
		key = SimStartup
	}
	value, ok := simAnnotation(pod, key, container.Name)
	if !ok || simProbeResult(value, c.clock.Since(c.startedAt)) {
		return true, ""
	}
	return false, simProbeFailure(pod, probe, key, container.Name, value)
}

// simProbeFailure is the output of a failed simulated probe.
func simProbeFailure(pod *api.Pod, probe *api.Probe, key, container, value string) string {
	switch {
	case probe.HTTPGet != nil:
		return "HTTP probe failed with statuscode: 503"
	case probe.TCPSocket != nil:
		ip := pod.Status.PodIP
		if probe.TCPSocket.Host != "" {
			ip = probe.TCPSocket.Host
		}
		return fmt.Sprintf("dial tcp %s:%s: connect: connection refused", ip, probe.TCPSocket.Port.String())
	default:
		return fmt.Sprintf("simulated failure (%s%s.%s: %s)", SimAnnotationPrefix, key, container, value)
	}
}

// simLog is a run's output: an append-only buffer that readers can follow
// until the run exits.
type simLog struct {
	mu     sync.Mutex
	buf    []byte
	closed bool
	// changed is closed (and replaced) whenever buf grows or the log closes,
	// waking followers.
	changed chan struct{}
}

func newSimLog() *simLog { return &simLog{changed: make(chan struct{})} }

func (l *simLog) write(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return // a command still printing as its container is stopped
	}
	l.buf = append(l.buf, p...)
	close(l.changed)
	l.changed = make(chan struct{})
}

func (l *simLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		close(l.changed)
	}
}

func (l *simLog) reader(follow bool) io.ReadCloser {
	return &simLogReader{log: l, follow: follow, quit: make(chan struct{})}
}

// simLogReader reads a simLog from the start; with follow it waits for more
// until the log closes or the reader is closed.
type simLogReader struct {
	log      *simLog
	follow   bool
	off      int
	quit     chan struct{}
	quitOnce sync.Once
}

func (r *simLogReader) Read(p []byte) (int, error) {
	for {
		r.log.mu.Lock()
		if r.off < len(r.log.buf) {
			n := copy(p, r.log.buf[r.off:])
			r.off += n
			r.log.mu.Unlock()
			return n, nil
		}
		closed, changed := r.log.closed, r.log.changed
		r.log.mu.Unlock()
		if !r.follow || closed {
			return 0, io.EOF
		}
		select {
		case <-changed:
		case <-r.quit:
			return 0, io.EOF
		}
	}
}

func (r *simLogReader) Close() error {
	r.quitOnce.Do(func() { close(r.quit) })
	return nil
}
