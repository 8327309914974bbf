package kubelet

// This file holds the kubelet's record of a pod's containers: for each
// container of the spec, its current run (or last one) and the bookkeeping
// the API status needs — the run before it, the restart count, why it is
// waiting. It is the kubelet's equivalent of upstream's PodStatus from the
// runtime cache plus the status manager's memory of previous states.

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/kubelet/runtime"
)

// containerIDScheme prefixes every container ID, as "containerd://" does
// upstream.
const containerIDScheme = "kplane://"

// newContainerID returns a fresh "kplane://<64 hex digits>".
func newContainerID() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return containerIDScheme + hex.EncodeToString(b[:])
}

// containerState is everything the kubelet remembers about one container
// of a pod across its runs.
type containerState struct {
	name string
	// current is the latest run, running or exited; nil before the first.
	current *containerRun
	// lastTermination is how the run before current ended (the API's
	// lastState); nil when current is the first run.
	lastTermination *api.ContainerStateTerminated
	// previous is the run before current, for `kubectl logs --previous`.
	previous runtime.Container
	// restartCount is how many times the container was restarted: the
	// attempt number of current.
	restartCount int32
	// waiting is set while an exited container waits to be restarted
	// (CrashLoopBackOff) or could not be started; the status then shows
	// it as waiting with current's exit as lastState.
	waiting *api.ContainerStateWaiting
}

// containerRun is one run of a container.
type containerRun struct {
	// container is what the runtime returned; nil for a run known only from
	// the API status (after a kubelet restart) or one that failed to start.
	container runtime.Container
	id        string
	// image is the spec's image when the run started: a different image in
	// the spec later means the container must be restarted.
	image     string
	startedAt time.Time
	// exited is closed by the run's watcher once finishedAt is set; the
	// worker then fills terminated.
	exited     chan struct{}
	finishedAt time.Time
	terminated *api.ContainerStateTerminated
	probes     *runProbes
	// stopping is set once the kubelet asked the run to stop;
	// restartAfterStop when it did so in order to restart it (a failed
	// liveness or startup probe, a changed image), which restarts it
	// whatever its exit code.
	stopping, restartAfterStop bool
}

// isRunning reports whether the run has not exited.
func (r *containerRun) isRunning() bool { return r != nil && r.terminated == nil }

// exitTime is when the run exited.
func (r *containerRun) exitTime() time.Time { return r.terminated.FinishedAt.Time }

// shouldRestart applies a restartPolicy to an exit code.
func shouldRestart(policy api.RestartPolicy, exitCode int32) bool {
	switch policy {
	case api.RestartPolicyNever:
		return false
	case api.RestartPolicyOnFailure:
		return exitCode != 0
	default:
		return true
	}
}
