package cluster

import (
	"context"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer collects console output from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fastRestarts keeps the supervisor's timing tiny so tests take
// milliseconds: restarts after 10 ms, a crash loop is three runs shorter
// than a second each.
var fastRestarts = restartPolicy{initialDelay: 10 * time.Millisecond, maxDelay: 40 * time.Millisecond,
	quickCrash: time.Second, maxQuickCrashes: 3}

// startShellCluster runs each script as a component under /bin/sh, the way
// Up runs binaries, and supervises them until the test ends.
func startShellCluster(t *testing.T, scripts map[string]string, roles map[string]role) (*Cluster, *syncBuffer) {
	t.Helper()
	return startShellClusterWith(t, Options{}, scripts, roles)
}

// startShellClusterWith is startShellCluster with o as the cluster's
// options; DataDir and Out are filled in.
func startShellClusterWith(t *testing.T, o Options, scripts map[string]string, roles map[string]role) (*Cluster, *syncBuffer) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(layout{dir}.logsDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	var plan []component
	for name, script := range scripts {
		plan = append(plan, component{name: name, role: roles[name], args: []string{"/bin/sh", "-c", script}})
	}
	out := &syncBuffer{}
	o.DataDir, o.Out = dir, out
	c, err := newCluster(o, dir, plan)
	if err != nil {
		t.Fatal(err)
	}
	c.restart, c.stopGrace = fastRestarts, 300*time.Millisecond
	for _, p := range c.procs {
		if _, err := c.startProcess(p); err != nil {
			t.Fatal(err)
		}
	}
	c.superviseAll(context.Background())
	t.Cleanup(func() { c.Stop() })
	return c, out
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSupervisorRestartsThenGivesUp(t *testing.T) {
	c, out := startShellCluster(t, map[string]string{
		"crasher": "echo crashing; exit 2",
		"steady":  "while :; do sleep 0.05; done",
	}, nil)

	want := "crasher exited: exit status 2; it crashed 3 times within 1s of starting, so it is not restarted again"
	waitFor(t, "the supervisor to give up", func() bool { return strings.Contains(out.String(), want) })
	text := out.String()
	for _, line := range []string{
		"crasher exited: exit status 2; restarting in 10ms",
		"crasher exited: exit status 2; restarting in 20ms", // back-off doubles
		"[crasher] crashing",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("output lacks %q:\n%s", line, text)
		}
	}
	crasher := c.procs[processIndex(c, "crasher")]
	if _, restarts := crasher.latest(); restarts != 2 {
		t.Errorf("crasher restarts = %d, want 2 (three runs)", restarts)
	}
	log, _ := os.ReadFile(c.layout.logFile("crasher"))
	if got := strings.Count(string(log), "crashing\n"); got != 3 {
		t.Errorf("crasher.log has %d lines from its runs, want 3:\n%s", got, log)
	}
	// Giving up on one component leaves the others running.
	select {
	case <-c.stopping:
		t.Fatal("the cluster stopped after giving up on a component other than the apiserver")
	default:
	}
	state, err := ReadState(c.layout.dir)
	if err != nil {
		t.Fatal(err)
	}
	if rec := state.Components["steady"]; !rec.Running() {
		t.Errorf("steady is not running: %+v", rec)
	}
}

func TestSupervisorGivingUpOnTheAPIServerStopsTheCluster(t *testing.T) {
	c, out := startShellCluster(t,
		map[string]string{"apiserver": "exit 1", "kubelet-x": "while :; do sleep 0.05; done"},
		map[string]role{"apiserver": roleAPIServer, "kubelet-x": roleKubelet})
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "apiserver exited: exit status 1") {
			t.Errorf("Wait() = %v, want the apiserver's crash loop", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the cluster did not stop; output:\n%s", out)
	}
	if r, _ := c.procs[processIndex(c, "kubelet-x")].latest(); !r.exited() {
		t.Error("kubelet-x still runs after the cluster stopped")
	}
	if _, err := os.Stat(c.layout.stateFile()); !os.IsNotExist(err) {
		t.Errorf("cluster.json still exists after the stop: %v", err)
	}
}

// haOptions is the HA layout as the supervisor sees it: only whether there
// is one matters to it.
var haOptions = Options{ha: &haLayout{Port: 7443, APIServers: 2, EtcdMembers: []etcdMember{{Name: "etcd-1", ClientPort: 1, PeerPort: 2}}}}

func TestSupervisorGivingUpOnOneHAAPIServerLeavesTheClusterRunning(t *testing.T) {
	c, out := startShellClusterWith(t, haOptions,
		map[string]string{"apiserver-1": "while :; do sleep 0.05; done", "apiserver-2": "exit 1", LoadBalancerComponent: "while :; do sleep 0.05; done"},
		map[string]role{"apiserver-1": roleAPIServer, "apiserver-2": roleAPIServer, LoadBalancerComponent: roleLoadBalancer})
	want := "apiserver-2 exited: exit status 1; it crashed 3 times"
	waitFor(t, "the supervisor to give up", func() bool { return strings.Contains(out.String(), want) })
	// fail would have closed stopping before the message's goroutine returned;
	// give a wrong Stop a moment to show.
	time.Sleep(50 * time.Millisecond)
	select {
	case <-c.stopping:
		t.Fatalf("the cluster stopped after giving up on one of two apiservers:\n%s", out)
	default:
	}
}

func TestSupervisorGivingUpOnTheLoadBalancerStopsTheCluster(t *testing.T) {
	c, out := startShellClusterWith(t, haOptions,
		map[string]string{"apiserver-1": "while :; do sleep 0.05; done", LoadBalancerComponent: "exit 1"},
		map[string]role{"apiserver-1": roleAPIServer, LoadBalancerComponent: roleLoadBalancer})
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), LoadBalancerComponent+" exited: exit status 1") {
			t.Errorf("Wait() = %v, want the load balancer's crash loop", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the cluster did not stop; output:\n%s", out)
	}
}

