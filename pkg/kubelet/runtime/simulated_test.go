package runtime

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"kplane/pkg/api"
)

func simTestPod(policy api.RestartPolicy, annotations map[string]string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default", Annotations: annotations},
		Spec: api.PodSpec{RestartPolicy: policy,
			InitContainers: []api.Container{{Name: "init"}},
			Containers:     []api.Container{{Name: "app"}, {Name: "side"}}},
	}
}

func TestSimPlanFor(t *testing.T) {
	tests := []struct {
		name        string
		policy      api.RestartPolicy
		annotations map[string]string
		container   string
		attempt     int
		want        simPlan
	}{
		{"Always runs forever", api.RestartPolicyAlways, nil, "app", 0, simPlan{forever: true, reason: "Completed"}},
		{"Never runs a second", api.RestartPolicyNever, nil, "app", 0, simPlan{runFor: time.Second, reason: "Completed"}},
		{"init containers run a second", api.RestartPolicyAlways, nil, "init", 0, simPlan{runFor: time.Second, reason: "Completed"}},
		{"run-seconds as seconds", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/run-seconds": "2.5"}, "app", 0,
			simPlan{runFor: 2500 * time.Millisecond, reason: "Completed"}},
		{"per-container wins", api.RestartPolicyNever,
			map[string]string{"sim.kplane.io/run-seconds": "1m", "sim.kplane.io/run-seconds.app": "forever"}, "app", 0,
			simPlan{forever: true, reason: "Completed"}},
		{"the pod-wide value applies to the others", api.RestartPolicyNever,
			map[string]string{"sim.kplane.io/run-seconds": "1m", "sim.kplane.io/run-seconds.app": "forever"}, "side", 0,
			simPlan{runFor: time.Minute, reason: "Completed"}},
		{"exit-code", api.RestartPolicyNever, map[string]string{"sim.kplane.io/exit-code": "2"}, "app", 0,
			simPlan{runFor: time.Second, exitCode: 2, reason: "Error"}},
		{"crash-after exits 1", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/crash-after": "3s"}, "app", 0,
			simPlan{runFor: 3 * time.Second, exitCode: 1, reason: "Error"}},
		{"crash-after with an exit code", api.RestartPolicyAlways,
			map[string]string{"sim.kplane.io/crash-after": "3s", "sim.kplane.io/exit-code": "42"}, "app", 0,
			simPlan{runFor: 3 * time.Second, exitCode: 42, reason: "Error"}},
		{"crash-count reached: runs normally", api.RestartPolicyAlways,
			map[string]string{"sim.kplane.io/crash-after": "3s", "sim.kplane.io/crash-count": "2"}, "app", 2,
			simPlan{forever: true, reason: "Completed"}},
		{"oom-after", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/oom-after": "5s"}, "app", 0,
			simPlan{runFor: 5 * time.Second, exitCode: 137, reason: "OOMKilled"}},
		{"a bad value is ignored", api.RestartPolicyNever, map[string]string{"sim.kplane.io/run-seconds": "soon"}, "app", 0,
			simPlan{runFor: time.Second, reason: "Completed"}},
		{"start delay, stop time and logs", api.RestartPolicyAlways, map[string]string{
			"sim.kplane.io/start-delay": "2s", "sim.kplane.io/stop-seconds": "7", "sim.kplane.io/logs": "hello"}, "app", 0,
			simPlan{forever: true, reason: "Completed", startDelay: 2 * time.Second, stopAfter: 7 * time.Second, logs: "hello"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := simTestPod(tt.policy, tt.annotations)
			c := &api.Container{Name: tt.container}
			got, problems := simPlanFor(pod, c, tt.attempt)
			if got != tt.want {
				t.Errorf("plan = %+v, want %+v", got, tt.want)
			}
			if strings.Contains(tt.name, "bad value") != (len(problems) > 0) {
				t.Errorf("problems = %v", problems)
			}
		})
	}
}

func TestSimProbeResult(t *testing.T) {
	tests := []struct {
		value string
		age   time.Duration
		want  bool
	}{
		{"succeed", time.Hour, true},
		{"fail", 0, false},
		{"fail-after:10s", 9 * time.Second, true},
		{"fail-after:10s", 10 * time.Second, false},
		{"succeed-after:5", 4 * time.Second, false},
		{"succeed-after:5", 5 * time.Second, true},
		{"nonsense", 0, true},
	}
	for _, tt := range tests {
		if got := simProbeResult(tt.value, tt.age); got != tt.want {
			t.Errorf("simProbeResult(%q, %v) = %v, want %v", tt.value, tt.age, got, tt.want)
		}
	}
}

