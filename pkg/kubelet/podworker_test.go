package kubelet

// These tests drive one pod worker with the simulated runtime inside a
// testing/synctest bubble: time is virtual, so restarts, back-offs of
// minutes and probe schedules play out instantly and exactly. Statuses go
// to a fake sink and events to a fake recorder instead of an apiserver.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/debug"
	"kplane/pkg/kubelet/runtime"
)

// fakeSink remembers the last status of each pod.
type fakeSink struct {
	mu         sync.Mutex
	statuses   map[string]api.PodStatus
	terminated map[string]bool
	forgotten  map[string]bool
}

func newFakeSink() *fakeSink {
	return &fakeSink{statuses: map[string]api.PodStatus{}, terminated: map[string]bool{}, forgotten: map[string]bool{}}
}

func (f *fakeSink) SetPodStatus(pod *api.Pod, status api.PodStatus) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.statuses[pod.UID] = status
}

func (f *fakeSink) TerminatePod(pod *api.Pod, status api.PodStatus) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.statuses[pod.UID] = status
	f.terminated[pod.UID] = true
}

func (f *fakeSink) Forget(uid string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forgotten[uid] = true
}

// fakeRecorder remembers events as "Type Reason: message".
type fakeRecorder struct {
	mu     sync.Mutex
	events []string
}

func (r *fakeRecorder) Event(_ api.Object, eventType, reason, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, eventType+" "+reason+": "+message)
}

func (r *fakeRecorder) Eventf(obj api.Object, eventType, reason, format string, args ...any) {
	r.Event(obj, eventType, reason, fmt.Sprintf(format, args...))
}

// count is how many events contain substr.
func (r *fakeRecorder) count(substr string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.events {
		if strings.Contains(e, substr) {
			n++
		}
	}
	return n
}

func (r *fakeRecorder) all() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.events, "\n")
}

// harness is a pod worker running in a bubble.
type harness struct {
	t    *testing.T
	w    *podWorker
	sink *fakeSink
	rec  *fakeRecorder
	ipam *ipam
	// journal holds the worker's decisions (decision_test.go reads them).
	journal *debug.Journal
}

// startWorker runs a worker for pod; it must be called inside a bubble.
func startWorker(t *testing.T, pod *api.Pod) *harness {
	return startWorkerWith(t, pod, newFakeSink(), nil)
}

func startWorkerWith(t *testing.T, pod *api.Pod, sink *fakeSink, a *ipam) *harness {
	t.Helper()
	return startWorkerOn(t, pod, sink, a, nil)
}

// startWorkerOn is startWorkerWith on runtime rt (nil: the simulated one).
func startWorkerOn(t *testing.T, pod *api.Pod, sink *fakeSink, a *ipam, rt runtime.Runtime) *harness {
	t.Helper()
	if a == nil {
		var err error
		if a, err = newIPAM(netip.MustParsePrefix("10.244.1.0/24")); err != nil {
			t.Fatal(err)
		}
	}
	rec := &fakeRecorder{}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if rt == nil {
		rt = runtime.NewSimulated(log, clock.Real{})
	}
	env := &podEnv{nodeIP: "127.0.0.1", runtime: rt, recorder: rec, status: sink,
		ipam: func() *ipam { return a }, images: &imageCache{},
		backOffInitial: defaultBackOffInitial, backOffMax: defaultBackOffMax, clock: clock.Real{}, log: log,
		journal: debug.NewJournal("kubelet", 1000, clock.Real{})}
	w := newPodWorker(env, pod, false)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return &harness{t: t, w: w, sink: sink, rec: rec, ipam: a, journal: env.journal}
}

// at lets virtual time pass until d after the bubble started, then waits
// for every goroutine to settle.
func at(start time.Time, d time.Duration) {
	time.Sleep(time.Until(start.Add(d)))
	synctest.Wait()
}

// status is the pod's last published status.
func (h *harness) status() api.PodStatus {
	h.sink.mu.Lock()
	defer h.sink.mu.Unlock()
	return h.sink.statuses[h.w.uid]
}

// container is the status of the named container.
func (h *harness) container(name string) api.ContainerStatus {
	st := h.status()
	if s, ok := findStatus(append(st.InitContainerStatuses, st.ContainerStatuses...), name); ok {
		return *s
	}
	h.t.Fatalf("no status for container %s in %+v", name, st)
	return api.ContainerStatus{}
}

