package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/kubelet"
	"kplane/pkg/kubelet/runtime"
	"kplane/pkg/kubelet/server"
	"kplane/pkg/kubelet/stats"
	"kplane/test/framework"
)

// logsHarness is the node side of `kubectl logs` without a kubelet: the
// kubelet's HTTPS server in front of the process runtime, with the Node and
// Pod objects the test writes itself. It pins down the apiserver's pods/log
// proxy independently of the kubelet's pod workers.
type logsHarness struct {
	a      *framework.APIServer
	c      *client.Client
	rt     *runtime.Process
	port   int32
	mu     sync.Mutex
	runs   map[string][]runtime.Container // namespace/pod/container → runs, oldest first
	cancel context.CancelFunc
}

func newLogsHarness(t *testing.T) *logsHarness {
	t.Helper()
	framework.RequireKubectl(t)
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	rt, err := runtime.NewProcess(runtime.ProcessOptions{RootDir: t.TempDir(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	h := &logsHarness{a: a, c: c, rt: rt, runs: map[string][]runtime.Container{}}
	srv, err := server.New(server.Options{BindAddress: "127.0.0.1", ClientCAPEM: a.CACertPEM(), Lookup: h.lookup, Logger: quiet,
		NodeName: "node1", Reviewer: c})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	t.Cleanup(cancel)
	port, err := srv.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h.port = int32(port)
	h.createNode(t, "node1", "127.0.0.1", h.port)
	return h
}

// lookup is what a kubelet registers with its server.
func (h *logsHarness) lookup(namespace, pod, container string, previous bool) (runtime.Container, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	runs := h.runs[namespace+"/"+pod+"/"+container]
	switch {
	case len(runs) == 0:
		return nil, server.NotFoundf("container %q not found in pod %q", container, pod)
	case previous && len(runs) < 2:
		return nil, fmt.Errorf("previous terminated container %q in pod %q not found", container, pod)
	case previous:
		return runs[len(runs)-2], nil
	}
	return runs[len(runs)-1], nil
}

func (h *logsHarness) createNode(t *testing.T, name, ip string, port int32) {
	t.Helper()
	ctx := context.Background()
	node, err := h.c.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: name}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node.Status.Addresses = []api.NodeAddress{{Type: api.NodeInternalIP, Address: ip}, {Type: api.NodeHostName, Address: name}}
	node.Status.DaemonEndpoints.KubeletEndpoint.Port = port
	if _, err := h.c.Nodes().UpdateStatus(ctx, node, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// createPod creates a pod (bound to nodeName when it is set) with the given
// container statuses.
func (h *logsHarness) createPod(t *testing.T, pod *api.Pod, statuses ...api.ContainerStatus) *api.Pod {
	t.Helper()
	ctx := context.Background()
	if pod.Namespace == "" {
		pod.Namespace = "default"
	}
	created, err := h.c.Pods(pod.Namespace).Create(ctx, pod, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(statuses) > 0 {
		created.Status.ContainerStatuses = statuses
		if created, err = h.c.Pods(pod.Namespace).UpdateStatus(ctx, created, client.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return created
}

// run starts container of pod in the process runtime, as a kubelet's pod
// worker would, and records the run for the server.
func (h *logsHarness) run(t *testing.T, pod *api.Pod, container string) runtime.Container {
	t.Helper()
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name != container {
			continue
		}
		key := pod.Namespace + "/" + pod.Name + "/" + container
		h.mu.Lock()
		attempt := len(h.runs[key])
		h.mu.Unlock()
		run, err := h.rt.Start(context.Background(), pod, &pod.Spec.Containers[i], attempt)
		if err != nil {
			t.Fatalf("start %s: %v", key, err)
		}
		t.Cleanup(func() {
			run.Stop(0)
			<-run.Done()
		})
		h.mu.Lock()
		h.runs[key] = append(h.runs[key], run)
		h.mu.Unlock()
		return run
	}
	t.Fatalf("pod %s has no container %s", pod.Name, container)
	return nil
}

func running(name string) api.ContainerStatus {
	return api.ContainerStatus{Name: name, State: api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: api.Now()}}}
}

func shPod(name string, script string) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name},
		Spec: api.PodSpec{NodeName: "node1", RestartPolicy: api.RestartPolicyNever,
			Containers: []api.Container{{Name: "main", Image: "busybox", Command: []string{"sh", "-c", script}}}}}
}

// TestPodLogsProxiedToKubelet drives `kubectl logs` through the apiserver's
// pods/log proxy to a kubelet server: plain, --tail, -f and --previous, and
// the errors upstream gives when there is nothing to show.
func TestPodLogsProxiedToKubelet(t *testing.T) {
	h := newLogsHarness(t)

	t.Run("logs and tail of a finished container", func(t *testing.T) {
		pod := h.createPod(t, shPod("done", "for i in 1 2 3; do echo line $i; done"), running("main"))
		<-h.run(t, pod, "main").Done()
		if got := h.a.MustKubectl(t, "logs", "done"); got != "line 1\nline 2\nline 3\n" {
			t.Errorf("kubectl logs = %q", got)
		}
		if got := h.a.MustKubectl(t, "logs", "done", "--tail=1"); got != "line 3\n" {
			t.Errorf("kubectl logs --tail=1 = %q", got)
		}
		out := h.a.MustKubectl(t, "logs", "done", "--timestamps")
		if ts, text, _ := strings.Cut(strings.Split(out, "\n")[0], " "); text != "line 1" || !strings.HasPrefix(ts, fmt.Sprint(time.Now().UTC().Year())) {
			t.Errorf("kubectl logs --timestamps = %q", out)
		}
	})

	t.Run("follow ends when the container exits", func(t *testing.T) {
		pod := h.createPod(t, shPod("counter", "for i in 1 2 3; do echo $i; sleep 0.3; done"), running("main"))
		run := h.run(t, pod, "main")
		if got := h.a.MustKubectl(t, "logs", "-f", "counter"); got != "1\n2\n3\n" {
			t.Errorf("kubectl logs -f = %q", got)
		}
		select {
		case <-run.Done():
		default:
			t.Error("kubectl logs -f returned while the container was running")
		}
	})

	t.Run("follow streams each line as it is printed", func(t *testing.T) {
		gate := filepath.Join(t.TempDir(), "gate")
		pod := h.createPod(t, shPod("gated", `echo before; while [ ! -e "$0" ]; do sleep 0.01; done; echo after`), running("main"))
		pod.Spec.Containers[0].Args = []string{gate}
		h.run(t, pod, "main")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		resp := h.a.Stream(t, ctx, "/api/v1/namespaces/default/pods/gated/log?follow=true")
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(resp.Body)
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		lines := bufio.NewReader(resp.Body)
		// "before" arrives while the container waits for the gate, so the
		// proxy is not buffering until the end.
		if line, err := lines.ReadString('\n'); err != nil || line != "before\n" {
			t.Fatalf("first line %q, %v", line, err)
		}
		if err := os.WriteFile(gate, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		rest, err := io.ReadAll(lines)
		if err != nil || string(rest) != "after\n" {
			t.Errorf("rest = %q, %v", rest, err)
		}
	})

	t.Run("previous run", func(t *testing.T) {
		pod := shPod("restarted", "echo run $RUN")
		pod.Spec.Containers[0].Env = []api.EnvVar{{Name: "RUN", Value: "one"}}
		status := running("main")
		status.LastTerminationState.Terminated = &api.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}
		created := h.createPod(t, pod, status)
		<-h.run(t, created, "main").Done()
		created.Spec.Containers[0].Env[0].Value = "two"
		<-h.run(t, created, "main").Done()
		if got := h.a.MustKubectl(t, "logs", "restarted"); got != "run two\n" {
			t.Errorf("kubectl logs = %q", got)
		}
		if got := h.a.MustKubectl(t, "logs", "restarted", "--previous"); got != "run one\n" {
			t.Errorf("kubectl logs --previous = %q", got)
		}
	})

	h.createNode(t, "faraway", "10.0.0.5", h.port)
	errorCases := []struct {
		name    string
		pod     *api.Pod
		status  []api.ContainerStatus
		args    []string
		wantErr string
	}{
		{name: "not scheduled", pod: &api.Pod{ObjectMeta: api.ObjectMeta{Name: "pending"},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "main", Image: "busybox"}}}},
			wantErr: "Error from server (BadRequest): pod pending does not have a host assigned"},
		{name: "container waiting", pod: shPod("creating", "true"),
			status:  []api.ContainerStatus{{Name: "main", State: api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: "ContainerCreating"}}}},
			wantErr: `Error from server (BadRequest): container "main" in pod "creating" is waiting to start: ContainerCreating`},
		{name: "no previous run", pod: shPod("fresh", "true"), status: []api.ContainerStatus{running("main")}, args: []string{"--previous"},
			wantErr: `Error from server (BadRequest): previous terminated container "main" in pod "fresh" not found`},
		{name: "kubelet does not know the container", pod: shPod("unknown", "true"), status: []api.ContainerStatus{running("main")},
			wantErr: "Error from server (NotFound): the server could not find the requested resource ( pods/log unknown)"},
		{name: "node that is not on loopback", pod: func() *api.Pod { p := shPod("remote", "true"); p.Spec.NodeName = "faraway"; return p }(),
			status:  []api.ContainerStatus{running("main")},
			wantErr: `Error from server: node "faraway" has InternalIP 10.0.0.5: kplane's apiserver only dials kubelets on 127.0.0.1 or ::1`},
	}
	for _, tt := range errorCases {
		t.Run(tt.name, func(t *testing.T) {
			h.createPod(t, tt.pod, tt.status...)
			r := h.a.Kubectl(t, "", append([]string{"logs", tt.pod.Name}, tt.args...)...)
			if r.Err == nil {
				t.Fatalf("kubectl logs succeeded: %q", r.Stdout)
			}
			if got := strings.TrimSpace(r.Stderr); got != tt.wantErr {
				t.Errorf("stderr = %q\nwant     %q", got, tt.wantErr)
			}
		})
	}

	t.Run("several containers and no name", func(t *testing.T) {
		pod := shPod("pair", "true")
		pod.Spec.Containers = append(pod.Spec.Containers, api.Container{Name: "sidecar", Image: "busybox", Command: []string{"true"}})
		h.createPod(t, pod)
		// kubectl itself picks the first container ("Defaulted container …"),
		// so ask the API directly for upstream's error.
		for path, want := range map[string]string{
			"/api/v1/namespaces/default/pods/pair/log":                "a container name must be specified for pod pair, choose one of: [main sidecar]",
			"/api/v1/namespaces/default/pods/pair/log?container=nope": "container nope is not valid for pod pair",
		} {
			resp := h.a.Do(t, http.MethodGet, path, nil)
			if resp.Code != http.StatusBadRequest || !strings.Contains(string(resp.Body), want) {
				t.Errorf("GET %s: %d %s; want 400 %q", path, resp.Code, resp.Body, want)
			}
		}
	})
}