func TestSimulatedRuns(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string
		stopGrace   time.Duration // 0: not stopped
		wantAfter   time.Duration
		wantCode    int
		wantReason  string
	}{
		{"exits by itself", map[string]string{"sim.kplane.io/run-seconds": "3s", "sim.kplane.io/exit-code": "4"}, 0, 3 * time.Second, 4, "Error"},
		{"stops within the grace period", map[string]string{"sim.kplane.io/stop-seconds": "2"}, 30 * time.Second, 2 * time.Second, 0, "Completed"},
		{"killed after the grace period", map[string]string{"sim.kplane.io/stop-seconds": "60"}, 5 * time.Second, 5 * time.Second, 137, "Error"},
		{"OOM-killed", map[string]string{"sim.kplane.io/oom-after": "1s"}, 0, time.Second, 137, "OOMKilled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				pod := simTestPod(api.RestartPolicyAlways, tt.annotations)
				start := time.Now()
				c, err := NewSimulated(nil, nil).Start(ctx, pod, &pod.Spec.Containers[0], 0)
				if err != nil {
					t.Fatal(err)
				}
				if tt.stopGrace > 0 {
					c.Stop(tt.stopGrace)
				}
				<-c.Done()
				if took := time.Since(start); took != tt.wantAfter || c.ExitCode() != tt.wantCode || c.Reason() != tt.wantReason {
					t.Errorf("exited after %v with %d %s, want %v %d %s", took, c.ExitCode(), c.Reason(), tt.wantAfter, tt.wantCode, tt.wantReason)
				}
			})
		})
	}
}

func TestSimulatedStartDelayLogsUsageAndAdopt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		pod := simTestPod(api.RestartPolicyNever, map[string]string{
			"sim.kplane.io/start-delay": "2s", "sim.kplane.io/run-seconds": "10s",
			"sim.kplane.io/logs": "line one\nline two", "sim.kplane.io/cpu.app": "250m", "sim.kplane.io/memory": "64Mi"})
		rt := NewSimulated(nil, nil)
		rt.noise = func() float64 { return 0 }
		start := time.Now()
		c, err := rt.Start(ctx, pod, &pod.Spec.Containers[0], 0)
		if err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited != 2*time.Second || !c.StartedAt().Equal(start.Add(2*time.Second)) {
			t.Errorf("start delay %v, startedAt %v", waited, c.StartedAt())
		}
		time.Sleep(4 * time.Second) // the bubble's clock: exactly 4 s at 250m
		if u := c.Usage(); u.UsageNanoCores != 250e6 || u.WorkingSetBytes != 64<<20 || u.UsageCoreNanoSeconds != 1e9 {
			t.Errorf("usage after 4 s = %+v, want 250m, 64Mi and 1 core-second", u)
		}
		// An annotation change counts from the moment the pod is observed.
		updated := api.DeepCopy(pod)
		updated.Annotations["sim.kplane.io/cpu.app"] = "900m"
		c.(PodObserver).ObservePod(updated)
		time.Sleep(2 * time.Second)
		if u := c.Usage(); u.UsageNanoCores != 900e6 || u.UsageCoreNanoSeconds != 2.8e9 {
			t.Errorf("usage 2 s after an annotation change = %+v, want 900m and 1 + 1.8 core-seconds", u)
		}

		follow := c.Logs(true)
		got, _ := io.ReadAll(follow) // returns when the run exits, 10 s later
		if string(got) != "line one\nline two\n" || time.Since(start) != 12*time.Second {
			t.Errorf("followed logs %q until %v", got, time.Since(start))
		}

		// A kubelet restarted 5 s into a 10 s run adopts it: it exits 5 s later.
		restartedAt := time.Now()
		status := &api.ContainerStatus{State: api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: api.NewTime(restartedAt.Add(-5 * time.Second))}}}
		adopted, ok := rt.Adopt(ctx, pod, &pod.Spec.Containers[0], status)
		if !ok {
			t.Fatal("Adopt refused a running container")
		}
		<-adopted.Done()
		if took := time.Since(restartedAt); took != 5*time.Second {
			t.Errorf("the adopted run exited after %v, want 5s", took)
		}
	})
}

func TestSimulatedProbeOutput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		pod := simTestPod(api.RestartPolicyAlways, map[string]string{"sim.kplane.io/readiness.app": "fail", "sim.kplane.io/liveness": "fail-after:1m"})
		pod.Status.PodIP = "10.244.1.7"
		app := &pod.Spec.Containers[0]
		app.ReadinessProbe = &api.Probe{ProbeHandler: api.ProbeHandler{HTTPGet: &api.HTTPGetAction{Port: api.FromInt(80)}}}
		app.LivenessProbe = &api.Probe{ProbeHandler: api.ProbeHandler{TCPSocket: &api.TCPSocketAction{Port: api.FromInt(6379)}}}
		c, _ := NewSimulated(nil, nil).Start(ctx, pod, app, 0)
		prober := c.(Prober)
		if ok, out := prober.Probe(ctx, pod, app, app.ReadinessProbe); ok || out != "HTTP probe failed with statuscode: 503" {
			t.Errorf("readiness = %v %q", ok, out)
		}
		if ok, _ := prober.Probe(ctx, pod, app, app.LivenessProbe); !ok {
			t.Errorf("liveness failed before its time")
		}
		time.Sleep(time.Minute)
		if ok, out := prober.Probe(ctx, pod, app, app.LivenessProbe); ok || out != "dial tcp 10.244.1.7:6379: connect: connection refused" {
			t.Errorf("liveness = %v %q", ok, out)
		}
	})
}