// testPod is a pod with one container "app" running nginx.
func testPod(name string, policy api.RestartPolicy, annotations map[string]string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name, Annotations: annotations},
		Spec: api.PodSpec{
			RestartPolicy: policy,
			NodeName:      "node1",
			Containers:    []api.Container{{Name: "app", Image: "nginx:1.25", ImagePullPolicy: api.PullIfNotPresent}},
		},
		Status: api.PodStatus{QOSClass: api.PodQOSBestEffort},
	}
}

func stateOf(s api.ContainerStatus) string {
	switch {
	case s.State.Running != nil:
		return "running"
	case s.State.Terminated != nil:
		return fmt.Sprintf("terminated/%s/%d", s.State.Terminated.Reason, s.State.Terminated.ExitCode)
	case s.State.Waiting != nil:
		return "waiting/" + s.State.Waiting.Reason
	}
	return "none"
}

func TestPodStartsRunningAndReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startWorker(t, testPod("web", api.RestartPolicyAlways, nil))
		synctest.Wait()
		st := h.status()
		if st.Phase != api.PodRunning {
			t.Fatalf("phase = %s, want Running", st.Phase)
		}
		if st.PodIP != "10.244.1.2" || len(st.PodIPs) != 1 || st.HostIP != "127.0.0.1" || st.StartTime == nil {
			t.Errorf("podIP=%s podIPs=%v hostIP=%s startTime=%v", st.PodIP, st.PodIPs, st.HostIP, st.StartTime)
		}
		c := h.container("app")
		if c.State.Running == nil || !c.Ready || c.Started == nil || !*c.Started || c.RestartCount != 0 {
			t.Errorf("container status = %+v", c)
		}
		if !strings.HasPrefix(c.ContainerID, "kplane://") || len(c.ContainerID) != len("kplane://")+64 {
			t.Errorf("containerID = %q", c.ContainerID)
		}
		if c.Image != "docker.io/library/nginx:1.25" || !strings.HasPrefix(c.ImageID, "docker.io/library/nginx@sha256:") {
			t.Errorf("image = %q, imageID = %q", c.Image, c.ImageID)
		}
		want := []api.PodConditionType{api.PodReadyToStartContainers, api.PodInitialized, api.PodReady, api.ContainersReady, api.PodScheduled}
		for i, c := range st.Conditions {
			if c.Type != want[i] || c.Status != api.ConditionTrue {
				t.Errorf("condition %d = %s=%s, want %s=True", i, c.Type, c.Status, want[i])
			}
		}
		for _, e := range []string{
			`Normal Pulling: Pulling image "nginx:1.25"`,
			`Normal Created: Created container app`,
			`Normal Started: Started container app`,
		} {
			if h.rec.count(e) != 1 {
				t.Errorf("missing event %q in:\n%s", e, h.rec.all())
			}
		}
	})
}

