package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/debug"
)

// Cluster is a local cluster started by Up. Its methods are safe for
// concurrent use.
type Cluster struct {
	opts Options
	// displayDir is the data dir as the user gave it, for messages.
	displayDir string
	layout     layout
	console    *console
	// procs are the components in start order: the control plane (etcd
	// members and balancer in the HA layout, then the apiservers) first.
	procs   []*process
	restart restartPolicy
	// stopGrace is how long Stop waits after SIGTERM (StopGracePeriod).
	stopGrace time.Duration
	server    string
	readyIn   time.Duration
	// admin is an API client with the admin's credentials.
	admin *client.Client

	stateMu sync.Mutex
	state   *State

	// stopping is closed when Stop begins; supervisors return on it.
	stopping chan struct{}
	stopOnce sync.Once
	// stopped is closed once every component has exited.
	stopped chan struct{}
	// supervisors counts the goroutines of supervise.
	supervisors sync.WaitGroup

	errMu sync.Mutex
	// err says why the cluster stopped on its own (nil after Stop).
	err error

	// detached is set when the cluster runs under a background supervisor
	// (Options.Detach) rather than in this process.
	detached *detachedCluster
}

// Up starts a local cluster as Options o describe and returns once every
// node is Ready. Without o.Detach the components are children of this
// process: cancelling ctx (or calling Stop) stops them, and they are
// restarted if they exit meanwhile. With o.Detach a background supervisor
// runs them instead, and Up returns as soon as that cluster is ready.
//
// A second Up on the same data dir resumes the cluster with its data: the
// apiserver reopens its etcd, CA and token file, and every component keeps
// its identity.
func Up(ctx context.Context, o Options) (*Cluster, error) {
	began := time.Now()
	displayDir := filepath.Clean(o.DataDir)
	o, err := o.complete()
	if err != nil {
		return nil, err
	}
	if o.Detach {
		return upDetached(ctx, o, displayDir, began)
	}
	l := layout{o.DataDir}
	if err := refuseIfRunning(o.DataDir, displayDir); err != nil {
		return nil, err
	}
	if o.ha, err = resolveHA(o); err != nil {
		return nil, err
	}
	plan, err := planComponents(o)
	if err != nil {
		return nil, err
	}
	for _, dir := range []string{o.DataDir, l.logsDir(), l.kubeconfigsDir()} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create %s: %w", dir, err)
		}
	}
	if err := ensureAuditPolicy(l); err != nil {
		return nil, err
	}
	// A previous run's endpoint files name ports nobody listens on now;
	// each component writes its own again once it listens.
	if err := os.RemoveAll(filepath.Join(o.DataDir, debug.EndpointsDir)); err != nil {
		return nil, fmt.Errorf("remove stale debug endpoints: %w", err)
	}
	// Every identity gets its token before the apiserver reads the file.
	tokens, err := prepareTokens(l, plan)
	if err != nil {
		return nil, err
	}
	c, err := newCluster(o, displayDir, plan)
	if err != nil {
		return nil, err
	}
	failed := func(err error) (*Cluster, error) {
		c.Stop()
		return nil, err
	}
	if err := c.writeState(); err != nil {
		return failed(err)
	}
	c.console.say("Starting kplane in %s: %s (%s runtime)", displayDir, c.summary(), o.Runtime)

	// 1. The apiserver (in the HA layout after the etcd members and the
	// balancer, and the others after it). A kubeconfig left from the last
	// run names the last run's port; removing it means the file that
	// appears is this run's.
	deadline := began.Add(o.ReadyTimeout)
	if err := c.startHAFront(ctx, deadline); err != nil {
		return failed(err)
	}
	apiserver := c.process(APIServerComponent)
	_ = os.Remove(l.adminKubeconfig())
	if _, err := c.startProcess(apiserver); err != nil {
		return failed(err)
	}
	caPEM, err := c.waitForAPIServer(ctx, apiserver, deadline)
	if err != nil {
		return failed(err)
	}
	if u, err := url.Parse(c.server); err == nil && o.ha == nil {
		apiserver.setPort(u.Port())
	}
	if err := c.startOtherAPIServers(ctx, deadline); err != nil {
		return failed(err)
	}
	// The default StorageClass, before any claim can be created: its
	// provisioner runs in the controller-manager, so a cluster without one
	// gets no class.
	if o.DefaultStorageClass && slices.ContainsFunc(plan, func(p component) bool { return p.name == ControllerManagerComponent }) {
		if err := ensureDefaultStorageClass(ctx, c.admin); err != nil {
			return failed(err)
		}
	}

	// 2. Everything that talks to it, each with its own kubeconfig.
	if err := writeKubeconfigs(l, plan, tokens, c.server, caPEM); err != nil {
		return failed(err)
	}
	if port := metricsServerPort(plan); port != 0 {
		note, err := prepareMetricsServer(ctx, c.admin, l, port, caPEM)
		if err != nil {
			return failed(err)
		}
		if note != "" {
			c.console.say("%s", note)
		}
	}
	for _, p := range c.procs {
		if r, _ := p.latest(); r != nil {
			continue // the control plane, started above
		}
		if _, err := c.startProcess(p); err != nil {
			return failed(err)
		}
	}

	// 3. Ready when every node says so.
	if err := c.waitForNodes(ctx, deadline); err != nil {
		return failed(err)
	}
	c.readyIn = time.Since(began)
	c.stateMu.Lock()
	now := time.Now().UTC()
	c.state.ReadyAt = &now
	c.stateMu.Unlock()
	if err := c.writeState(); err != nil {
		return failed(err)
	}
	c.printReady()
	c.superviseAll(ctx)
	return c, nil
}

