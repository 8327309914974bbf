package kubelet

// This file is the heart of the kubelet: one worker per pod, a goroutine
// that owns everything about that pod on this node and moves it one step
// at a time from what it is toward what its spec asks for. Upstream splits
// the same job between pod_workers.go (one goroutine per pod, the
// sync/terminating/terminated state machine) and kuberuntime_manager.go's
// computePodActions (which containers to start or kill); kplane keeps both
// in one readable loop:
//
//	for {
//		sync()        // compare spec with the runs, start/kill/restart, publish status
//		wait()        // for a pod update, a container exit, a probe result or a timer
//	}
//
// A pod goes through three stages. Running: create the sandbox (an IP), run
// the init containers one by one, then the app containers, restarting them
// as restartPolicy says with CrashLoopBackOff back-off, killing those whose
// liveness probe fails. Terminating: once the pod has a deletionTimestamp
// (or was removed, or exceeded activeDeadlineSeconds), stop every running
// container with the grace period and wait for them. Terminated: publish
// the final status and, for a deleted pod, let the status manager delete
// the object; the worker ends when the object is gone.

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/debug"
	"kplane/pkg/kubelet/runtime"
)

// statusSink receives the statuses pod workers compute; the status manager
// (status.go) is the real one.
type statusSink interface {
	// SetPodStatus records the status pod should have. It is written soon,
	// merged with any status set for the pod meanwhile.
	SetPodStatus(pod *api.Pod, status api.PodStatus)
	// TerminatePod records the final status of a pod that is being deleted
	// and whose containers have all stopped: once it is written, the pod
	// object may be deleted.
	TerminatePod(pod *api.Pod, status api.PodStatus)
	// Forget drops whatever is pending for a pod that is gone.
	Forget(uid string)
}

// podEnv is what a pod worker needs from its node's kubelet.
type podEnv struct {
	nodeIP   string
	runtime  runtime.Runtime
	recorder eventRecorder
	status   statusSink
	// ipam hands out pod IPs; it is replaced if the node's podCIDR changes.
	ipam   func() *ipam
	images *imageCache
	// backOffInitial and backOffMax bound CrashLoopBackOff.
	backOffInitial, backOffMax time.Duration
	// clock is the node's: container start and exit times, back-off,
	// activeDeadlineSeconds and probe schedules are read from it.
	clock clock.Clock
	log   *slog.Logger
	// journal records the workers' decisions (decision.go); nil records
	// nothing.
	journal *debug.Journal
}

// imageCache remembers which images a node has "pulled", so that the
// second pod using an image hears it is already present.
type imageCache struct {
	mu     sync.Mutex
	images map[string]bool
}

// pulled records image and reports whether it was there already.
func (c *imageCache) pulled(image string) (present bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.images == nil {
		c.images = map[string]bool{}
	}
	present = c.images[image]
	c.images[image] = true
	return present
}

// podWorker drives one pod. Its goroutine (run) is the only one that
// changes the pod's containers; the informer hands it new versions of the
// pod through update and remove, and wakes it.
type podWorker struct {
	env    *podEnv
	uid    string
	static bool
	// wake (capacity 1) is poked by anything the worker should react to:
	// a new pod version, a container exit, a probe state change.
	wake chan struct{}
	// wg counts the worker's helper goroutines (exit watchers, stops).
	wg sync.WaitGroup

	// mu guards pod and removed, written by the informer's handler, and the
	// containers map, which FindContainer reads for `kubectl logs`. The
	// worker holds it while it syncs, except around runtime.Start.
	mu sync.Mutex
	// pod is the latest version of the pod; latest holds the same for the
	// probe goroutines, which must not wait for mu.
	pod    *api.Pod
	latest atomic.Pointer[api.Pod]
	// removed is set when the pod object is gone (or a static pod's file).
	removed bool

	// The rest is the worker's own state.
	containers map[string]*containerState
	backOff    *crashBackOff
	// adopted is set once the worker has read back what a previous kubelet
	// process reported (see adopt).
	adopted bool
	// sandboxReady is set while the pod has its IP (upstream: a running
	// pod sandbox); podIP is that IP.
	sandboxReady bool
	podIP        string
	startTime    *api.Time
	// terminal is set once no container will run again; terminated once
	// the final status has been handed to the status manager.
	terminal, terminated bool
	// deleteRequested is set once the status manager was told to delete
	// the pod object.
	deleteRequested bool
	// failReason and failMessage, when set, fail the pod (DeadlineExceeded).
	failReason, failMessage string
	// lastDecision is the message of the last decision recorded about the
	// pod, so that a worker waiting on does not repeat it (decision.go).
	lastDecision string
}