// TestRestartPolicies checks the phases and restart counts Kubernetes gives
// a container that keeps exiting, under each restartPolicy, including the
// CrashLoopBackOff schedule (restart at once, then after 10 s, 20 s, …).
func TestRestartPolicies(t *testing.T) {
	tests := []struct {
		name        string
		policy      api.RestartPolicy
		annotations map[string]string
		// at is checked at each offset: phase, restart count, state and,
		// for a waiting container, the back-off message's delay.
		at []check
	}{
		{
			name: "Never, crashing: Failed without restarts", policy: api.RestartPolicyNever,
			annotations: map[string]string{"sim.kplane.io/crash-after": "1s"},
			at: []check{
				{500 * time.Millisecond, api.PodRunning, 0, "running", ""},
				{5 * time.Second, api.PodFailed, 0, "terminated/Error/1", ""},
				{time.Minute, api.PodFailed, 0, "terminated/Error/1", ""},
			},
		},
		{
			name: "Never, exiting 0: Succeeded", policy: api.RestartPolicyNever,
			at: []check{{5 * time.Second, api.PodSucceeded, 0, "terminated/Completed/0", ""}},
		},
		{
			name: "OnFailure, crashing: restarts with back-off", policy: api.RestartPolicyOnFailure,
			annotations: map[string]string{"sim.kplane.io/crash-after.app": "1s", "sim.kplane.io/exit-code.app": "3"},
			at: []check{
				// exits at 1 s, restarted at once; exits at 2 s, waits 10 s.
				{1500 * time.Millisecond, api.PodRunning, 1, "running", ""},
				{5 * time.Second, api.PodRunning, 1, "waiting/CrashLoopBackOff", "back-off 10s"},
				// restarted at 12 s, exits at 13 s, waits 20 s.
				{12500 * time.Millisecond, api.PodRunning, 2, "running", ""},
				{20 * time.Second, api.PodRunning, 2, "waiting/CrashLoopBackOff", "back-off 20s"},
				{33500 * time.Millisecond, api.PodRunning, 3, "running", ""},
			},
		},
		{
			name: "OnFailure, exiting 0: Succeeded", policy: api.RestartPolicyOnFailure,
			annotations: map[string]string{"sim.kplane.io/run-seconds": "2"},
			at:          []check{{3 * time.Second, api.PodSucceeded, 0, "terminated/Completed/0", ""}},
		},
		{
			name: "Always, exiting 0: restarted too", policy: api.RestartPolicyAlways,
			annotations: map[string]string{"sim.kplane.io/run-seconds": "1s"},
			at: []check{
				{1500 * time.Millisecond, api.PodRunning, 1, "running", ""},
				{5 * time.Second, api.PodRunning, 1, "waiting/CrashLoopBackOff", "back-off 10s"},
				{12500 * time.Millisecond, api.PodRunning, 2, "running", ""},
			},
		},
		{
			name: "Always, crashing for an hour: back-off capped at 5m0s", policy: api.RestartPolicyAlways,
			annotations: map[string]string{"sim.kplane.io/crash-after": "100ms"},
			// restarts at 0.1, 10.2, 30.3, 70.4, 150.5, 310.6 s, then every
			// 5 min (the cap): the 16th is at 3311 s.
			at: []check{{time.Hour, api.PodRunning, 16, "waiting/CrashLoopBackOff", "back-off 5m0s"}},
		},
		{
			name: "Always, crash-count 2: recovers after two crashes", policy: api.RestartPolicyAlways,
			annotations: map[string]string{"sim.kplane.io/crash-after": "1s", "sim.kplane.io/crash-count": "2"},
			at:          []check{{time.Minute, api.PodRunning, 2, "running", ""}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				pod := testPod("crasher", tt.policy, tt.annotations)
				h := startWorker(t, pod)
				for _, c := range tt.at {
					at(start, c.offset)
					c.verify(t, h)
				}
			})
		})
	}
}

// check is an expectation at a point in virtual time.
type check struct {
	offset   time.Duration
	phase    api.PodPhase
	restarts int32
	state    string
	// backOff, if set, must appear in the waiting message.
	backOff string
}

func (c check) verify(t *testing.T, h *harness) {
	t.Helper()
	st := h.status()
	cs := h.container("app")
	if st.Phase != c.phase || cs.RestartCount != c.restarts || stateOf(cs) != c.state {
		t.Fatalf("at %v: phase=%s restarts=%d state=%s, want %s %d %s\nevents:\n%s",
			c.offset, st.Phase, cs.RestartCount, stateOf(cs), c.phase, c.restarts, c.state, h.rec.all())
	}
	if c.backOff != "" {
		want := fmt.Sprintf("%s restarting failed container=app pod=crasher_default(uid-crasher)", c.backOff)
		if cs.State.Waiting.Message != want {
			t.Errorf("at %v: waiting message = %q, want %q", c.offset, cs.State.Waiting.Message, want)
		}
		if cs.LastTerminationState.Terminated == nil {
			t.Errorf("at %v: a container in back-off has no lastState", c.offset)
		}
	}
}

// TestBackOffResetsAfterLongRun checks that a container that ran for more
// than twice the maximum back-off since its last restart is restarted at
// once instead of waiting.
func TestBackOffResetsAfterLongRun(t *testing.T) {
	tests := []struct {
		runFor        string
		wantBackedOff bool
	}{
		{"5m", true},   // second exit 5 min after the restart: back off
		{"11m", false}, // 11 min > 2 × 5 min: the back-off entry expired
	}
	for _, tt := range tests {
		t.Run(tt.runFor, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				run, _ := time.ParseDuration(tt.runFor)
				h := startWorker(t, testPod("crasher", api.RestartPolicyOnFailure, map[string]string{
					"sim.kplane.io/run-seconds": tt.runFor, "sim.kplane.io/exit-code": "1"}))
				// Exit 1 at run (restart at once), exit 2 at 2×run.
				at(start, 2*run+time.Second)
				cs := h.container("app")
				backedOff := cs.State.Waiting != nil && cs.State.Waiting.Reason == reasonCrashLoopBackOff
				if backedOff != tt.wantBackedOff || (!backedOff && cs.RestartCount != 2) {
					t.Errorf("state=%s restarts=%d, want backed off: %v", stateOf(cs), cs.RestartCount, tt.wantBackedOff)
				}
			})
		})
	}
}

