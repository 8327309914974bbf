package runtime

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kplane/pkg/api"
)

// testTimeout bounds every wait in these tests; reaching it is a failure,
// not a measurement.
const testTimeout = 30 * time.Second

func newTestProcess(t *testing.T) *Process {
	t.Helper()
	p, err := NewProcess(ProcessOptions{RootDir: t.TempDir(), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// testLogger sends the runtime's logs to the test's log, shown on failure.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, nil))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

func testPod(containers ...api.Container) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "shop", UID: "uid-1",
			Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"team": "blue"}},
		Spec: api.PodSpec{NodeName: "node1", ServiceAccountName: "default", Containers: containers},
		Status: api.PodStatus{PodIP: "10.244.1.5", PodIPs: []api.PodIP{{IP: "10.244.1.5"}},
			HostIP: "127.0.0.1", HostIPs: []api.HostIP{{IP: "127.0.0.1"}}},
	}
}

// startContainer starts the pod's first container and makes sure it is
// stopped when the test ends.
func startContainer(t *testing.T, p *Process, pod *api.Pod, attempt int) (Container, error) {
	t.Helper()
	c, err := p.Start(context.Background(), pod, &pod.Spec.Containers[0], attempt)
	if c != nil {
		t.Cleanup(func() {
			c.Stop(0)
			<-c.Done()
		})
	}
	return c, err
}

func mustStart(t *testing.T, command ...string) (Container, *Process, *api.Pod) {
	t.Helper()
	p := newTestProcess(t)
	pod := testPod(api.Container{Name: "main", Command: command})
	c, err := startContainer(t, p, pod, 0)
	if err != nil {
		t.Fatalf("Start(%q): %v", command, err)
	}
	return c, p, pod
}

func waitDone(t *testing.T, c Container) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(testTimeout):
		t.Fatal("container did not exit")
	}
}

func readAll(t *testing.T, rc io.ReadCloser) string {
	t.Helper()
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("read logs: %v", err)
	}
	return string(data)
}

func TestProcessRunsToCompletion(t *testing.T) {
	long := strings.Repeat("x", maxLogLineSize+100)
	tests := []struct {
		name       string
		command    []string
		wantCode   int
		wantReason string
		wantLogs   string
	}{
		{name: "exit code and output", command: []string{"sh", "-c", "echo hi; exit 3"}, wantCode: 3, wantReason: ReasonError, wantLogs: "hi\n"},
		{name: "success", command: []string{"sh", "-c", "echo done"}, wantCode: 0, wantReason: ReasonCompleted, wantLogs: "done\n"},
		// stdout and stderr are two pipes: each is in order, but no order
		// between them is promised (nor is it by a real runtime).
		{name: "stderr is captured", command: []string{"sh", "-c", "echo err >&2; echo err2 >&2; exit 1"}, wantCode: 1, wantReason: ReasonError, wantLogs: "err\nerr2\n"},
		{name: "no trailing newline", command: []string{"printf", "a b\nc"}, wantReason: ReasonCompleted, wantLogs: "a b\nc"},
		{name: "empty lines", command: []string{"printf", "\n\nx\n"}, wantReason: ReasonCompleted, wantLogs: "\n\nx\n"},
		{name: "line longer than one log entry", command: []string{"printf", long + "\n"}, wantReason: ReasonCompleted, wantLogs: long + "\n"},
		// $$ is the kubelet's escape for a literal $, so the shell's $$ is
		// written $$$$ in a pod spec, as on a real cluster.
		{name: "killed by a signal", command: []string{"sh", "-c", "kill -9 $$$$"}, wantCode: 137, wantReason: ReasonError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _, _ := mustStart(t, tt.command...)
			waitDone(t, c)
			if got := c.ExitCode(); got != tt.wantCode {
				t.Errorf("ExitCode() = %d, want %d", got, tt.wantCode)
			}
			if got := c.Reason(); got != tt.wantReason {
				t.Errorf("Reason() = %q, want %q", got, tt.wantReason)
			}
			if got := readAll(t, c.Logs(false)); got != tt.wantLogs {
				t.Errorf("Logs(false) = %q, want %q", got, tt.wantLogs)
			}
			// Following a finished container returns the same and ends.
			if got := readAll(t, c.Logs(true)); got != tt.wantLogs {
				t.Errorf("Logs(true) = %q, want %q", got, tt.wantLogs)
			}
		})
	}
}

