package netns

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopGrace is how long a component has to exit after SIGTERM before it
// gets SIGKILL.
const stopGrace = 5 * time.Second

// component is one kplane binary running in a namespace.
type component struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// startIn runs binary with args in network namespace ns (`ip netns exec`,
// which execs the binary: the PID is the component's), logging to
// logDir/name.log. The test stops it by that PID, and on failure prints
// the end of its log.
func startIn(t *testing.T, ns, logDir, name, binary string, args ...string) *component {
	t.Helper()
	logPath := filepath.Join(logDir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("ip", append([]string{"netns", "exec", ns, binary}, args...)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = childProcAttr()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		t.Fatalf("start %s in %s: %v", name, ns, err)
	}
	c := &component{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(c.done)
	}()
	t.Cleanup(func() {
		c.stop(t)
		if t.Failed() {
			t.Logf("--- end of %s's log (%s):\n%s", name, logPath, tail(logPath, 30))
		}
	})
	return c
}

// stop sends SIGTERM to the component's PID, then SIGKILL after stopGrace.
func (c *component) stop(t *testing.T) {
	select {
	case <-c.done:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(stopGrace):
		t.Logf("%s (pid %d) did not stop within %s of SIGTERM; killing it", c.name, c.cmd.Process.Pid, stopGrace)
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// exited reports whether the component has exited, with the end of its log.
func (c *component) exited() (bool, string) {
	select {
	case <-c.done:
		return true, tail(c.log, 20)
	default:
		return false, ""
	}
}

// tail is the last n lines of the file at path.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// kubectlIn runs kubectl args… in namespace ns with stdin, and returns its
// combined output and error.
func kubectlIn(kubectl, ns, kubeconfig, stdin string, args ...string) (string, error) {
	cmd := exec.Command("ip", append([]string{"netns", "exec", ns, kubectl, "--kubeconfig", kubeconfig, "--request-timeout", "10s"}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// kubectlLike runs a command that takes --kubeconfig as kubectl does (ctl)
// in namespace ns, and returns its standard output and error (with its
// standard error in the error).
func kubectlLike(binary, ns, kubeconfig string, args ...string) (string, error) {
	cmd := exec.Command("ip", append([]string{"netns", "exec", ns, binary, "--kubeconfig", kubeconfig}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		err = fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), err
}