func TestRuntimeRegistry(t *testing.T) {
	if !slices.Contains(Names(), SimulatedName) {
		t.Errorf("Names() = %v, want it to include %q", Names(), SimulatedName)
	}
	rt, err := New(SimulatedName, Config{NodeName: "node1"})
	if err != nil || rt.Name() != SimulatedName {
		t.Errorf("New(simulated) = %v, %v", rt, err)
	}
	if _, err := New("docker", Config{}); err == nil || !strings.Contains(err.Error(), "unknown container runtime") {
		t.Errorf("New(docker) = %v", err)
	}
}

// TestSimulatedUsageNoise checks the load model's noise on real samples: a
// noisy container never reports above its figure nor more than 2 % below,
// and its counter's rate between two samples is the rate the first sample
// drew for the stretch after it.
func TestSimulatedUsageNoise(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		pod := simTestPod(api.RestartPolicyAlways, map[string]string{"sim.kplane.io/cpu": "150m", "sim.kplane.io/memory": "100Mi"})
		rt := NewSimulated(nil, nil)
		draws := []float64{0.5, 0.99, 0.25, 0.75, 0.1, 0.9}
		rt.noise = func() float64 { d := draws[0]; draws = append(draws[1:], d); return d }
		c, err := rt.Start(ctx, pod, &pod.Spec.Containers[0], 0)
		if err != nil {
			t.Fatal(err)
		}
		prev := c.Usage()
		for range 5 {
			time.Sleep(15 * time.Second)
			u := c.Usage()
			rate := (u.UsageCoreNanoSeconds - prev.UsageCoreNanoSeconds) / 15
			if u.UsageNanoCores > 150e6 || u.UsageNanoCores < 147e6 || u.WorkingSetBytes > 100<<20 || u.WorkingSetBytes < 98<<20 {
				t.Errorf("sample %+v outside [98 %%, 100 %%] of 150m, 100Mi", u)
			}
			if rate != u.UsageNanoCores {
				t.Errorf("counter rate %d nanocores, sample says %d", rate, u.UsageNanoCores)
			}
			prev = u
		}
		c.Stop(0)
		<-c.Done()
		if u := c.Usage(); u != (Usage{}) {
			t.Errorf("usage after exit = %+v, want zero", u)
		}
	})
}

// TestSimPlanForASleepCommand: a container whose command only sleeps runs
// as long as the sleep, under any restartPolicy (`kubectl run --restart=Never
// -- sleep 3600` stays Running for an hour, as on a real node); an
// annotation still wins, and any other command keeps the defaults.
func TestSimPlanForASleepCommand(t *testing.T) {
	tests := []struct {
		name        string
		policy      api.RestartPolicy
		annotations map[string]string
		container   api.Container
		want        simPlan
	}{
		{"sleep 3600 under Never", api.RestartPolicyNever, nil,
			api.Container{Name: "app", Image: "busybox", Args: []string{"sleep", "3600"}}, simPlan{runFor: time.Hour, reason: "Completed"}},
		{"sh -c sleep under Always exits", api.RestartPolicyAlways, nil,
			api.Container{Name: "app", Command: []string{"/bin/sh", "-c", "exec sleep 2m"}}, simPlan{runFor: 2 * time.Minute, reason: "Completed"}},
		{"sleep infinity", api.RestartPolicyNever, nil,
			api.Container{Name: "app", Command: []string{"sleep", "infinity"}}, simPlan{forever: true, reason: "Completed"}},
		{"run-seconds wins", api.RestartPolicyNever, map[string]string{"sim.kplane.io/run-seconds": "5s"},
			api.Container{Name: "app", Command: []string{"sleep", "3600"}}, simPlan{runFor: 5 * time.Second, reason: "Completed"}},
		{"any other command: the default", api.RestartPolicyNever, nil,
			api.Container{Name: "app", Command: []string{"sh", "-c", "echo hi; sleep 3600"}}, simPlan{runFor: time.Second, reason: "Completed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := simPlanFor(simTestPod(tt.policy, tt.annotations), &tt.container, 0)
			if got != tt.want {
				t.Errorf("plan = %+v, want %+v", got, tt.want)
			}
		})
	}
}
