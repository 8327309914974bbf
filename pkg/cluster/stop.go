package cluster

import (
	"os"
	"syscall"
	"time"
)

// StopGracePeriod is how long a component has to exit after SIGTERM before
// it gets SIGKILL. Ten seconds is enough for the apiserver to close etcd
// and for controllers to release their Leases, which is what makes the
// next start fast (a Lease released is taken at once; one left behind
// must expire first).
const StopGracePeriod = 10 * time.Second

// Stop stops the cluster: kubelets and controllers first, then the
// apiserver they were talking to, each with SIGTERM and, after
// StopGracePeriod, SIGKILL. It removes cluster.json and returns once every
// component has exited. Calling it again waits for the first call. For a
// detached cluster it is Down.
func (c *Cluster) Stop() error {
	if c.detached != nil {
		return Down(c.opts.DataDir)
	}
	c.stopOnce.Do(func() {
		close(c.stopping)
		if c.readyIn > 0 {
			c.console.say("Stopping kplane: kubelets and controllers first, then the apiserver…")
		}
		// No supervisor may start a new run once the stop has begun.
		c.supervisors.Wait()
		// Clients first, then the apiservers and their balancer, then
		// the etcd members they store in.
		var first, last, etcd []*process
		for _, p := range c.procs {
			switch p.role {
			case roleAPIServer, roleLoadBalancer:
				last = append(last, p)
			case roleEtcd:
				etcd = append(etcd, p)
			default:
				first = append(first, p)
			}
		}
		stopProcesses(first, c.stopGrace)
		// An idle HTTP/2 connection would hold up the apiserver's graceful
		// shutdown (the server gives such a connection a second to go
		// away after its GOAWAY).
		if c.admin != nil {
			c.admin.Close()
		}
		stopProcesses(last, c.stopGrace)
		stopProcesses(etcd, c.stopGrace)
		c.closeLogs()
		_ = os.Remove(c.layout.stateFile())
		close(c.stopped)
	})
	<-c.stopped
	return c.stopError()
}

// stopProcesses sends SIGTERM to every process's current run at once,
// waits up to grace for them all, then kills the rest.
func stopProcesses(procs []*process, grace time.Duration) {
	var runs []*run
	for _, p := range procs {
		if r, _ := p.latest(); r != nil {
			runs = append(runs, r)
			r.signal(syscall.SIGTERM)
		}
	}
	timeout := time.After(grace)
	expired := false
	for _, r := range runs {
		if !expired {
			select {
			case <-r.done:
				continue
			case <-timeout:
				expired = true
			}
		}
		r.signal(syscall.SIGKILL)
		<-r.done
	}
	for _, r := range runs {
		r.closeOutput(time.Second)
	}
}

// closeLogs closes every component's log file.
func (c *Cluster) closeLogs() {
	for _, p := range c.procs {
		if p.logFile != nil {
			p.logFile.Close()
		}
	}
}