func newPodWorker(env *podEnv, pod *api.Pod, static bool) *podWorker {
	w := &podWorker{env: env, uid: pod.UID, static: static, pod: pod, wake: make(chan struct{}, 1),
		containers: map[string]*containerState{}, backOff: newCrashBackOff(env.backOffInitial, env.backOffMax)}
	w.latest.Store(pod)
	return w
}

// poke wakes the worker; pokes while it is busy merge into one.
func (w *podWorker) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// update hands the worker a new version of its pod.
func (w *podWorker) update(pod *api.Pod) {
	w.mu.Lock()
	w.pod = pod
	w.latest.Store(pod)
	w.mu.Unlock()
	w.poke()
}

// remove tells the worker its pod object is gone.
func (w *podWorker) remove() {
	w.mu.Lock()
	w.removed = true
	w.mu.Unlock()
	w.poke()
}

// currentPod returns the latest version of the pod.
func (w *podWorker) currentPod() *api.Pod { return w.latest.Load() }

// run is the worker's loop; it returns when the pod is gone and its
// containers have stopped, or when ctx ends (the kubelet is shutting down:
// containers are left to the runtime, and nothing more is written, so that
// the next kubelet process can adopt them).
func (w *podWorker) run(ctx context.Context) {
	timer := w.env.clock.NewTimer(time.Hour)
	timer.Stop()
	defer func() {
		for _, p := range w.stopAllProbes() {
			p.wait()
		}
		w.wg.Wait()
	}()
	for {
		next, finished := w.sync(ctx)
		if finished {
			return
		}
		if next > 0 {
			timer.Reset(next)
		}
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-timer.C():
		}
		timer.Stop()
	}
}

// sync is one reconcile step. It returns how soon it wants to run again
// without being woken (0: only when woken) and whether the worker is done.
func (w *podWorker) sync(ctx context.Context) (next time.Duration, finished bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ctx.Err() != nil {
		return 0, true
	}
	pod, removed := w.pod, w.removed
	now := w.env.clock.Now()
	if !w.adopted {
		w.adopted = true
		w.adopt(ctx, pod, now)
	}
	w.collectExits()
	w.observePod(pod)

	if removed || pod.DeletionTimestamp != nil || w.failReason != "" {
		return w.terminate(pod, removed)
	}
	if w.terminal {
		// Nothing will run again. Once the API shows the terminal phase
		// there is nothing left to report (and a restarted kubelet does not
		// rewrite the statuses of its completed pods).
		if p := pod.Status.Phase; p != api.PodSucceeded && p != api.PodFailed {
			w.publish(pod, false)
		}
		return 0, false
	}
	if !w.sandboxReady {
		if err := w.createSandbox(pod, now); err != nil {
			w.env.recorder.Eventf(pod, api.EventTypeWarning, eventFailedSandbox, "Failed to create pod sandbox: %v", err)
			w.publish(pod, false)
			return w.env.backOffInitial, false
		}
	}
	if d := pod.Spec.ActiveDeadlineSeconds; d != nil {
		deadline := w.startTime.Add(time.Duration(*d) * time.Second)
		if !now.Before(deadline) {
			w.failReason, w.failMessage = eventDeadlineExceeded, msgDeadlineExceeded
			w.env.recorder.Event(pod, api.EventTypeNormal, eventDeadlineExceeded, msgDeadlineExceeded)
			return w.terminate(pod, false)
		}
		next = deadline.Sub(now)
	}
	containersNext := w.syncContainers(ctx, pod, now)
	next = earliest(next, containersNext)
	if w.completed(pod) {
		w.terminal = true
		w.teardownSandbox()
	}
	w.publish(pod, false)
	return next, false
}

// earliest is the sooner of two wake-up delays, 0 meaning none.
func earliest(a, b time.Duration) time.Duration {
	switch {
	case a <= 0:
		return b
	case b <= 0:
		return a
	default:
		return min(a, b)
	}
}

// createSandbox gives the pod its IP: the node's for a hostNetwork pod,
// otherwise a free one of the node's podCIDR.
func (w *podWorker) createSandbox(pod *api.Pod, now time.Time) error {
	if pod.Spec.HostNetwork {
		w.podIP = w.env.nodeIP
	} else {
		ip, err := w.env.ipam().Allocate(w.uid)
		if err != nil {
			return err
		}
		w.podIP = ip.String()
	}
	w.sandboxReady = true
	w.decideAdmitted(pod)
	if w.startTime == nil {
		t := api.NewTime(now)
		w.startTime = &t
	}
	return nil
}

