package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// supervisorGracePeriod is how long Down lets a supervisor stop its
// cluster: three rounds of StopGracePeriod (controllers, then the
// apiservers, then the etcd members of an HA layout) and a little slack.
const supervisorGracePeriod = 3*StopGracePeriod + 5*time.Second

// Down stops the cluster recorded in dataDir/cluster.json from another
// process: `ctl down` for a detached cluster, or for a foreground one
// whose terminal is gone.
//
// It first asks the supervisor to stop (SIGTERM), which stops the
// components in order and removes cluster.json. Whatever still runs after
// that — the supervisor was killed with SIGKILL and left its children — is
// stopped directly, kubelets and controllers before the apiservers, and
// those before the etcd members. Every
// process is found by its recorded PID and signalled only while
// /proc/<pid>/cmdline still shows the recorded command line; nothing is
// ever looked up by name. Without a running cluster Down returns an error
// wrapping ErrNotRunning (and removes a stale cluster.json).
func Down(dataDir string) error {
	dir, err := filepath.Abs(dataDir)
	if err != nil {
		return fmt.Errorf("data dir %s: %w", dataDir, err)
	}
	state, err := ReadState(dir)
	if err != nil {
		return err
	}
	stateFile := layout{dir}.stateFile()
	components := state.Components
	stoppedAny := false

	if sup := state.Supervisor; sup.Running() {
		if sup.PID == os.Getpid() {
			return fmt.Errorf("the cluster in %s is run by this process: call (*Cluster).Stop instead", dataDir)
		}
		stopRecorded([]ProcessRecord{sup}, supervisorGracePeriod)
		stoppedAny = true
		// The supervisor may have restarted components since state was
		// read; if it could not remove cluster.json, its last word is there.
		if latest, err := ReadState(dir); err == nil {
			components = latest.Components
		}
	}

	var first, last, etcd []ProcessRecord
	for name, rec := range components {
		switch {
		case !rec.Running():
		case IsAPIServerComponent(name), name == LoadBalancerComponent:
			last = append(last, rec)
		case IsEtcdComponent(name):
			etcd = append(etcd, rec)
		default:
			first = append(first, rec)
		}
	}
	stoppedAny = stoppedAny || len(first)+len(last)+len(etcd) > 0
	stopRecorded(first, StopGracePeriod)
	stopRecorded(last, StopGracePeriod)
	stopRecorded(etcd, StopGracePeriod)

	if err := os.Remove(stateFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", stateFile, err)
	}
	if !stoppedAny {
		return fmt.Errorf("%w in %s (removed a stale %s)", ErrNotRunning, dataDir, StateFileName)
	}
	return nil
}

// stopRecorded sends SIGTERM to each recorded process that is still the
// one recorded, waits up to grace for them to go, then sends SIGKILL to
// those left. Processes that are not its children cannot be waited for, so
// it polls their command lines.
func stopRecorded(recs []ProcessRecord, grace time.Duration) {
	signalAll := func(sig syscall.Signal) (left int) {
		for _, rec := range recs {
			if rec.Running() {
				_ = syscall.Kill(rec.PID, sig)
				left++
			}
		}
		return left
	}
	waitGone := func(d time.Duration) bool {
		for deadline := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
			gone := true
			for _, rec := range recs {
				gone = gone && !rec.Running()
			}
			if gone {
				return true
			}
			if time.Now().After(deadline) {
				return false
			}
		}
	}
	if signalAll(syscall.SIGTERM) == 0 || waitGone(grace) {
		return
	}
	signalAll(syscall.SIGKILL)
	waitGone(5 * time.Second)
}

// refuseIfRunning fails if cluster.json in dir names a process that still
// runs: two launchers on one data dir would fight over etcd and ports. A
// cluster.json whose processes are all gone (the machine rebooted) is
// stale and will be overwritten.
func refuseIfRunning(dir, displayDir string) error {
	state, err := ReadState(dir)
	if errors.Is(err, ErrNotRunning) {
		return nil
	}
	if err != nil {
		return err
	}
	if state.Supervisor.Running() {
		return fmt.Errorf("a cluster is already running in %s (supervisor pid %d); stop it first with `ctl down --data-dir %s`",
			displayDir, state.Supervisor.PID, displayDir)
	}
	if names := state.running(); len(names) > 0 {
		return fmt.Errorf("processes of an earlier cluster still run in %s (%v); stop them first with `ctl down --data-dir %s`",
			displayDir, names, displayDir)
	}
	return nil
}