// startKubelet runs an in-process kubelet for node1 with the named runtime
// and the kubelet's HTTPS server (logs, exec, port-forward), as the kubelet
// binary wires them, and stops it when the test ends.
func startKubelet(t *testing.T, a *framework.APIServer, c *client.Client, runtimeName string) {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("KPLANE_TEST_LOGS") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	opts := kubelet.DefaultOptions()
	opts.Client, opts.NodeName, opts.Logger, opts.Runtime = c, "node1", logger, runtimeName
	if runtimeName == runtime.ProcessName {
		rootDir := t.TempDir()
		opts.NewRuntime = func(cfg runtime.Config) (runtime.Runtime, error) {
			return runtime.NewProcess(runtime.ProcessOptions{RootDir: rootDir, Logger: cfg.Logger})
		}
	}
	// The kubelet's server, trusting the cluster CA as the kubelet binary
	// does from its kubeconfig.
	opts.Server = func(ctx context.Context, env kubelet.ServerEnv) (int32, error) {
		return server.StartServer(ctx, a.CACertPEM(), env.Client, nil, env.Containers, env.Logger)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- kubelet.Run(ctx, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("kubelet: %v", err)
		}
	})
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		node, err := c.Nodes().Get(context.Background(), "node1", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		port := node.Status.DaemonEndpoints.KubeletEndpoint.Port
		return port != 0, fmt.Sprintf("node1 kubelet port %d", port)
	})
}

