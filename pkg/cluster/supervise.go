package cluster

import (
	"fmt"
	"time"
)

// restartPolicy says how the launcher restarts a component that exited.
type restartPolicy struct {
	// initialDelay is the wait before the first restart; each further
	// restart waits twice as long, up to maxDelay.
	initialDelay, maxDelay time.Duration
	// A run shorter than quickCrash counts as a crash loop; after
	// maxQuickCrashes of them in a row the launcher gives up.
	quickCrash      time.Duration
	maxQuickCrashes int
}

// defaultRestartPolicy: 1 s doubling to 30 s, the shape of the kubelet's
// CrashLoopBackOff (10 s doubling to 5 min) scaled down for a local
// supervisor, where a component usually dies because it was killed by hand
// and should be back quickly. Five crashes within 10 s of starting mirror
// systemd's default start limit (5 starts per 10 s): beyond that restarting
// only fills the log.
var defaultRestartPolicy = restartPolicy{
	initialDelay:    time.Second,
	maxDelay:        30 * time.Second,
	quickCrash:      10 * time.Second,
	maxQuickCrashes: 5,
}

// supervise restarts p whenever it exits, until the cluster stops or p
// keeps crashing. Giving up on a component the cluster cannot work without
// stops the whole cluster: the load balancer of the HA layout (every
// kubeconfig names it) or the single apiserver of the plain layout. Giving
// up on anything else leaves the rest running, and that includes one of
// several HA apiservers: the balancer sends its clients to the others.
func (c *Cluster) supervise(p *process) {
	defer c.supervisors.Done()
	delay := c.restart.initialDelay
	quickCrashes := 0
	for {
		r, _ := p.latest()
		select {
		case <-r.done:
		case <-c.stopping:
			return
		}
		// A stop in progress ends runs on purpose; that is not a crash.
		select {
		case <-c.stopping:
			return
		default:
		}
		if time.Since(r.started) >= c.restart.quickCrash {
			quickCrashes, delay = 0, c.restart.initialDelay
		} else {
			quickCrashes++
		}
		if quickCrashes >= c.restart.maxQuickCrashes {
			path := c.layout.logFile(p.name)
			err := fmt.Errorf("%s exited: %s; it crashed %d times within %s of starting, so it is not restarted again; last lines of %s:\n%s",
				p.name, r.exitReason(), quickCrashes, c.restart.quickCrash, path, tail(path, 10))
			c.console.say("%v", err)
			if c.vital(p) {
				c.fail(err)
			}
			return
		}
		wait := delay
		if held := time.Until(c.layout.heldDownUntil(p.name)); held > wait {
			// `ctl fault kill --down-for` asked to keep it away a while.
			c.console.say("%s exited: %s; held down for %s by `ctl fault kill --down-for`, then restarted", p.name, r.exitReason(), held.Round(time.Second))
			wait = held
		} else {
			c.console.say("%s exited: %s; restarting in %s", p.name, r.exitReason(), delay)
		}
		select {
		case <-time.After(wait):
		case <-c.stopping:
			return
		}
		_ = ReleaseHoldDown(c.opts.DataDir, p.name)
		delay = min(2*delay, c.restart.maxDelay)
		if _, err := c.startProcess(p); err != nil {
			c.console.say("%s: %v", p.name, err)
			p.failedStart(err)
		}
	}
}

// vital reports whether the cluster cannot work without p.
func (c *Cluster) vital(p *process) bool {
	return p.role == roleLoadBalancer || (p.role == roleAPIServer && c.opts.ha == nil)
}

// failedStart records a run that could not even start (its binary was
// removed, say), so the supervisor counts it as a crash.
func (p *process) failedStart(err error) {
	r := &run{started: time.Now(), err: err, done: make(chan struct{}), copied: make(chan struct{})}
	close(r.done)
	close(r.copied)
	p.mu.Lock()
	p.restarts++
	p.current = r
	p.mu.Unlock()
}