// superviseAll starts a supervisor for every component and stops the
// cluster when ctx ends.
func (c *Cluster) superviseAll(ctx context.Context) {
	for _, p := range c.procs {
		c.supervisors.Add(1)
		go c.supervise(p)
	}
	go func() {
		select {
		case <-ctx.Done():
			c.Stop()
		case <-c.stopping:
		}
	}()
}

// newCluster opens the log files and prepares the console for plan.
func newCluster(o Options, displayDir string, plan []component) (*Cluster, error) {
	var names []string
	for _, comp := range plan {
		names = append(names, comp.name)
	}
	c := &Cluster{
		opts:       o,
		displayDir: displayDir,
		layout:     layout{o.DataDir},
		console:    newConsole(o.Out, o.Color, names),
		restart:    defaultRestartPolicy,
		stopGrace:  StopGracePeriod,
		stopping:   make(chan struct{}),
		stopped:    make(chan struct{}),
		state: &State{
			DataDir:    o.DataDir,
			Supervisor: ProcessRecord{PID: os.Getpid(), StartedAt: time.Now().UTC(), Args: os.Args},
			Components: map[string]ProcessRecord{},
		},
	}
	for i, comp := range plan {
		f, err := os.OpenFile(c.layout.logFile(comp.name), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			c.closeLogs()
			return nil, fmt.Errorf("open log of %s: %w", comp.name, err)
		}
		p := &process{component: comp, logFile: f}
		// A detached cluster's components write only to their files:
		// Out is the supervisor's own log there.
		if !o.Supervisor {
			p.stream, p.prefix = c.console, c.console.prefix(comp.name, i)
		}
		c.procs = append(c.procs, p)
	}
	return c, nil
}

// summary lists what runs, e.g. "apiserver, scheduler, 3 kubelets".
func (c *Cluster) summary() string {
	var parts []string
	kubelets := 0
	for _, p := range c.procs {
		if p.role == roleKubelet {
			kubelets++
			continue
		}
		parts = append(parts, p.name)
	}
	return strings.Join(append(parts, count(kubelets, "kubelet")), ", ")
}

// startProcess starts p once more and records its PID in cluster.json.
// It fails only if the process could not be started.
func (c *Cluster) startProcess(p *process) (*run, error) {
	r, err := p.start()
	if err != nil {
		return nil, err
	}
	_, restarts := p.latest()
	c.stateMu.Lock()
	c.state.Components[p.name] = ProcessRecord{PID: r.pid, StartedAt: r.started.UTC(), Args: r.args, Restarts: restarts}
	c.stateMu.Unlock()
	if err := c.writeState(); err != nil {
		// The process runs; only `ctl down` from elsewhere would miss it.
		c.console.say("warning: %v", err)
	}
	return r, nil
}

// writeState writes cluster.json from memory.
func (c *Cluster) writeState() error {
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	return c.state.write(c.layout.stateFile())
}

// waitForAPIServer waits until the apiserver has written the admin
// kubeconfig (it does so once it serves) and answers /readyz, and returns
// the CA it signed its certificate with. If the apiserver (or an etcd
// member or the balancer before it) exits first — the port is taken, the
// data dir is locked — the error carries the end of its log.
func (c *Cluster) waitForAPIServer(ctx context.Context, p *process, deadline time.Time) ([]byte, error) {
	for {
		// The apiserver, or what stands before it in the HA layout (an
		// etcd member, the balancer), may have exited.
		for _, started := range c.procs {
			if r, _ := started.latest(); r != nil && r.exited() {
				return nil, c.exitedDuringStartup(started, r)
			}
		}
		if server, caPEM, err := readAdminKubeconfig(c.layout.adminKubeconfig()); err == nil {
			if admin, err := newAdminClient(c.layout.adminKubeconfig()); err == nil {
				status, _, err := admin.Do(ctx, "GET", "/readyz", nil, nil)
				if err == nil && status == 200 {
					c.server, c.admin = server, admin
					c.stateMu.Lock()
					c.state.Server = server
					c.stateMu.Unlock()
					return caPEM, nil
				}
				admin.Close()
			}
		}
		if err := sleepUntil(ctx, deadline, 10*time.Millisecond); err != nil {
			return nil, fmt.Errorf("waiting for the apiserver to be ready: %w (see %s)", err, c.layout.logFile(p.name))
		}
	}
}