// createAndBind creates a bare pod and binds it to node1, as the scheduler
// would.
func createAndBind(t *testing.T, c *client.Client, pod *api.Pod) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Pods("default").Create(ctx, pod, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &api.Binding{ObjectMeta: api.ObjectMeta{Name: pod.Name, Namespace: "default"},
		Target: api.ObjectReference{Kind: "Node", Name: "node1"}}
	if err := c.Bind(ctx, binding); err != nil {
		t.Fatal(err)
	}
}

// waitForPhase waits until the pod reaches phase and returns it.
func waitForPhase(t *testing.T, c *client.Client, name string, phase api.PodPhase, timeout time.Duration) *api.Pod {
	t.Helper()
	var pod *api.Pod
	framework.Eventually(t, timeout, func() (bool, string) {
		var err error
		if pod, err = c.Pods("default").Get(context.Background(), name, client.GetOptions{}); err != nil {
			return false, err.Error()
		}
		return pod.Status.Phase == phase, fmt.Sprintf("phase %s, container statuses %+v", pod.Status.Phase, pod.Status.ContainerStatuses)
	})
	return pod
}

// piCommand is the container command of the seeds' Job (job.yaml, "pi").
var piCommand = []string{"perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"}

// TestProcessRuntimeKubelet runs the seeds' Job pod template as a bare pod
// on a kubelet with the process runtime: perl really computes pi, the pod
// ends as perl ends, and `kubectl logs` prints what perl printed. It also
// follows a running container with `kubectl logs -f`, and reads a busy
// container's real CPU use through the node proxy's /stats/summary.
func TestProcessRuntimeKubelet(t *testing.T) {
	framework.RequireKubectl(t)
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startKubelet(t, a, c, runtime.ProcessName)

	t.Run("pi", func(t *testing.T) {
		if _, err := exec.LookPath("perl"); err != nil {
			t.Skip("SKIP: perl is not installed on this machine; the process runtime runs the seeds' pi Job with the local perl")
		}
		// What this machine's perl prints is the ground truth: the pod must
		// end as the same command ends here, with the same output.
		local := exec.Command(piCommand[0], piCommand[1:]...)
		var localOut bytes.Buffer
		local.Stdout, local.Stderr = &localOut, &localOut
		localErr := local.Run()

		createAndBind(t, c, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "pi"},
			Spec: api.PodSpec{RestartPolicy: api.RestartPolicyNever,
				Containers: []api.Container{{Name: "pi", Image: "perl", Command: piCommand}}}})
		if localErr == nil {
			waitForPhase(t, c, "pi", api.PodSucceeded, 2*time.Minute)
			digits := a.MustKubectl(t, "logs", "pi")
			if digits != localOut.String() {
				t.Errorf("kubectl logs pi differs from perl's own output:\n%q\n%q", digits, localOut.String())
			}
			if !strings.HasPrefix(digits, "3.14159265358979") || len(strings.TrimSpace(digits)) != 2001 {
				t.Errorf("kubectl logs pi = %.40q… (%d bytes), want 2000 digits of pi", digits, len(digits))
			}
			return
		}
		// Some perl builds (Debian's 5.36 with bignum 0.65) die in
		// Math::BigInt::Calc on bpi(2000). The pod must then fail exactly as
		// the command does, and its logs must say why.
		t.Logf("this machine's perl cannot run the seeds' command (%v): %s", localErr, localOut.String())
		pod := waitForPhase(t, c, "pi", api.PodFailed, 2*time.Minute)
		wantCode := int32(local.ProcessState.ExitCode())
		if term := pod.Status.ContainerStatuses[0].State.Terminated; term == nil || term.ExitCode != wantCode || term.Reason != "Error" {
			t.Errorf("terminated state = %+v, want exit code %d and reason Error", term, wantCode)
		}
		if got := a.MustKubectl(t, "logs", "pi"); got != localOut.String() {
			t.Errorf("kubectl logs pi = %q, want perl's output %q", got, localOut.String())
		}
		// The same digits through Math::BigFloat directly, which that perl
		// computes: the process runtime itself does print 2000 digits.
		createAndBind(t, c, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "pi-bigfloat"},
			Spec: api.PodSpec{RestartPolicy: api.RestartPolicyNever,
				Containers: []api.Container{{Name: "pi", Image: "perl",
					Command: []string{"perl", "-MMath::BigFloat", "-wle", "print Math::BigFloat->bpi(2000)"}}}}})
		waitForPhase(t, c, "pi-bigfloat", api.PodSucceeded, 2*time.Minute)
		digits := a.MustKubectl(t, "logs", "pi-bigfloat")
		if !strings.HasPrefix(digits, "3.14159265358979") || len(strings.TrimSpace(digits)) != 2001 {
			t.Errorf("kubectl logs pi-bigfloat = %.40q… (%d bytes), want 2000 digits of pi", digits, len(digits))
		}
	})

	t.Run("logs -f follows until the container exits", func(t *testing.T) {
		createAndBind(t, c, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "count"},
			Spec: api.PodSpec{RestartPolicy: api.RestartPolicyNever,
				Containers: []api.Container{{Name: "count", Image: "busybox",
					Command: []string{"sh", "-c", "for i in 1 2 3; do echo $i; sleep 0.3; done"}}}}})
		waitForRunningOrDone(t, c, "count")
		if got := a.MustKubectl(t, "logs", "-f", "count"); got != "1\n2\n3\n" {
			t.Errorf("kubectl logs -f count = %q, want the three lines", got)
		}
		waitForPhase(t, c, "count", api.PodSucceeded, 30*time.Second)
	})

	t.Run("the Summary API reports a busy process's real CPU from /proc", func(t *testing.T) {
		// A busy loop that ends by itself: the process runtime leaves
		// containers running when the kubelet stops, so it must not
		// outlive the test.
		createAndBind(t, c, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "busy"},
			Spec: api.PodSpec{RestartPolicy: api.RestartPolicyNever,
				Containers: []api.Container{{Name: "loop", Image: "busybox",
					Command: []string{"timeout", "15", "sh", "-c", "while :; do :; done"}}}}})
		waitForRunningOrDone(t, c, "busy")
		framework.Eventually(t, 12*time.Second, func() (bool, string) {
			resp := a.Do(t, "GET", "/api/v1/nodes/node1/proxy/stats/summary", nil)
			var summary stats.Summary
			if err := json.Unmarshal(resp.Body, &summary); err != nil {
				return false, fmt.Sprintf("%d %s", resp.Code, resp.Body)
			}
			for _, pod := range summary.Pods {
				if pod.PodRef.Name != "busy" || len(pod.Containers) != 1 {
					continue
				}
				ctr := pod.Containers[0]
				total, rate, memory := *ctr.CPU.UsageCoreNanoSeconds, *ctr.CPU.UsageNanoCores, *ctr.Memory.WorkingSetBytes
				// One busy process: some CPU time, at most about one core.
				return total >= 2e8 && rate > 0 && rate < 1.2e9 && memory > 0,
					fmt.Sprintf("busy: %d core-ns, %d nanocores, %d bytes", total, rate, memory)
			}
			return false, fmt.Sprintf("no busy pod in %s", resp.Body)
		})
		// Stop the loop now, through the kubelet, rather than in 15 s.
		if err := c.Pods("default").Delete(context.Background(), "busy", client.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		framework.Eventually(t, 30*time.Second, func() (bool, string) {
			_, err := c.Pods("default").Get(context.Background(), "busy", client.GetOptions{})
			return apierrors.IsNotFound(err), fmt.Sprintf("pod busy still exists (%v)", err)
		})
	})
}

// waitForRunningOrDone waits until the pod's container has started, so
// that `kubectl logs` does not meet "waiting to start: ContainerCreating".
func waitForRunningOrDone(t *testing.T, c *client.Client, name string) {
	t.Helper()
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		pod, err := c.Pods("default").Get(context.Background(), name, client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, cs := range pod.Status.ContainerStatuses {
			if cs.State.Running != nil || cs.State.Terminated != nil {
				return true, ""
			}
		}
		return false, fmt.Sprintf("container statuses %+v", pod.Status.ContainerStatuses)
	})
}