func TestProcessLogFileIsCRIFormat(t *testing.T) {
	c, p, pod := mustStart(t, "sh", "-c", "echo hello world; echo oops >&2")
	waitDone(t, c)
	path := p.LogPath(pod, "main", 0)
	if want := filepath.Join(p.rootDir, "uid-1", "main", "0.log"); path != want {
		t.Errorf("LogPath = %s, want %s", path, want)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	// Two pipes, so the two entries may come in either order.
	slices.SortFunc(lines, func(a, b string) int {
		_, a, _ = strings.Cut(a, " ")
		_, b, _ = strings.Cut(b, " ")
		return strings.Compare(a, b)
	})
	want := []string{"stderr F oops", "stdout F hello world"}
	if len(lines) != len(want) {
		t.Fatalf("log file has %d lines, want %d:\n%s", len(lines), len(want), data)
	}
	for i, line := range lines {
		ts, rest, _ := strings.Cut(line, " ")
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			t.Errorf("line %d: timestamp %q: %v", i, ts, err)
		}
		if rest != want[i] {
			t.Errorf("line %d = %q, want %q", i, rest, want[i])
		}
	}
}

func TestProcessAttemptsHaveTheirOwnLogs(t *testing.T) {
	p := newTestProcess(t)
	pod := testPod(api.Container{Name: "main", Command: []string{"sh", "-c", "echo run $(N)"},
		Env: []api.EnvVar{{Name: "N", Value: "first"}}})
	first, err := startContainer(t, p, pod, 0)
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, first)
	pod.Spec.Containers[0].Env[0].Value = "second"
	second, err := startContainer(t, p, pod, 1)
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, second)
	if got := readAll(t, first.Logs(false)); got != "run first\n" {
		t.Errorf("attempt 0 logs = %q", got)
	}
	if got := readAll(t, second.Logs(false)); got != "run second\n" {
		t.Errorf("attempt 1 logs = %q", got)
	}
}

func TestProcessTimestampedLogs(t *testing.T) {
	c, _, _ := mustStart(t, "printf", "one\ntwo")
	waitDone(t, c)
	tc, ok := c.(interface{ LogsWithTimestamps(bool) io.ReadCloser })
	if !ok {
		t.Fatal("process container has no LogsWithTimestamps")
	}
	got := readAll(t, tc.LogsWithTimestamps(false))
	lines := strings.Split(got, "\n")
	if len(lines) != 2 {
		t.Fatalf("timestamped logs = %q, want two lines", got)
	}
	for i, want := range []string{"one", "two"} {
		ts, text, _ := strings.Cut(lines[i], " ")
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			t.Errorf("line %d timestamp %q: %v", i, ts, err)
		}
		if text != want {
			t.Errorf("line %d text = %q, want %q", i, text, want)
		}
	}
}

func TestProcessFollowStreamsUntilExit(t *testing.T) {
	// The container waits for a file before its second line, so the test
	// controls the order without sleeping.
	gate := filepath.Join(t.TempDir(), "gate")
	c, _, _ := mustStart(t, "sh", "-c", `echo first; while [ ! -e "$0" ]; do sleep 0.01; done; echo second`, gate)
	logs := c.Logs(true)
	defer logs.Close()

	buf := make([]byte, 64)
	n, err := io.ReadAtLeast(logs, buf, len("first\n"))
	if err != nil || string(buf[:n]) != "first\n" {
		t.Fatalf("first read = %q, %v; want %q", buf[:n], err, "first\n")
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(logs)
	if err != nil {
		t.Fatal(err)
	}
	if string(rest) != "second\n" {
		t.Errorf("rest of the stream = %q, want %q", rest, "second\n")
	}
	select {
	case <-c.Done():
	default:
		t.Error("follow ended before the container exited")
	}
}

func TestProcessFollowEndsOnClose(t *testing.T) {
	c, _, _ := mustStart(t, "sleep", "30")
	logs := c.Logs(true)
	result := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(logs)
		result <- err
	}()
	logs.Close()
	select {
	case err := <-result:
		if err != nil {
			t.Errorf("read after Close: %v", err)
		}
	case <-time.After(testTimeout):
		t.Fatal("Close did not end a following read")
	}
	select {
	case <-c.Done():
		t.Error("closing a log reader stopped the container")
	default:
	}
}