func TestReadinessProbe(t *testing.T) {
	tests := []struct {
		name      string
		value     string
		wantReady map[time.Duration]bool
	}{
		{"fail", "fail", map[time.Duration]bool{500 * time.Millisecond: false, time.Minute: false}},
		{"succeed-after", "succeed-after:5s", map[time.Duration]bool{3 * time.Second: false, 7 * time.Second: true}},
		// Three failures in a row (at 10, 11, 12 s) are needed to go unready.
		{"fail-after", "fail-after:10s", map[time.Duration]bool{2 * time.Second: true, 11500 * time.Millisecond: true, 13 * time.Second: false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				pod := testPod("probed", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/readiness": tt.value})
				pod.Spec.Containers[0].ReadinessProbe = &api.Probe{PeriodSeconds: 1, FailureThreshold: 3, SuccessThreshold: 1,
					ProbeHandler: api.ProbeHandler{HTTPGet: &api.HTTPGetAction{Path: "/healthz", Port: api.FromInt(80)}}}
				h := startWorker(t, pod)
				for _, offset := range sortedOffsets(tt.wantReady) {
					at(start, offset)
					st := h.status()
					ready := condition(st, api.PodReady) == api.ConditionTrue
					if ready != tt.wantReady[offset] || h.container("app").Ready != ready || st.Phase != api.PodRunning {
						t.Fatalf("at %v: Ready=%v phase=%s, want Ready=%v", offset, ready, st.Phase, tt.wantReady[offset])
					}
					if !ready && conditionReason(st, api.PodReady) != reasonContainersNotReady {
						t.Errorf("at %v: Ready reason = %q", offset, conditionReason(st, api.PodReady))
					}
				}
				if tt.value == "fail" && h.rec.count("Warning Unhealthy: Readiness probe failed: HTTP probe failed with statuscode: 503") == 0 {
					t.Errorf("no Unhealthy event:\n%s", h.rec.all())
				}
				if h.container("app").RestartCount != 0 {
					t.Errorf("a readiness probe restarted the container")
				}
			})
		})
	}
}

func TestLivenessProbeRestartsContainer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		pod := testPod("live", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/liveness.app": "fail-after:5s"})
		pod.Spec.Containers[0].LivenessProbe = &api.Probe{InitialDelaySeconds: 1, PeriodSeconds: 1, FailureThreshold: 3, SuccessThreshold: 1,
			ProbeHandler: api.ProbeHandler{TCPSocket: &api.TCPSocketAction{Port: api.FromInt(8080)}}}
		h := startWorker(t, pod)
		at(start, 4*time.Second)
		if cs := h.container("app"); cs.RestartCount != 0 || cs.State.Running == nil {
			t.Fatalf("before the probe fails: %s restarts=%d", stateOf(cs), cs.RestartCount)
		}
		// Failures at 5, 6, 7 s: killed at 7 s, restarted at once.
		at(start, 7500*time.Millisecond)
		cs := h.container("app")
		if cs.RestartCount != 1 || cs.State.Running == nil || cs.LastTerminationState.Terminated == nil {
			t.Fatalf("after the probe failed: %s restarts=%d lastState=%+v\n%s", stateOf(cs), cs.RestartCount, cs.LastTerminationState, h.rec.all())
		}
		for _, e := range []string{
			// The fake sink never writes the IP back into the pod the probe sees.
			"Warning Unhealthy: Liveness probe failed: dial tcp :8080: connect: connection refused",
			"Normal Killing: Container app failed liveness probe, will be restarted",
		} {
			if h.rec.count(e) == 0 {
				t.Errorf("missing event %q in:\n%s", e, h.rec.all())
			}
		}
	})
}