// waitForNodes polls the nodes until each of the cluster's nodes has
// registered and reports Ready=True. A component exiting meanwhile ends
// the wait with its log.
func (c *Cluster) waitForNodes(ctx context.Context, deadline time.Time) error {
	want := NodeNames(c.opts.Nodes)
	var waiting []string
	for {
		for _, p := range c.procs {
			if r, _ := p.latest(); r.exited() {
				return c.exitedDuringStartup(p, r)
			}
		}
		list, err := c.admin.Nodes().List(ctx, client.ListOptions{})
		if err == nil {
			marked := true
			if slices.Contains(want, ControlPlaneNodeName) {
				marked, err = markControlPlane(ctx, c.admin, list.Items)
			}
			if waiting = nodesNotReady(want, list.Items); len(waiting) == 0 && marked {
				return nil
			}
			if err != nil {
				waiting = append(waiting, err.Error())
			}
		} else {
			waiting = []string{err.Error()}
		}
		if err := sleepUntil(ctx, deadline, 20*time.Millisecond); err != nil {
			return fmt.Errorf("waiting for nodes to be Ready: %w; still waiting for: %s", err, strings.Join(waiting, "; "))
		}
	}
}

// exitedDuringStartup describes a component that died before the cluster
// was ready, with the end of its log, which usually says why.
func (c *Cluster) exitedDuringStartup(p *process, r *run) error {
	<-r.done
	r.closeOutput(time.Second)
	path := c.layout.logFile(p.name)
	return fmt.Errorf("%s exited during start-up: %s; last lines of %s:\n%s", p.name, r.exitReason(), path, tail(path, 15))
}

// errDeadline is what sleepUntil returns once the deadline has passed.
var errDeadline = errors.New("timed out")

// sleepUntil sleeps for step, or returns an error if ctx ends or deadline
// passes first.
func sleepUntil(ctx context.Context, deadline time.Time, step time.Duration) error {
	if time.Now().After(deadline) {
		return errDeadline
	}
	t := time.NewTimer(step)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// printReady tells the user how long start-up took and how to use the
// cluster.
func (c *Cluster) printReady() {
	nodes := NodeNames(c.opts.Nodes)
	shown := nodes
	if len(shown) > 4 {
		shown = []string{nodes[0], nodes[1], "…", nodes[len(nodes)-1]}
	}
	kubeconfig := filepath.Join(c.displayDir, "kubeconfig")
	c.console.say("kplane is ready in %s: %s Ready (%s), apiserver %s", c.readyIn.Round(time.Millisecond),
		count(len(nodes), "node"), strings.Join(shown, ", "), c.server)
	c.console.say("")
	c.console.say("  kubectl --kubeconfig %s get nodes", kubeconfig)
	c.console.say("")
	if c.opts.Supervisor {
		c.console.say("Logs are in %s. Stop the cluster with `ctl down --data-dir %s`.", c.layout.logsDir(), c.displayDir)
	} else {
		c.console.say("Logs are in %s. Press Ctrl-C to stop the cluster.", filepath.Join(c.displayDir, "logs"))
	}
}

// DataDir is the cluster's data dir (absolute).
func (c *Cluster) DataDir() string { return c.opts.DataDir }

// KubeconfigPath is the admin kubeconfig, for kubectl --kubeconfig.
func (c *Cluster) KubeconfigPath() string { return layout{c.opts.DataDir}.adminKubeconfig() }

// Server is the apiserver's URL.
func (c *Cluster) Server() string { return c.server }

// ReadyIn is how long Up took, from its call until every node was Ready.
func (c *Cluster) ReadyIn() time.Duration { return c.readyIn }

// Wait blocks until the cluster has stopped — through Stop, the context
// given to Up, or a component the supervisor gave up on — and says why
// (nil after Stop or a cancelled context). For a detached cluster it waits
// for the background supervisor to exit.
func (c *Cluster) Wait() error {
	if c.detached != nil {
		return c.detached.wait()
	}
	<-c.stopped
	return c.stopError()
}

// fail records why the cluster stops on its own and stops it.
func (c *Cluster) fail(err error) {
	c.errMu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.errMu.Unlock()
	// Stop waits for the supervisors, and the caller is one of them.
	go c.Stop()
}

func (c *Cluster) stopError() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return c.err
}

// newAdminClient is an API client for the launcher's own checks. It does
// not retry: the callers poll.
func newAdminClient(kubeconfigPath string) (*client.Client, error) {
	cfg, err := client.ConfigFromKubeconfig(kubeconfigPath, "")
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = "kplane-ctl"
	cfg.MaxRetries = -1
	cfg.Timeout = 5 * time.Second
	return client.New(cfg)
}

// count renders "1 node", "3 nodes".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
