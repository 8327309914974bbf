//go:build chaos

package chaos

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// clusterReadyTimeout bounds `ctl up` until every node is Ready, on a
// machine that may be busy with other work.
const clusterReadyTimeout = 3 * time.Minute

// ctlUp is a `bin/ctl up` running in the foreground as this test's child:
// its supervisor is the one that must restart what the killer kills.
type ctlUp struct {
	cmd     *exec.Cmd
	exited  chan struct{}
	dataDir string
	logPath string
}

// binDir is where the cluster's binaries are: $KPLANE_BIN_DIR, or bin/ at
// the repository root (`make chaos` builds it first). A missing binary
// fails the test: without it there is nothing to put under chaos.
func binDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("KPLANE_BIN_DIR")
	if dir == "" {
		dir = filepath.Join(framework.RepoRoot(t), "bin")
	}
	for _, name := range []string{"ctl", "apiserver", "controller-manager", "scheduler", "kubelet"} {
		if !framework.HasBinary(dir, name) {
			t.Fatalf("%s has no %s: run `make build` (or set KPLANE_BIN_DIR)", dir, name)
		}
	}
	return dir
}

// startCtlUp starts `ctl up` with args on a fresh data dir and a free port,
// waits until cluster.json says every node was Ready, and stops the
// cluster when the test ends.
func startCtlUp(t *testing.T, bin string, args ...string) *ctlUp {
	t.Helper()
	dir := t.TempDir()
	up := &ctlUp{dataDir: filepath.Join(dir, "cluster"), logPath: filepath.Join(dir, "ctl-up.log"), exited: make(chan struct{})}
	logFile, err := os.Create(up.logPath)
	if err != nil {
		t.Fatalf("create %s: %v", up.logPath, err)
	}
	args = append([]string{"up", "--data-dir", up.dataDir, "--port", "0"}, args...)
	up.cmd = exec.Command(filepath.Join(bin, "ctl"), args...)
	up.cmd.Stdout, up.cmd.Stderr = logFile, logFile
	// If this test binary dies without its cleanup (killed, or the panic
	// of -test.timeout), Linux sends ctl up SIGTERM and it stops the
	// cluster, as pkg/cluster does for its own components.
	up.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := up.cmd.Start(); err != nil {
		t.Fatalf("start ctl %s: %v", strings.Join(args, " "), err)
	}
	go func() {
		_ = up.cmd.Wait()
		logFile.Close()
		close(up.exited)
	}()
	t.Cleanup(func() {
		up.stop(t)
		up.keepLogs(t)
	})
	deadline := time.Now().Add(clusterReadyTimeout)
	for {
		state, err := cluster.ReadState(up.dataDir)
		if err == nil && state.ReadyAt != nil {
			t.Logf("cluster up: ctl %s (pid %d); components: %s", strings.Join(args, " "), up.cmd.Process.Pid, componentNames(state))
			return up
		}
		select {
		case <-up.exited:
			t.Fatalf("ctl up exited before the cluster was ready:\n%s", up.tail(40))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster not ready after %s (last: %v):\n%s", clusterReadyTimeout, err, up.tail(40))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// mustRun fails the test if `ctl up` has exited: its supervisor gave a
// component up (five quick crashes in a row) or the apiserver for good.
func (up *ctlUp) mustRun(t *testing.T) {
	t.Helper()
	select {
	case <-up.exited:
		t.Fatalf("ctl up exited while the test ran:\n%s", up.tail(40))
	default:
	}
}

// kubeconfig is the admin kubeconfig `ctl up` wrote (through the load
// balancer in an HA cluster).
func (up *ctlUp) kubeconfig() string { return filepath.Join(up.dataDir, "kubeconfig") }

// stop ends `ctl up` with SIGTERM, which stops every component in order;
// if it is not gone within a minute, it is killed and cluster.Down stops
// the components it left, in Down's order.
func (up *ctlUp) stop(t *testing.T) {
	select {
	case <-up.exited:
		return
	default:
	}
	_ = up.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-up.exited:
		return
	case <-time.After(time.Minute):
	}
	t.Errorf("ctl up (pid %d) did not stop within a minute of SIGTERM; killing it and its components", up.cmd.Process.Pid)
	_ = up.cmd.Process.Kill()
	<-up.exited
	if err := cluster.Down(up.dataDir); err != nil && !errors.Is(err, cluster.ErrNotRunning) {
		t.Logf("ctl down %s: %v", up.dataDir, err)
	}
}

// keepLogs copies, when the test failed and $CHAOS_LOGS_DIR names a
// directory (`make chaos` sets bin/chaos/run-N-logs), every component's log
// and `ctl up`'s own output there, before t.TempDir is removed.
func (up *ctlUp) keepLogs(t *testing.T) {
	dir := os.Getenv("CHAOS_LOGS_DIR")
	if !t.Failed() || dir == "" {
		return
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Logf("keep logs: %v", err)
		return
	}
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(up.dataDir, "logs"))); err != nil {
		t.Logf("keep logs: %v", err)
		return
	}
	if data, err := os.ReadFile(up.logPath); err == nil {
		_ = os.WriteFile(filepath.Join(dir, "ctl-up.log"), data, 0o644)
	}
	t.Logf("the components' logs and ctl up's output are in %s", dir)
}

// tail returns the last n lines `ctl up` printed.
func (up *ctlUp) tail(n int) string {
	data, _ := os.ReadFile(up.logPath)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// componentNames lists a cluster's components, sorted.
func componentNames(state *cluster.State) string {
	names := make([]string, 0, len(state.Components))
	for name := range state.Components {
		names = append(names, name)
	}
	slices.Sort(names)
	return strings.Join(names, " ")
}
