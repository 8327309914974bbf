package chaos

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/cluster"
	"kplane/pkg/debug"
)

// restartDeadline bounds how long the killer waits for the supervisor to
// start a killed component again: its first restart comes after 1 s, and
// a component that had run for minUptime is never in back-off; the rest is
// slack for a busy machine.
const restartDeadline = time.Minute

// Kill is one SIGKILL the killer sent and what became of it.
type Kill struct {
	At     time.Time
	Target Target
	// OldPID is the process killed; NewPID the one the supervisor started
	// in its place (0 if none came within restartDeadline).
	OldPID, NewPID int
	// RestartedAfter is how long after the kill the new process started.
	RestartedAfter time.Duration
	// Missing says, for a kill not followed by a restart, what the
	// killer last saw: whether the old process was still there (a
	// process in uninterruptible sleep dies only when it wakes) and what
	// cluster.json recorded.
	Missing string
}

func (k Kill) String() string {
	restart := "NOT restarted: " + k.Missing
	if k.NewPID != 0 {
		restart = fmt.Sprintf("restarted as pid %d after %s", k.NewPID, k.RestartedAfter.Round(100*time.Millisecond))
	}
	return fmt.Sprintf("%s kill -9 %s (%s, pid %d): %s", k.At.Format("15:04:05"), k.Target.Component, k.Target.Kind, k.OldPID, restart)
}

// Killer sends SIGKILL to a random component of a running cluster every
// Interval() (see Targets and Choose for which) and checks that the
// supervisor brings each one back.
type Killer struct {
	// DataDir is the cluster's data dir, where cluster.json and the
	// components' debug endpoints are.
	DataDir string
	// Client reads the leader Leases.
	Client *client.Client
	// Interval is the pause before each kill; IntN is rand.IntN.
	Interval func() time.Duration
	IntN     func(int) int
	// Logf reports each kill as it happens.
	Logf func(format string, args ...any)

	mu      sync.Mutex
	kills   []*Kill
	waiting sync.WaitGroup
}

// Run kills until ctx ends, then waits for the restarts it is checking.
func (k *Killer) Run(ctx context.Context) {
	defer k.waiting.Wait()
	for {
		sleep(ctx, k.Interval())
		if ctx.Err() != nil {
			return
		}
		k.killOne(ctx)
	}
}

// killOne kills one target, if there is one now.
func (k *Killer) killOne(ctx context.Context) {
	state, err := cluster.ReadState(k.DataDir)
	if err != nil {
		k.Logf("chaos: read cluster state: %v", err)
		return
	}
	target, ok := Choose(Targets(state, k.leaders(ctx), cluster.ProcessRecord.Running, time.Now()), k.IntN)
	if !ok {
		return
	}
	rec, _, err := cluster.Signal(k.DataDir, target.Component, syscall.SIGKILL)
	if err != nil {
		k.Logf("chaos: kill %s: %v", target.Component, err)
		return
	}
	kill := &Kill{At: time.Now(), Target: target, OldPID: rec.PID}
	k.mu.Lock()
	k.kills = append(k.kills, kill)
	k.mu.Unlock()
	k.waiting.Add(1)
	go func() {
		defer k.waiting.Done()
		k.awaitRestart(kill)
		k.Logf("chaos: %s", kill)
	}()
}

// awaitRestart polls cluster.json until the killed component runs again
// under a new PID, or restartDeadline passes.
func (k *Killer) awaitRestart(kill *Kill) {
	deadline := kill.At.Add(restartDeadline)
	var last string
	for time.Now().Before(deadline) {
		state, err := cluster.ReadState(k.DataDir)
		if err != nil {
			last = err.Error()
		} else {
			rec := state.Components[kill.Target.Component]
			if rec.PID != kill.OldPID && rec.Running() {
				k.mu.Lock()
				kill.NewPID, kill.RestartedAfter = rec.PID, rec.StartedAt.Sub(kill.At)
				k.mu.Unlock()
				return
			}
			last = fmt.Sprintf("cluster.json has pid %d (running: %v, %d restarts)", rec.PID, rec.Running(), rec.Restarts)
		}
		time.Sleep(100 * time.Millisecond)
	}
	old := "the old process is gone"
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(kill.OldPID) + "/stat"); err == nil {
		old = "the old process is still there: " + strings.TrimSpace(string(stat))
	}
	k.mu.Lock()
	kill.Missing = last + "; " + old
	k.mu.Unlock()
}

// leaders finds the components holding the controller-manager and
// scheduler Leases, by the identities the components announce with their
// debug endpoints (as `ctl fault kill` does). A kind is missing when its
// Lease cannot be read or its holder is no running component — a leader
// just killed keeps its Lease until it expires.
func (k *Killer) leaders(ctx context.Context) map[string]string {
	leaders := map[string]string{}
	endpoints, err := debug.ReadEndpoints(k.DataDir)
	if err != nil {
		return leaders
	}
	for kind, lease := range map[string]string{KindControllerManager: controllerManagerLease, KindScheduler: schedulerLease} {
		holder := k.leaseHolder(ctx, lease)
		if holder == "" {
			continue
		}
		for _, ep := range endpoints {
			if ep.Identity == holder && kindOf(ep.Component) == kind {
				leaders[kind] = ep.Component
			}
		}
	}
	return leaders
}

// leaseHolder reads a Lease's holderIdentity, "" if there is none or the
// Lease cannot be read within a second (an apiserver just killed).
func (k *Killer) leaseHolder(ctx context.Context, lease string) string {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	namespace, name, _ := strings.Cut(lease, "/")
	l, err := k.Client.Leases(namespace).Get(ctx, name, client.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// Kills returns copies of the kills so far.
func (k *Killer) Kills() []Kill {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]Kill, len(k.kills))
	for i, kill := range k.kills {
		out[i] = *kill
	}
	return out
}