// teardownSandbox releases the pod's IP. The status keeps showing it, as
// upstream's does for a completed pod.
func (w *podWorker) teardownSandbox() {
	if !w.sandboxReady {
		return
	}
	w.sandboxReady = false
	w.env.ipam().Release(w.uid)
}

// syncContainers runs the init containers in order, then the app
// containers, and returns how soon a back-off ends (0: none pending).
func (w *podWorker) syncContainers(ctx context.Context, pod *api.Pod, now time.Time) time.Duration {
	var next time.Duration
	initialized := w.initialized(pod)
	if !initialized {
		for i := range pod.Spec.InitContainers {
			c := &pod.Spec.InitContainers[i]
			done, wait := w.syncInitContainer(ctx, pod, c, now)
			next = earliest(next, wait)
			if !done {
				return next
			}
		}
	}
	for i := range pod.Spec.InitContainers {
		// Sidecars keep running (and restarting) beside the app containers.
		if c := &pod.Spec.InitContainers[i]; initialized && isRestartableInit(c) {
			next = earliest(next, w.syncLongRunning(ctx, pod, c, api.RestartPolicyAlways, now))
		}
	}
	for i := range pod.Spec.Containers {
		next = earliest(next, w.syncLongRunning(ctx, pod, &pod.Spec.Containers[i], pod.Spec.RestartPolicy, now))
	}
	return next
}

// initialized reports whether the init containers are behind the pod: an
// app container has run.
func (w *podWorker) initialized(pod *api.Pod) bool {
	if len(pod.Spec.InitContainers) == 0 {
		return true
	}
	for _, c := range pod.Spec.Containers {
		if st := w.containers[c.Name]; st != nil && st.current != nil {
			return true
		}
	}
	return false
}

// syncInitContainer moves one init container along and reports whether the
// next one may start: an ordinary init container must have exited 0, a
// sidecar must have started.
func (w *podWorker) syncInitContainer(ctx context.Context, pod *api.Pod, c *api.Container, now time.Time) (done bool, next time.Duration) {
	st := w.state(c.Name)
	if isRestartableInit(c) {
		next = w.syncLongRunning(ctx, pod, c, api.RestartPolicyAlways, now)
		return st.current.isRunning() && st.current.probes.isStarted(), next
	}
	run := st.current
	switch {
	case run == nil:
		w.startContainer(ctx, pod, c, st)
		return false, 0
	case run.isRunning():
		w.checkLiveness(pod, c, run, pod.Spec.RestartPolicy)
		return false, 0
	case run.terminated.ExitCode == 0 && !run.restartAfterStop:
		return true, 0
	case pod.Spec.RestartPolicy == api.RestartPolicyNever:
		return false, 0 // the pod has failed; completed() notices
	default:
		// Init containers are retried on failure whatever the policy says
		// (Always counts as OnFailure for them).
		return false, w.restartWithBackOff(ctx, pod, c, st, now)
	}
}

// syncLongRunning moves an app container (or a sidecar) along: start it,
// kill it if its probes or spec say so, restart it after an exit when
// policy says so.
func (w *podWorker) syncLongRunning(ctx context.Context, pod *api.Pod, c *api.Container, policy api.RestartPolicy, now time.Time) time.Duration {
	st := w.state(c.Name)
	run := st.current
	switch {
	case run == nil:
		w.startContainer(ctx, pod, c, st)
	case run.isRunning():
		w.checkLiveness(pod, c, run, policy)
	case run.restartAfterStop && policy != api.RestartPolicyNever,
		shouldRestart(policy, run.terminated.ExitCode):
		return w.restartWithBackOff(ctx, pod, c, st, now)
	}
	return 0
}

// checkLiveness kills a run whose liveness or startup probe has failed, or
// whose image changed in the spec. It is restarted after it exits unless
// the restartPolicy is Never.
func (w *podWorker) checkLiveness(pod *api.Pod, c *api.Container, run *containerRun, policy api.RestartPolicy) {
	if run.stopping {
		return
	}
	var message string
	grace := podGracePeriod(pod)
	if kind, failed := run.probes.livenessFailure(); failed {
		message = fmt.Sprintf(msgProbeKill, c.Name, strings.ToLower(string(kind)))
		if p := probeOf(c, kind); p != nil && p.TerminationGracePeriodSeconds != nil {
			grace = time.Duration(*p.TerminationGracePeriodSeconds) * time.Second
		}
	} else if run.image != "" && c.Image != run.image {
		message = fmt.Sprintf(msgSpecChanged, c.Name)
	} else {
		return
	}
	if policy != api.RestartPolicyNever {
		message += msgWillRestart
		run.restartAfterStop = true
	}
	w.decideKill(pod, c, message, grace, policy != api.RestartPolicyNever)
	w.stopRun(pod, run, message, grace)
}