func TestStopOrderAndSIGKILL(t *testing.T) {
	// The kubelet records when it got SIGTERM; the apiserver records when it
	// got SIGTERM too; "stubborn" ignores SIGTERM and must be killed.
	dir := t.TempDir()
	marker := func(name string) string { return dir + "/" + name }
	c, _ := startShellCluster(t, map[string]string{
		"apiserver": "trap 'date +%s%N > " + marker("apiserver") + "; exit 0' TERM; while :; do sleep 0.01; done",
		"kubelet-a": "trap 'date +%s%N > " + marker("kubelet") + "; exit 0' TERM; while :; do sleep 0.01; done",
		"stubborn":  "trap '' TERM; while :; do sleep 0.01; done",
	}, map[string]role{"apiserver": roleAPIServer, "kubelet-a": roleKubelet, "stubborn": roleController})

	state, err := ReadState(c.layout.dir)
	if err != nil {
		t.Fatal(err)
	}
	// Let the shells install their traps.
	time.Sleep(100 * time.Millisecond)
	if err := c.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	for name, rec := range state.Components {
		if rec.Running() {
			t.Errorf("%s (pid %d) still runs after Stop", name, rec.PID)
		}
	}
	r, _ := c.procs[processIndex(c, "stubborn")].latest()
	if r.exitReason() != "signal: killed" {
		t.Errorf("stubborn ended with %q, want SIGKILL", r.exitReason())
	}
	kubeletAt, err1 := os.ReadFile(marker("kubelet"))
	apiserverAt, err2 := os.ReadFile(marker("apiserver"))
	if err1 != nil || err2 != nil {
		t.Fatalf("markers: %v, %v", err1, err2)
	}
	// The apiserver is asked to stop only after the rest have exited, and
	// stubborn held that up until its SIGKILL, so the order is strict.
	if string(kubeletAt) >= string(apiserverAt) {
		t.Errorf("kubelet got SIGTERM at %s, apiserver at %s: the apiserver must go last", kubeletAt, apiserverAt)
	}
	if _, err := os.Stat(c.layout.stateFile()); !os.IsNotExist(err) {
		t.Errorf("cluster.json still exists after Stop: %v", err)
	}
}

func processIndex(c *Cluster, name string) int {
	for i, p := range c.procs {
		if p.name == name {
			return i
		}
	}
	panic("no process " + name)
}

func TestSupervisorKeepsAComponentHeldDownAway(t *testing.T) {
	c, out := startShellCluster(t, map[string]string{"steady": "while :; do sleep 0.05; done"}, nil)
	p := c.procs[processIndex(c, "steady")]
	first, _ := p.latest()
	if err := HoldDown(c.opts.DataDir, "steady", time.Now().Add(300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	first.signal(syscall.SIGKILL)
	waitFor(t, "the restart after the hold", func() bool { _, restarts := p.latest(); return restarts == 1 })
	if !strings.Contains(out.String(), "steady exited: signal: killed; held down for") {
		t.Errorf("console:\n%s\nwant the hold said", out.String())
	}
	if !c.layout.heldDownUntil("steady").IsZero() {
		t.Error("the hold file is still there after the restart; the next exit would be held too")
	}
}
