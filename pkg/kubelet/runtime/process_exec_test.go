package runtime

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"kplane/pkg/api"
)

// syncBuffer is a bytes.Buffer safe for the writer goroutines of a session.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startSleeper(t *testing.T, container api.Container) (*processContainer, *Process, *api.Pod) {
	t.Helper()
	p := newTestProcess(t)
	pod := testPod(container)
	c, err := startContainer(t, p, pod, 0)
	if err != nil {
		t.Fatal(err)
	}
	return c.(*processContainer), p, pod
}

func execIn(t *testing.T, c *processContainer, streams Streams, command ...string) (int, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	return c.Exec(ctx, command, streams)
}

// TestProcessExec: the command runs with the container's environment in
// its working directory, its streams stay apart, its exit code comes back,
// and stdin's end reaches it.
func TestProcessExec(t *testing.T) {
	c, p, pod := startSleeper(t, api.Container{Name: "main", Command: []string{"sleep", "60"},
		Env: []api.EnvVar{{Name: "GREETING", Value: "hello"}}})

	var stdout, stderr syncBuffer
	code, err := execIn(t, c, Streams{Stdout: &stdout, Stderr: &stderr},
		"sh", "-c", `echo "$GREETING $HOSTNAME"; pwd; echo oops >&2; exit 3`)
	wantDir := p.containerDir(pod, "main")
	if err != nil || code != 3 || stdout.String() != "hello web\n"+wantDir+"\n" || stderr.String() != "oops\n" {
		t.Errorf("exec = %d, %v, stdout %q, stderr %q; want 3, the env and dir on stdout, oops on stderr",
			code, err, stdout.String(), stderr.String())
	}

	stdout = syncBuffer{}
	code, err = execIn(t, c, Streams{Stdin: strings.NewReader("one\ntwo\n"), Stdout: &stdout}, "cat")
	if err != nil || code != 0 || stdout.String() != "one\ntwo\n" {
		t.Errorf("cat = %d, %v, %q; want stdin echoed", code, err, stdout.String())
	}

	code, err = execIn(t, c, Streams{Stdout: io.Discard}, "no-such-command")
	want := `unable to start container process: exec: "no-such-command": executable file not found in $PATH`
	if code != 127 || !errors.Is(err, ErrCommandNotFound) || !strings.Contains(err.Error(), want) {
		t.Errorf("no-such-command = %d, %v; want 127 and %q", code, err, want)
	}
}

// TestProcessExecTTY: with a TTY the command has a terminal of the
// client's size, and stdout and stderr arrive as one stream.
func TestProcessExecTTY(t *testing.T) {
	c, _, _ := startSleeper(t, api.Container{Name: "main", Command: []string{"sleep", "60"}})
	sizes := make(chan TerminalSize, 1)
	sizes <- TerminalSize{Width: 132, Height: 43}
	var out syncBuffer
	code, err := execIn(t, c, Streams{Stdout: &out, TTY: true, Resize: sizes}, "sh", "-c", "stty size; echo oops >&2")
	if err != nil || code != 0 || out.String() != "43 132\r\noops\r\n" {
		t.Errorf("exec -t = %d, %v, %q; want the size and stderr on one terminal", code, err, out.String())
	}
}

// TestProcessAttach: `kubectl run -i` — a shell with stdin: true and
// stdinOnce reads the attached client's input, the client sees its output
// (which also goes to the log), and the end of input ends the shell.
func TestProcessAttach(t *testing.T) {
	c, _, _ := startSleeper(t, api.Container{Name: "main", Command: []string{"sh"}, Stdin: true, StdinOnce: true})
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := c.Attach(ctx, Streams{Stdin: strings.NewReader("echo hello\necho oops >&2\n"), Stdout: &stdout, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Attach returned before the container exited")
	}
	if stdout.String() != "hello\n" || stderr.String() != "oops\n" || c.ExitCode() != 0 {
		t.Errorf("attached stdout %q, stderr %q, exit code %d; want hello, oops, 0", stdout.String(), stderr.String(), c.ExitCode())
	}
	// The two pipes are read apart, so the log may hold them in either order.
	logs, _ := io.ReadAll(c.Logs(false))
	if lines := strings.Split(strings.TrimSpace(string(logs)), "\n"); !slices.Equal(slices.Sorted(slices.Values(lines)), []string{"hello", "oops"}) {
		t.Errorf("logs = %q; the output must go to the log too", logs)
	}
}

// TestProcessAttachTTY: a tty: true container runs on a terminal that an
// attached client types into.
func TestProcessAttachTTY(t *testing.T) {
	c, _, _ := startSleeper(t, api.Container{Name: "main", Command: []string{"sh", "-c", "read line; echo got $line; tty"},
		Stdin: true, StdinOnce: true, TTY: true})
	var out syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := c.Attach(ctx, Streams{Stdin: strings.NewReader("hi\n"), Stdout: &out, TTY: true}); err != nil {
		t.Fatal(err)
	}
	// The terminal echoes what was typed, then the shell answers.
	if !strings.Contains(out.String(), "got hi\r\n/dev/pts/") {
		t.Errorf("attached output %q; want the shell's answer on a terminal", out.String())
	}
}

// TestContainerCommandOfImagesWithoutEntrypoint: `kubectl run t
// --image=busybox -- sh` sets only args; busybox has no ENTRYPOINT, so the
// args are the command. An image that has one (nginx) still needs a
// command here.
func TestContainerCommandOfImagesWithoutEntrypoint(t *testing.T) {
	for _, tc := range []struct {
		image string
		want  []string
	}{
		{"busybox", []string{"sh", "-c", "echo hi"}},
		{"docker.io/library/busybox:1.36", []string{"sh", "-c", "echo hi"}},
		{"alpine@sha256:0123", []string{"sh", "-c", "echo hi"}},
		{"registry.example.com:5000/team/ubuntu:24.04", []string{"sh", "-c", "echo hi"}},
		{"nginx", nil},
		{"busybox-like", nil},
	} {
		got := containerCommand(&api.Container{Image: tc.image, Args: []string{"sh", "-c", "echo hi"}}, nil)
		if !slices.Equal(got, tc.want) {
			t.Errorf("image %s with args only: command %q, want %q", tc.image, got, tc.want)
		}
	}
}