// probeOf returns the container's probe of a kind.
func probeOf(c *api.Container, kind probeKind) *api.Probe {
	switch kind {
	case livenessProbe:
		return c.LivenessProbe
	case startupProbe:
		return c.StartupProbe
	default:
		return c.ReadinessProbe
	}
}

// restartWithBackOff restarts an exited container, or, if it is still in
// its CrashLoopBackOff delay, marks it waiting and returns how long is left.
func (w *podWorker) restartWithBackOff(ctx context.Context, pod *api.Pod, c *api.Container, st *containerState, now time.Time) time.Duration {
	exitTime := st.current.exitTime()
	until, delay, waiting := w.backOff.waitUntil(c.Name, exitTime, now)
	w.decideRestart(pod, c, st, delay, until, waiting)
	if waiting {
		if st.waiting == nil || st.waiting.Reason != reasonCrashLoopBackOff {
			w.env.recorder.Eventf(pod, api.EventTypeWarning, eventBackOff, msgBackOffEvent, c.Name, podDesc(pod))
		}
		st.waiting = &api.ContainerStateWaiting{Reason: reasonCrashLoopBackOff,
			Message: fmt.Sprintf(msgCrashLoopBackOff, delay, c.Name, podDesc(pod))}
		return until.Sub(now)
	}
	w.backOff.restarted(c.Name, exitTime, now)
	w.startContainer(ctx, pod, c, st)
	return 0
}

// startContainer starts a run of c: the image "pull", the runtime's Start
// (with the worker's lock released, as it may take a while), the Created
// and Started events, an exit watcher and the probes.
func (w *podWorker) startContainer(ctx context.Context, pod *api.Pod, c *api.Container, st *containerState) {
	attempt := int32(0)
	if st.current != nil {
		attempt = st.restartCount + 1
	}
	w.pullImage(pod, c)
	// Let the status show the container as creating while the runtime
	// starts it; a fast start merges this into the next status.
	w.publish(pod, false)

	w.mu.Unlock()
	container, err := w.env.runtime.Start(ctx, pod, c, int(attempt))
	w.mu.Lock()
	if ctx.Err() != nil {
		return
	}
	run := &containerRun{container: container, id: newContainerID(), image: c.Image, startedAt: w.env.clock.Now()}
	if err != nil {
		// Upstream reports a container that could not start as one that
		// exited with 128 and reason StartError; the restart policy and
		// back-off then apply as to any other exit.
		w.env.recorder.Eventf(pod, api.EventTypeWarning, eventFailed, "Error: %v", err)
		w.poke() // no exit watcher will: apply the restart policy on the next sync
		run.container = nil
		run.terminated = &api.ContainerStateTerminated{ExitCode: 128, Reason: "StartError", Message: err.Error(),
			StartedAt: api.NewTime(run.startedAt), FinishedAt: api.NewTime(run.startedAt), ContainerID: run.id}
	} else {
		run.startedAt = container.StartedAt()
		w.env.recorder.Eventf(pod, api.EventTypeNormal, eventCreated, msgCreated, c.Name)
		w.env.recorder.Eventf(pod, api.EventTypeNormal, eventStarted, msgStarted, c.Name)
	}
	if st.current != nil {
		st.lastTermination = st.current.terminated
		st.previous = st.current.container
		st.restartCount = attempt
	}
	st.current, st.waiting = run, nil
	if run.container != nil {
		w.watch(ctx, pod, c, run, false, false)
	}
}

// pullImage records the image events upstream's image manager would:
// Pulling and Pulled for imagePullPolicy Always or an image the node has
// not seen, "already present" otherwise. Nothing is downloaded.
func (w *podWorker) pullImage(pod *api.Pod, c *api.Container) {
	present := w.env.images.pulled(c.Image)
	if c.ImagePullPolicy == api.PullAlways || (c.ImagePullPolicy != api.PullNever && !present) {
		w.env.recorder.Eventf(pod, api.EventTypeNormal, eventPulling, msgPulling, c.Image)
		w.env.recorder.Eventf(pod, api.EventTypeNormal, eventPulled, msgPulled, c.Image, time.Duration(0), time.Duration(0), 0)
		return
	}
	w.env.recorder.Eventf(pod, api.EventTypeNormal, eventPulled, msgAlreadyPresent, c.Image)
}