func TestProcessStop(t *testing.T) {
	tests := []struct {
		name     string
		command  []string
		grace    time.Duration
		wantCode int
	}{
		// sleep dies of the SIGTERM long before its grace period is over.
		{name: "SIGTERM within grace", command: []string{"sleep", "30"}, grace: testTimeout, wantCode: 128 + int(syscall.SIGTERM)},
		// A process that ignores SIGTERM is killed once grace has passed.
		{name: "SIGKILL after grace", command: []string{"sh", "-c", `trap "" TERM; echo ready; sleep 30`}, grace: 50 * time.Millisecond, wantCode: 128 + int(syscall.SIGKILL)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _, _ := mustStart(t, tt.command...)
			if len(tt.command) > 2 {
				// Wait until the trap is set, or SIGTERM could come first.
				logs := c.Logs(true)
				buf := make([]byte, len("ready\n"))
				if _, err := io.ReadFull(logs, buf); err != nil {
					t.Fatal(err)
				}
				logs.Close()
			}
			c.Stop(tt.grace)
			waitDone(t, c)
			if got := c.ExitCode(); got != tt.wantCode {
				t.Errorf("ExitCode() = %d, want %d", got, tt.wantCode)
			}
			if got := c.Reason(); got != ReasonError {
				t.Errorf("Reason() = %q, want %q", got, ReasonError)
			}
			assertGroupGone(t, c)
		})
	}
}

// TestProcessGroupDiesWithLeader mirrors a PID namespace: when the
// container's first process exits, the processes it left behind go too, and
// they cannot keep the container "running" by holding its stdout open.
func TestProcessGroupDiesWithLeader(t *testing.T) {
	c, _, _ := mustStart(t, "sh", "-c", "sleep 30 & sleep 30 & echo started")
	waitDone(t, c)
	if got := c.ExitCode(); got != 0 {
		t.Errorf("ExitCode() = %d, want 0", got)
	}
	if got := readAll(t, c.Logs(false)); got != "started\n" {
		t.Errorf("logs = %q", got)
	}
	assertGroupGone(t, c)
}

func TestProcessStopKillsTheWholeGroup(t *testing.T) {
	c, _, _ := mustStart(t, "sh", "-c", "sleep 30 & sleep 30 & wait")
	pgid := c.(*processContainer).pgid
	waitFor(t, func() bool { return countGroup(pgid) >= 3 }, "the shell and its two sleeps")
	c.Stop(testTimeout)
	waitDone(t, c)
	assertGroupGone(t, c)
}

