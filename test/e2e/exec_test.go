package e2e

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// execPod is a process-runtime pod that just stays up for exec.
const execPod = `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: main
    image: busybox
    command: ["sleep", "3600"]
`

// TestExecWithRealKubectl drives `kubectl exec`, `kubectl cp` and `kubectl
// run -i --rm` against a process-runtime cluster with kubectl 1.29 (SPDY)
// and 1.33 (WebSocket v5, falling back to SPDY only if the upgrade fails),
// or the newest of each generation installed:
// the commands really run in the pod's working directory, stdout and
// stderr stay apart, exit codes come back as kubectl's own, stdin ends
// when the pipe does, and a file goes into the pod and back with tar.
func TestExecWithRealKubectl(t *testing.T) {
	kubectls := map[int]string{}
	spdyMinor, webSocketMinor := 0, 0 // the newest of each generation installed
	for _, k := range framework.InstalledKubectlMinors(t) {
		kubectls[k.Minor] = k.Path
		if k.Minor < 30 {
			spdyMinor = max(spdyMinor, k.Minor)
		} else {
			webSocketMinor = max(webSocketMinor, k.Minor)
		}
	}
	if spdyMinor == 0 || webSocketMinor == 0 {
		t.Fatalf("this test needs a kubectl.1.NN before 1.30 (SPDY only) and one from 1.30 on (WebSocket) beside kubectl; found %v (.ci/run builds them where missing)", kubectls)
	}
	c := framework.StartCluster(t, func(o *cluster.Options) { o.Nodes, o.Runtime = 1, cluster.RuntimeProcess })
	if r := c.Kubectl(t, execPod, "apply", "-f", "-"); r.Err != nil {
		t.Fatalf("apply: %v\n%s", r.Err, r.Stderr)
	}
	c.MustKubectl(t, "wait", "--for=condition=Ready", "pod/p", "--timeout=60s")

	for _, minor := range []int{spdyMinor, webSocketMinor} {
		t.Run(fmt.Sprintf("kubectl 1.%d", minor), func(t *testing.T) {
			kubectl := func(stdin string, args ...string) framework.KubectlResult {
				t.Helper()
				return framework.RunKubectl(t, kubectls[minor], c.KubeconfigPath(), c.Home, stdin, args...)
			}

			if minor >= 30 {
				// kubectl logs the negotiated subprotocol at -v=4: the
				// session must not have fallen back to SPDY.
				r := kubectl("", "-v=4", "exec", "p", "--", "true")
				if r.Err != nil || !strings.Contains(r.Stderr, "The subprotocol is "+"v5.channel.k8s.io") {
					t.Errorf("kubectl 1.%d exec did not use WebSocket v5: %v\n%s", minor, r.Err, r.Stderr)
				}
			}

			r := kubectl("", "exec", "p", "--", "sh", "-c", "echo out; echo err >&2; exit 3")
			if exitCode(r.Err) != 3 || r.Stdout != "out\n" || !strings.HasPrefix(r.Stderr, "err\n") ||
				!strings.Contains(r.Stderr, "command terminated with exit code 3") {
				t.Errorf("exec exit 3: %v\nstdout %q\nstderr %q\nwant exit code 3, out on stdout, err and kubectl's message on stderr",
					r.Err, r.Stdout, r.Stderr)
			}

			if r := kubectl("hi\n", "exec", "-i", "p", "--", "cat"); r.Err != nil || r.Stdout != "hi\n" {
				t.Errorf("echo hi | kubectl exec -i p -- cat: %v, stdout %q, stderr %q", r.Err, r.Stdout, r.Stderr)
			}

			r = kubectl("", "exec", "p", "--", "no-such-command")
			if exitCode(r.Err) != 1 || !strings.Contains(r.Stderr, `exec: "no-such-command": executable file not found in $PATH`) {
				t.Errorf("exec no-such-command: %v, stderr %q; want exit code 1 and runc's words", r.Err, r.Stderr)
			}

			// -it from a real terminal: kubectl sends its window size,
			// which the command's terminal takes.
			if out, err := onTerminal(t, kubectls[minor], c, "--cache-dir", filepath.Join(c.Home, "cache"),
				"exec", "-it", "p", "--", "sh", "-c", "stty size; tty"); err != nil ||
				!strings.Contains(out, "40 120\r\n/dev/pts/") {
				t.Errorf("kubectl exec -it on a 40x120 terminal: %v, output %q", err, out)
			}

			// kubectl cp runs tar in the pod: a relative path is the
			// container's working directory, which the process runtime
			// makes per pod and container.
			dir := t.TempDir()
			src, back := filepath.Join(dir, "src.txt"), filepath.Join(dir, "back.txt")
			content := fmt.Sprintf("copied by kubectl 1.%d\n", minor)
			if err := os.WriteFile(src, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			remote := fmt.Sprintf("copied-%d.txt", minor)
			if r := kubectl("", "cp", src, "p:"+remote); r.Err != nil {
				t.Fatalf("kubectl cp into the pod: %v\n%s%s", r.Err, r.Stdout, r.Stderr)
			}
			if r := kubectl("", "exec", "p", "--", "cat", remote); r.Stdout != content {
				t.Errorf("the copied file in the pod: %q, %v %s", r.Stdout, r.Err, r.Stderr)
			}
			if r := kubectl("", "cp", "p:"+remote, back); r.Err != nil {
				t.Fatalf("kubectl cp out of the pod: %v\n%s%s", r.Err, r.Stdout, r.Stderr)
			}
			if got, err := os.ReadFile(back); err != nil || string(got) != content {
				t.Errorf("round trip: %q, %v; want %q", got, err, content)
			}

			// kubectl run -i --rm creates a pod with stdin, attaches once it
			// runs, and deletes it at the end.
			name := fmt.Sprintf("t%d", minor)
			r = kubectl("echo hello\nexit\n", "run", "-i", "--rm", name, "--image=busybox", "--restart=Never", "--", "sh")
			if r.Err != nil || !strings.Contains(r.Stdout, "hello\n") {
				t.Errorf("kubectl run -i --rm: %v\nstdout %q\nstderr %q", r.Err, r.Stdout, r.Stderr)
			}
			// kubectl attach joins a running shell that has stdin: true.
			shell := fmt.Sprintf("sh%d", minor)
			manifest := fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec:\n  restartPolicy: Never\n"+
				"  containers:\n  - {name: main, image: busybox, command: [sh], stdin: true, stdinOnce: true}\n", shell)
			if r := kubectl(manifest, "apply", "-f", "-"); r.Err != nil {
				t.Fatalf("apply %s: %v %s", shell, r.Err, r.Stderr)
			}
			if r := kubectl("", "wait", "--for=condition=Ready", "pod/"+shell, "--timeout=60s"); r.Err != nil {
				t.Fatalf("wait for %s: %v %s", shell, r.Err, r.Stderr)
			}
			if r := kubectl("echo attached to $HOSTNAME\n", "attach", "-i", shell); r.Err != nil || r.Stdout != "attached to "+shell+"\n" {
				t.Errorf("kubectl attach -i %s: %v\nstdout %q\nstderr %q", shell, r.Err, r.Stdout, r.Stderr)
			}

			// A shell that exits 4: kubectl exits 4 too, with its words.
			r = kubectl("echo bye\nexit 4\n", "run", "-i", "--rm", name+"-fail", "--image=busybox", "--restart=Never", "--", "sh")
			if exitCode(r.Err) != 4 || r.Stdout != "bye\npod \""+name+"-fail\" deleted\n" ||
				r.Stderr != "If you don't see a command prompt, try pressing enter.\npod default/"+name+"-fail terminated (Error)\n" {
				t.Errorf("kubectl run -i --rm, exit 4: %v\nstdout %q\nstderr %q", r.Err, r.Stdout, r.Stderr)
			}
			framework.Eventually(t, 30*time.Second, func() (bool, string) {
				r := kubectl("", "get", "pod", name)
				return r.Err != nil && strings.Contains(r.Stderr, "NotFound"), r.Stdout + r.Stderr
			})
		})
	}
	t.Run("ctl exec", func(t *testing.T) {
		ctl := filepath.Join(framework.BuildBinaries(t), "ctl")
		run := func(stdin string, args ...string) (stdout, stderr string, err error) {
			cmd := exec.Command(ctl, append([]string{"--kubeconfig", c.KubeconfigPath()}, args...)...)
			cmd.Stdin = strings.NewReader(stdin)
			var out, errOut strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errOut
			err = cmd.Run()
			return out.String(), errOut.String(), err
		}
		stdout, stderr, err := run("", "exec", "p", "--", "sh", "-c", "echo out; echo err >&2; exit 3")
		if exitCode(err) != 3 || stdout != "out\n" || stderr != "err\ncommand terminated with exit code 3\n" {
			t.Errorf("ctl exec exit 3: %v\nstdout %q\nstderr %q", err, stdout, stderr)
		}
		if stdout, stderr, err := run("hi\n", "exec", "-i", "p", "--", "cat"); err != nil || stdout != "hi\n" {
			t.Errorf("echo hi | ctl exec -i p -- cat: %v, stdout %q, stderr %q", err, stdout, stderr)
		}
		if out, err := onTerminal(t, ctl, c, "exec", "-it", "p", "--", "sh", "-c", "stty size; tty"); err != nil ||
			!strings.Contains(out, "40 120\r\n/dev/pts/") {
			t.Errorf("ctl exec -it on a 40x120 terminal: %v, output %q", err, out)
		}
		// ctl run -i --rm attaches as kubectl does, and exits with the
		// container's exit code.
		stdout, stderr, err = run("echo hello\nexit 4\n", "run", "-i", "--rm", "c1", "--image=busybox", "--restart=Never", "--", "sh")
		if exitCode(err) != 4 || stdout != "hello\npod \"c1\" deleted\n" ||
			stderr != "If you don't see a command prompt, try pressing enter.\npod default/c1 terminated (Error)\n" {
			t.Errorf("ctl run -i --rm: %v\nstdout %q\nstderr %q", err, stdout, stderr)
		}
		if _, stderr, err := run("", "exec", "p"); exitCode(err) != 1 || !strings.Contains(stderr, "you must specify at least one command for the container") {
			t.Errorf("ctl exec without a command: %v, %q", err, stderr)
		}
	})
}

// onTerminal runs kubectl (or ctl) with a 40x120 pseudo-terminal as its
// stdin, stdout and stderr, as a user at a terminal runs it, and returns
// everything it printed.
func onTerminal(t *testing.T, path string, c *framework.LocalCluster, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(path, append([]string{"--kubeconfig", c.KubeconfigPath()}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+c.Home, "KUBECONFIG=")
	terminal, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		return "", fmt.Errorf("start kubectl on a terminal: %w", err)
	}
	defer terminal.Close()
	output := make(chan []byte, 1)
	go func() {
		out, _ := io.ReadAll(terminal) // ends with EIO when kubectl exits
		output <- out
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err = <-waited:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		err = errors.Join(fmt.Errorf("%s did not finish within a minute", filepath.Base(path)), <-waited)
	}
	select {
	case out := <-output:
		return string(out), err
	case <-time.After(10 * time.Second):
		return "", errors.Join(err, fmt.Errorf("%s's terminal output did not end", filepath.Base(path)))
	}
}

// exitCode is the exit code of a finished command's error (0 for nil).
func exitCode(err error) int {
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