// watch starts the goroutine that notices run's exit, and its probes
// (seeded, for an adopted run, with its last reported readiness and start).
func (w *podWorker) watch(ctx context.Context, pod *api.Pod, c *api.Container, run *containerRun, wasReady, wasStarted bool) {
	run.exited = make(chan struct{})
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		<-run.container.Done()
		run.finishedAt = w.env.clock.Now()
		close(run.exited)
		w.poke()
	}()
	target := probeTarget{
		prober:    proberFor(run.container, w.env.runtime),
		pod:       w.currentPod,
		container: c,
		startedAt: run.startedAt,
		clock:     w.env.clock,
		wake:      w.poke,
		unhealthy: func(kind probeKind, output string) {
			w.env.recorder.Eventf(w.currentPod(), api.EventTypeWarning, eventUnhealthy, msgProbeFailed, kind, output)
		},
		changed: func(kind probeKind, ok bool, results, threshold int) {
			recordProbeChange(w.env.journal, w.currentPod(), c, kind, ok, results, threshold)
		},
	}
	run.probes = startProbes(ctx, target, wasReady, wasStarted)
}

// collectExits turns the exits the watchers noticed into terminated states.
func (w *podWorker) collectExits() {
	for _, st := range w.containers {
		run := st.current
		if run == nil || run.terminated != nil || run.exited == nil {
			continue
		}
		select {
		case <-run.exited:
		default:
			continue
		}
		code := run.container.ExitCode()
		run.terminated = &api.ContainerStateTerminated{ExitCode: int32(code), Reason: run.container.Reason(),
			StartedAt: api.NewTime(run.startedAt), FinishedAt: api.NewTime(run.finishedAt), ContainerID: run.id}
		run.probes.stop()
	}
}

// observePod shows the latest pod to runs that want to see it.
func (w *podWorker) observePod(pod *api.Pod) {
	for _, st := range w.containers {
		if st.current.isRunning() {
			if o, ok := st.current.container.(runtime.PodObserver); ok {
				o.ObservePod(pod)
			}
		}
	}
}

// publish hands the pod's current status to the status manager.
func (w *podWorker) publish(pod *api.Pod, podIsTerminal bool) {
	w.env.status.SetPodStatus(pod, w.buildStatus(pod, podIsTerminal))
}

// buildStatus is the pod's API status from the worker's state.
func (w *podWorker) buildStatus(pod *api.Pod, podIsTerminal bool) api.PodStatus {
	defaultReason := reasonContainerCreating
	if len(pod.Spec.InitContainers) > 0 {
		defaultReason = reasonPodInitializing
	}
	var initStatuses []api.ContainerStatus
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		initStatuses = append(initStatuses, containerStatusFor(c, w.containers[c.Name], defaultReason, !isRestartableInit(c)))
	}
	statuses := make([]api.ContainerStatus, 0, len(pod.Spec.Containers))
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		statuses = append(statuses, containerStatusFor(c, w.containers[c.Name], defaultReason, false))
	}

	phase := podPhase(pod, append(append([]api.ContainerStatus{}, statuses...), initStatuses...), podIsTerminal)
	if podIsTerminal && phase != api.PodSucceeded && phase != api.PodFailed {
		phase = api.PodFailed // deleted before every container ran to an end
	}
	if w.failReason != "" {
		phase = api.PodFailed
	}
	if old := pod.Status.Phase; old == api.PodSucceeded || old == api.PodFailed {
		phase = old // a pod never leaves a terminal phase
	}
	status := api.PodStatus{
		Phase:                 phase,
		Conditions:            podConditions(pod, initStatuses, statuses, phase, w.sandboxReady),
		Reason:                w.failReason,
		Message:               w.failMessage,
		HostIP:                w.env.nodeIP,
		HostIPs:               []api.HostIP{{IP: w.env.nodeIP}},
		PodIP:                 w.podIP,
		StartTime:             w.startTime,
		InitContainerStatuses: initStatuses,
		ContainerStatuses:     statuses,
		QOSClass:              pod.Status.QOSClass,
	}
	if w.podIP != "" {
		status.PodIPs = []api.PodIP{{IP: w.podIP}}
	}
	return status
}

// state returns the record of a container, creating it.
func (w *podWorker) state(name string) *containerState {
	st, ok := w.containers[name]
	if !ok {
		st = &containerState{name: name}
		w.containers[name] = st
	}
	return st
}

// stopAllProbes ends every run's probes (the worker is going away) and
// returns them, to be waited for once the lock is released.
func (w *podWorker) stopAllProbes() []*runProbes {
	w.mu.Lock()
	defer w.mu.Unlock()
	var all []*runProbes
	for _, st := range w.containers {
		if st.current != nil && st.current.probes != nil {
			st.current.probes.stop()
			all = append(all, st.current.probes)
		}
	}
	return all
}