func TestStartupProbeHoldsBackLivenessAndReadiness(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		pod := testPod("slow", api.RestartPolicyAlways, map[string]string{
			"sim.kplane.io/startup": "succeed-after:10s", "sim.kplane.io/liveness": "fail-after:0s"})
		c := &pod.Spec.Containers[0]
		exec := api.ProbeHandler{Exec: &api.ExecAction{Command: []string{"true"}}}
		c.StartupProbe = &api.Probe{PeriodSeconds: 1, FailureThreshold: 30, SuccessThreshold: 1, ProbeHandler: exec}
		c.LivenessProbe = &api.Probe{PeriodSeconds: 1, FailureThreshold: 3, SuccessThreshold: 1, ProbeHandler: exec}
		h := startWorker(t, pod)
		at(start, 5*time.Second)
		cs := h.container("app")
		if *cs.Started || cs.Ready || cs.RestartCount != 0 {
			t.Fatalf("while starting: started=%v ready=%v restarts=%d", *cs.Started, cs.Ready, cs.RestartCount)
		}
		// Started at 10 s; liveness then fails at 10, 11, 12 s.
		at(start, 12500*time.Millisecond)
		if cs := h.container("app"); cs.RestartCount != 1 {
			t.Fatalf("after start: restarts=%d, want 1 (liveness runs once started)\n%s", cs.RestartCount, h.rec.all())
		}
	})
}

func TestInitContainersRunInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		pod := testPod("init", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/run-seconds.second": "2s"})
		pod.Spec.InitContainers = []api.Container{{Name: "first", Image: "busybox"}, {Name: "second", Image: "busybox"}}
		h := startWorker(t, pod)
		at(start, 500*time.Millisecond)
		st := h.status()
		if st.Phase != api.PodPending || stateOf(h.container("first")) != "running" ||
			stateOf(h.container("second")) != "waiting/PodInitializing" || stateOf(h.container("app")) != "waiting/PodInitializing" {
			t.Fatalf("during the first init container: %+v", st)
		}
		if got := conditionMessage(st, api.PodInitialized); got != "containers with incomplete status: [first second]" {
			t.Errorf("Initialized message = %q", got)
		}
		at(start, 2*time.Second) // first exits at 1 s, second runs until 3 s
		if stateOf(h.container("first")) != "terminated/Completed/0" || stateOf(h.container("second")) != "running" {
			t.Fatalf("during the second init container: first=%s second=%s", stateOf(h.container("first")), stateOf(h.container("second")))
		}
		at(start, 4*time.Second)
		st = h.status()
		if st.Phase != api.PodRunning || stateOf(h.container("app")) != "running" || condition(st, api.PodInitialized) != api.ConditionTrue {
			t.Fatalf("after init: phase=%s app=%s", st.Phase, stateOf(h.container("app")))
		}
		if !h.container("first").Ready {
			t.Errorf("a completed init container should be ready")
		}
	})
}

func TestFailingInitContainer(t *testing.T) {
	tests := []struct {
		policy    api.RestartPolicy
		wantPhase api.PodPhase
		restarts  int32
	}{
		{api.RestartPolicyNever, api.PodFailed, 0},
		{api.RestartPolicyAlways, api.PodPending, 1}, // retried: once at once, then back-off 10 s
	}
	for _, tt := range tests {
		t.Run(string(tt.policy), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				pod := testPod("badinit", tt.policy, map[string]string{"sim.kplane.io/crash-after.setup": "1s"})
				pod.Spec.InitContainers = []api.Container{{Name: "setup", Image: "busybox"}}
				h := startWorker(t, pod)
				at(start, 5*time.Second)
				st := h.status()
				if st.Phase != tt.wantPhase || h.container("setup").RestartCount != tt.restarts || h.container("app").State.Waiting == nil {
					t.Fatalf("phase=%s setup=%s restarts=%d app=%s", st.Phase, stateOf(h.container("setup")),
						h.container("setup").RestartCount, stateOf(h.container("app")))
				}
			})
		})
	}
}