func TestProcessStoppedWhenContextIsCancelled(t *testing.T) {
	p := newTestProcess(t)
	pod := testPod(api.Container{Name: "main", Command: []string{"sleep", "30"}})
	ctx, cancel := context.WithCancel(context.Background())
	c, err := p.Start(ctx, pod, &pod.Spec.Containers[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	waitDone(t, c)
	if got := c.ExitCode(); got != 128+int(syscall.SIGTERM) {
		t.Errorf("ExitCode() = %d, want %d", got, 128+int(syscall.SIGTERM))
	}
}

func TestProcessStartErrors(t *testing.T) {
	// A file with execute permission that no kernel can run.
	notExecutable := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(notExecutable, []byte{0, 1, 2, 3}, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		container api.Container
		wantMsg   string
	}{
		{name: "missing executable", container: api.Container{Name: "main", Command: []string{"kplane-no-such-command", "x"}},
			wantMsg: `exec: "kplane-no-such-command": executable file not found in $PATH`},
		{name: "missing absolute path", container: api.Container{Name: "main", Command: []string{"/nonexistent/kplane"}},
			wantMsg: `exec: "/nonexistent/kplane": stat /nonexistent/kplane: no such file or directory`},
		{name: "not executable", container: api.Container{Name: "main", Command: []string{notExecutable}},
			wantMsg: `exec: "` + notExecutable + `": exec format error`},
		{name: "no command", container: api.Container{Name: "main", Image: "nginx", Args: []string{"-g", "daemon off;"}},
			wantMsg: "no command specified"},
		{name: "missing working dir", container: api.Container{Name: "main", Command: []string{"true"}, WorkingDir: "/nonexistent/kplane"},
			wantMsg: `chdir to cwd ("/nonexistent/kplane")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newTestProcess(t)
			pod := testPod(tt.container)
			c, err := startContainer(t, p, pod, 0)
			var startErr *StartError
			if !errors.As(err, &startErr) {
				t.Fatalf("Start error = %v, want a *StartError", err)
			}
			if !strings.Contains(startErr.Message, tt.wantMsg) {
				t.Errorf("message = %q, want it to contain %q", startErr.Message, tt.wantMsg)
			}
			if c != nil {
				t.Error("Start returned a Container with its StartError")
			}
			if !strings.HasPrefix(err.Error(), "unable to start container process: ") {
				t.Errorf("Error() = %q, want runc's wording", err.Error())
			}
		})
	}
}

func TestProcessEnvironment(t *testing.T) {
	t.Setenv("KPLANE_KUBELET_SECRET", "do-not-leak")
	p := newTestProcess(t)
	workDir := t.TempDir()
	pod := testPod(api.Container{
		Name:       "main",
		Command:    []string{"sh", "-c"},
		Args:       []string{"echo \"$GREETING|$POD|$NS|$IP|$NODE|$APP|$TEAM|$UID_|$HOSTNAME|$KPLANE_KUBELET_SECRET|`pwd`|$0\"", "$(POD)"},
		WorkingDir: workDir,
		Env: []api.EnvVar{
			{Name: "NAME", Value: "world"},
			{Name: "GREETING", Value: "hello $(NAME) $(UNDEFINED)"},
			{Name: "POD", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			{Name: "NS", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
			{Name: "IP", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{FieldPath: "status.podIP"}}},
			{Name: "NODE", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{FieldPath: "spec.nodeName"}}},
			{Name: "APP", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.labels['app']"}}},
			{Name: "TEAM", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.annotations['team']"}}},
			{Name: "UID_", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.uid"}}},
			{Name: "SKIPPED", ValueFrom: &api.EnvVarSource{ConfigMapKeyRef: &api.ConfigMapKeySelector{Key: "k"}}},
		},
	})
	c, err := startContainer(t, p, pod, 0)
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, c)
	want := "hello world $(UNDEFINED)|web|shop|10.244.1.5|node1|web|blue|uid-1|web||" + workDir + "|web\n"
	if got := readAll(t, c.Logs(false)); got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}

func TestProcessExpandsCommandWithoutAShell(t *testing.T) {
	p := newTestProcess(t)
	pod := testPod(api.Container{
		Name:    "main",
		Command: []string{"echo", "$(NAME)"},
		Args:    []string{"$$(NAME)", "$(UNDEFINED)", "$HOME", "*"},
		Env:     []api.EnvVar{{Name: "NAME", Value: "world"}},
	})
	c, err := startContainer(t, p, pod, 0)
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, c)
	// No shell: $HOME and * reach echo as they are.
	if got, want := readAll(t, c.Logs(false)), "world $(NAME) $(UNDEFINED) $HOME *\n"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}

func TestProcessDefaultWorkingDir(t *testing.T) {
	c, p, pod := mustStart(t, "pwd")
	waitDone(t, c)
	want := filepath.Dir(p.LogPath(pod, "main", 0))
	if got := strings.TrimSpace(readAll(t, c.Logs(false))); got != want {
		t.Errorf("working dir = %q, want %q", got, want)
	}
}

func TestProcessUsage(t *testing.T) {
	c, _, _ := mustStart(t, "sh", "-c", "while :; do :; done")
	var u Usage
	waitFor(t, func() bool {
		u = c.Usage()
		return u.UsageNanoCores > 0 && u.WorkingSetBytes > 0 && u.UsageCoreNanoSeconds > 0
	}, "CPU and memory use of a busy loop")
	// One busy process cannot use more than one core, give or take the
	// rounding of clock ticks.
	if u.UsageNanoCores > 1.1e9 {
		t.Errorf("Usage() CPU = %d nanocores for one busy process", u.UsageNanoCores)
	}
	if later := c.Usage(); later.UsageCoreNanoSeconds < u.UsageCoreNanoSeconds {
		t.Errorf("the CPU counter went back from %d to %d", u.UsageCoreNanoSeconds, later.UsageCoreNanoSeconds)
	}
	c.Stop(0)
	waitDone(t, c)
	if got := c.Usage(); got != (Usage{}) {
		t.Errorf("Usage() after exit = %+v; want zero", got)
	}
}

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    procStat
		wantErr bool
	}{
		{name: "plain", data: "4242 (sleep) S 1 4242 4242 0 -1 4194560 99 0 0 0 7 3 2 1 20 0 1 0 1 1 1",
			want: procStat{pgrp: 4242, utime: 7, stime: 3, cutime: 2, cstime: 1}},
		{name: "command name with spaces and parentheses", data: "7 (a (b) c) R 1 99 7 0 -1 0 0 0 0 0 10 20 0 0 20 0 1 0",
			want: procStat{pgrp: 99, utime: 10, stime: 20}},
		{name: "negative children times read as zero", data: "7 (x) R 1 5 7 0 -1 0 0 0 0 0 1 1 -1 -1 20 0 1 0",
			want: procStat{pgrp: 5, utime: 1, stime: 1}},
		{name: "truncated", data: "7 (x) R 1 5 7", wantErr: true},
		{name: "no command", data: "garbage", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcStat([]byte(tt.data))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestUsageSamplerRate(t *testing.T) {
	// The sampler is exercised on this test process's own group (the test
	// binary is busy enough) only for its arithmetic: a sample after the
	// minimum window reports the rate over that window.
	s := usageSampler{pgid: syscall.Getpgrp(), startedAt: time.Now().Add(-time.Hour)}
	start := time.Now()
	first := s.sample(start)
	if first.WorkingSetBytes == 0 {
		t.Errorf("memory = 0, want > 0 for a running group")
	}
	if first.UsageCoreNanoSeconds%nanosecondsPerTick != 0 || !first.Time.Equal(start) {
		t.Errorf("sample %+v: the counter is whole clock ticks, the time the sample's", first)
	}
	// A second sample within the window repeats the first rate.
	if again := s.sample(start.Add(minUsageWindow / 2)); again.UsageNanoCores != first.UsageNanoCores {
		t.Errorf("sample within the window = %d, want the previous %d", again.UsageNanoCores, first.UsageNanoCores)
	}
}

func TestExpandVars(t *testing.T) {
	vars := map[string]string{"A": "1", "B": "two words", "EMPTY": ""}
	lookup := func(name string) (string, bool) { v, ok := vars[name]; return v, ok }
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"$(A)", "1"},
		{"x$(A)y$(B)z", "x1ytwo wordsz"},
		{"$(EMPTY)|", "|"},
		{"$(MISSING)", "$(MISSING)"},
		{"$$(A)", "$(A)"},
		{"$$$(A)", "$1"},
		{"$A $", "$A $"},
		{"$(A", "$(A"},
		{"100$", "100$"},
	}
	for _, tt := range tests {
		if got := expandVars(tt.in, lookup); got != tt.want {
			t.Errorf("expandVars(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "tool")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, cmd, path, want, wantErr string
	}{
		{name: "found in PATH", cmd: "tool", path: "/nonexistent:" + dir, want: exe},
		{name: "not in PATH", cmd: "nosuch", path: dir, wantErr: `exec: "nosuch": executable file not found in $PATH`},
		{name: "not executable in PATH", cmd: "data", path: dir, wantErr: "executable file not found"},
		{name: "relative PATH entries are ignored", cmd: "tool", path: ".", wantErr: "executable file not found"},
		{name: "absolute path", cmd: exe, path: "", want: exe},
		{name: "relative to working dir", cmd: "./tool", path: "", want: exe},
		{name: "missing path", cmd: "./nosuch", path: "", wantErr: "no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := lookPath(tt.cmd, tt.path, dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("lookPath = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestLogReaderRender(t *testing.T) {
	tests := []struct {
		name       string
		entries    []string
		timestamps bool
		want       string
	}{
		{name: "full lines", entries: []string{"T1 stdout F a", "T2 stderr F b c"}, want: "a\nb c\n"},
		{name: "partial joined", entries: []string{"T1 stdout P ab", "T2 stdout F cd"}, want: "abcd\n"},
		{name: "empty line", entries: []string{"T1 stdout F "}, want: "\n"},
		{name: "timestamps on line starts only", entries: []string{"T1 stdout P ab", "T2 stdout F cd", "T3 stdout F e"}, timestamps: true, want: "T1 abcd\nT3 e\n"},
		{name: "malformed entry skipped", entries: []string{"junk", "T1 stdout F ok"}, want: "ok\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &logReader{timestamps: tt.timestamps, atLineStart: true}
			for _, e := range tt.entries {
				r.render([]byte(e))
			}
			if string(r.out) != tt.want {
				t.Errorf("rendered %q, want %q", r.out, tt.want)
			}
		})
	}
}

// assertGroupGone fails if any process of the container's group is left.
func assertGroupGone(t *testing.T, c Container) {
	t.Helper()
	pgid := c.(*processContainer).pgid
	// The kernel may take a moment to reap processes killed at exit.
	waitFor(t, func() bool { return countGroup(pgid) == 0 }, "no process left in group "+strconv.Itoa(pgid))
}

// countGroup counts live (not zombie) processes in process group pgid.
func countGroup(pgid int) int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s, err := parseProcStat(data)
		if err != nil || s.pgrp != pgid {
			continue
		}
		if strings.Contains(string(data), ") Z ") {
			continue
		}
		n++
	}
	return n
}

// waitFor polls cond until it holds, failing the test with what after
// testTimeout.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