func TestGracefulTermination(t *testing.T) {
	tests := []struct {
		name        string
		stopSeconds string
		grace       int64
		wantAt      time.Duration
		wantPhase   api.PodPhase
		wantExit    int32
	}{
		{"exits within the grace period", "3", 30, 3 * time.Second, api.PodSucceeded, 0},
		{"killed at the end of the grace period", "60", 5, 5 * time.Second, api.PodFailed, 137},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				pod := testPod("doomed", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/stop-seconds": tt.stopSeconds})
				h := startWorker(t, pod)
				synctest.Wait()
				deleted := api.DeepCopy(pod)
				now := api.NewTime(time.Now())
				deleted.DeletionTimestamp, deleted.DeletionGracePeriodSeconds = &now, &tt.grace
				h.w.update(deleted)
				at(start, tt.wantAt-500*time.Millisecond)
				if h.sink.terminated[pod.UID] || stateOf(h.container("app")) != "running" {
					t.Fatalf("terminated too early: %s", stateOf(h.container("app")))
				}
				at(start, tt.wantAt+500*time.Millisecond)
				st := h.status()
				if !h.sink.terminated[pod.UID] || st.Phase != tt.wantPhase || h.container("app").State.Terminated.ExitCode != tt.wantExit {
					t.Fatalf("terminated=%v phase=%s app=%s", h.sink.terminated[pod.UID], st.Phase, stateOf(h.container("app")))
				}
				if h.rec.count("Normal Killing: Stopping container app") != 1 {
					t.Errorf("events:\n%s", h.rec.all())
				}
				if h.ipam.InUse() != 0 {
					t.Errorf("the pod's IP was not released")
				}
			})
		})
	}
}

func TestActiveDeadlineFailsPod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		pod := testPod("deadline", api.RestartPolicyNever, map[string]string{"sim.kplane.io/run-seconds": "forever"})
		deadline := int64(5)
		pod.Spec.ActiveDeadlineSeconds = &deadline
		h := startWorker(t, pod)
		at(start, 6*time.Second)
		st := h.status()
		if st.Phase != api.PodFailed || st.Reason != "DeadlineExceeded" || st.Message != msgDeadlineExceeded {
			t.Fatalf("phase=%s reason=%s message=%s", st.Phase, st.Reason, st.Message)
		}
	})
}

// TestAdoptAfterRestart checks that a new worker (a restarted kubelet)
// carries on with the containers, IP and restart counts a previous one
// reported, instead of starting the pod over.
func TestAdoptAfterRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		pod := testPod("survivor", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/crash-after": "1s", "sim.kplane.io/crash-count": "1"})
		first := startWorker(t, pod)
		at(start, 5*time.Second) // crashed once, restarted, now running for good
		before := first.status()
		if before.ContainerStatuses[0].RestartCount != 1 {
			t.Fatalf("setup: %+v", before.ContainerStatuses[0])
		}

		// A new kubelet process: fresh IPAM holding the pod's IP, fresh worker.
		a, _ := newIPAM(netip.MustParsePrefix("10.244.1.0/24"))
		a.Reserve(pod.UID, netip.MustParseAddr(before.PodIP))
		restarted := api.DeepCopy(pod)
		restarted.Status = before
		second := startWorkerWith(t, restarted, newFakeSink(), a)
		at(start, 6*time.Second)
		after := second.status()
		b, c := before.ContainerStatuses[0], after.ContainerStatuses[0]
		if after.PodIP != before.PodIP || c.ContainerID != b.ContainerID || c.RestartCount != 1 ||
			c.State.Running == nil || !c.State.Running.StartedAt.Equal(b.State.Running.StartedAt.Time) {
			t.Fatalf("before: ip=%s %+v\nafter: ip=%s %+v", before.PodIP, b, after.PodIP, c)
		}
		if second.rec.count("Started") != 0 {
			t.Errorf("the adopted container was started again:\n%s", second.rec.all())
		}
		if a.InUse() != 1 {
			t.Errorf("IPs in use = %d, want 1", a.InUse())
		}
	})
}

func sortedOffsets(m map[time.Duration]bool) []time.Duration {
	var out []time.Duration
	for d := range m {
		out = append(out, d)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func condition(st api.PodStatus, t api.PodConditionType) api.ConditionStatus {
	for _, c := range st.Conditions {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}

func conditionReason(st api.PodStatus, t api.PodConditionType) string {
	for _, c := range st.Conditions {
		if c.Type == t {
			return c.Reason
		}
	}
	return ""
}

func conditionMessage(st api.PodStatus, t api.PodConditionType) string {
	for _, c := range st.Conditions {
		if c.Type == t {
			return c.Message
		}
	}
	return ""
}
