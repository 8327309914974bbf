package runtime

// This file is the "process" runtime: it runs a container's command as a
// local process, which is as close to a real container as kplane gets
// without images, namespaces or cgroups. The pieces a container runtime
// gives a real kubelet map onto the machine like this:
//
//	container runtime (containerd)     process runtime
//	──────────────────────────────     ───────────────────────────────────────
//	image entrypoint + cmd             spec.command + args (no image: command is required,
//	                                   except args alone for busybox, alpine, … — process_env.go)
//	PID namespace, init process        process group; its leader is "PID 1"
//	container exits with PID 1         leader exits → the rest of the group is killed
//	SIGTERM, then SIGKILL after grace  the same, sent to the whole process group
//	/var/log/pods/…/<n>.log (CRI)      <root>/<podUID>/<container>/<attempt>.log (CRI)
//	cgroup CPU and memory statistics   /proc/<pid>/stat and statm of the group
//
// Files: process.go (start, wait, stop), process_env.go (environment and
// $(VAR) expansion), process_logs.go (log files and readers),
// process_usage.go (CPU and memory), process_probes.go (exec, httpGet and
// tcpSocket probes, which only ever dial 127.0.0.1), process_exec.go
// (`kubectl exec`), process_attach.go (a container's own stdin or terminal,
// and `kubectl attach`).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"kplane/pkg/api"
)

// ProcessName is the name of the process runtime (--runtime process).
const ProcessName = "process"

// ReasonStartError is the exit reason of a container whose process could not
// be started. containerd reports it, with exit code 128, when runc cannot
// exec the command (for instance "executable file not found in $PATH");
// upstream's kubelet also shows RunContainerError as the waiting reason
// while it retries such a container.
const ReasonStartError = "StartError"

// processGraceAfterLeaderExit bounds how long Done waits for the output of
// processes that left the container's process group (setsid) and still hold
// its stdout or stderr open, after the leader has exited and the group was
// killed. A real container has no such stragglers: its PID namespace dies
// with PID 1.
const processGraceAfterLeaderExit = 2 * time.Second

// contextStopGrace is the grace period for stopping a container whose Start
// context is cancelled (the kubelet shutting down): short, so that
// `ctl down` does not wait for 30-second grace periods.
const contextStopGrace = 2 * time.Second

// The process runtime is chosen with --runtime process.
func init() {
	Register(ProcessName, func(cfg Config) (Runtime, error) {
		return NewProcess(ProcessOptions{RootDir: processRootDir(cfg), Logger: cfg.Logger})
	})
}

// processRootDir is where a kubelet's process runtime keeps its logs when
// the kubelet does not say: one directory per node under the system's
// temporary directory, so that several kubelets on one machine stay apart.
func processRootDir(cfg Config) string {
	return filepath.Join(os.TempDir(), "kplane-process-runtime", cfg.NodeName)
}

// Compile-time checks that the process runtime fulfils the kubelet's
// contracts.
var (
	_ Runtime   = (*Process)(nil)
	_ Prober    = (*Process)(nil)
	_ Container = (*processContainer)(nil)
)

// ProcessOptions configure the process runtime.
type ProcessOptions struct {
	// RootDir holds one directory per pod UID and container, with the log
	// file of every run: <RootDir>/<podUID>/<container>/<attempt>.log.
	// A container without workingDir runs in its <container> directory.
	RootDir string
	// Logger receives the runtime's logs; nil uses slog.Default().
	Logger *slog.Logger
}

// Process is the process runtime: each container's command runs as a local
// process in its own process group. It implements Runtime.
//
// Limitations, all because nothing is isolated: there is no image (a
// container must have a command), no filesystem of its own (the process sees
// the machine's), no network namespace (a server listens on the machine's
// ports, which is why probes dial 127.0.0.1), no resource limits, and the
// processes run as the kubelet's user.
//
// It reads the wall clock (time.Now, time timers), never the kubelet's
// Clock: its containers are real processes, which start, write their logs,
// use CPU and ignore SIGTERM in wall time, so their start times, log
// timestamps, CPU rates and kill deadlines must be measured in it too. A
// kubelet on a fake clock runs the simulated runtime.
type Process struct {
	rootDir string
	log     *slog.Logger
}

// NewProcess returns a process runtime that keeps its logs under
// opts.RootDir, creating the directory.
func NewProcess(opts ProcessOptions) (*Process, error) {
	if opts.RootDir == "" {
		return nil, errors.New("process runtime: RootDir is required")
	}
	root, err := filepath.Abs(opts.RootDir)
	if err != nil {
		return nil, fmt.Errorf("process runtime: root dir %s: %w", opts.RootDir, err)
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("process runtime: create root dir: %w", err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Process{rootDir: root, log: log.With("runtime", ProcessName)}, nil
}

// Name is "process".
func (p *Process) Name() string { return ProcessName }

// LogPath is where the output of one run of a container is kept.
func (p *Process) LogPath(pod *api.Pod, containerName string, attempt int) string {
	return filepath.Join(p.containerDir(pod, containerName), strconv.Itoa(attempt)+".log")
}

func (p *Process) containerDir(pod *api.Pod, containerName string) string {
	return filepath.Join(p.rootDir, string(pod.UID), containerName)
}

// StartError says why a container's process could not be started: no
// command, an executable that does not exist or cannot run, a working
// directory that does not exist. containerd reports such a container as
// terminated with exit code 128 and reason StartError (ReasonStartError),
// and the kubelet shows the message; Error words it the way runc does.
type StartError struct {
	// Container is the container's name.
	Container string
	// Message says what went wrong, in runc's words where runc has some
	// (e.g. `exec: "nosuch": executable file not found in $PATH`).
	Message string
}

func (e *StartError) Error() string {
	return "unable to start container process: " + e.Message
}

// Start runs one container of pod as a local process. attempt numbers the
// runs of this container (the restart count) and names its log file.
//
// The command is spec.command followed by spec.args, with $(VAR) references
// expanded from the container's environment. Cancelling ctx stops the
// container with a short grace period: containers do not outlive their
// kubelet here, because nothing could adopt them afterwards.
//
// When the process cannot be started, Start returns a *StartError and no
// Container.
func (p *Process) Start(ctx context.Context, pod *api.Pod, container *api.Container, attempt int) (Container, error) {
	dir := p.containerDir(pod, container.Name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create container dir: %w", err)
	}
	log := p.log.With("pod", pod.Namespace+"/"+pod.Name, "container", container.Name, "attempt", attempt)
	env := containerEnv(pod, container)
	argv := containerCommand(container, env)
	workingDir := container.WorkingDir
	if workingDir == "" {
		workingDir = dir
	}
	cmd, err := buildCommand(argv, env, workingDir)
	if err != nil {
		log.Info("container failed to start", "err", err)
		return nil, &StartError{Container: container.Name, Message: err.Error()}
	}
	logs, err := createLogFile(p.LogPath(pod, container.Name, attempt))
	if err != nil {
		return nil, err
	}
	c := &processContainer{logs: logs, done: make(chan struct{}), startedAt: time.Now(),
		env: env, workingDir: workingDir, log: log,
		wantStdin: container.Stdin, stdinOnce: container.StdinOnce, wantTTY: container.TTY}
	if err := c.start(cmd); err != nil {
		logs.drain(0)
		log.Info("container failed to start", "err", err)
		return nil, &StartError{Container: container.Name, Message: err.Error()}
	}
	log.Info("container started", "pid", cmd.Process.Pid, "command", argv)

	go c.wait(cmd, log)
	go func() {
		select {
		case <-ctx.Done():
			c.Stop(contextStopGrace)
		case <-c.done:
		}
	}()
	return c, nil
}

// buildCommand checks that the process can be started and prepares it: the
// executable is looked up in the container's PATH (exec.LookPath would use
// the kubelet's), and it runs without a shell, as a container does, in a
// process group of its own.
func buildCommand(argv []string, env []string, workingDir string) (*exec.Cmd, error) {
	if len(argv) == 0 {
		// A real runtime would run the image's ENTRYPOINT; there is no image
		// here, so the pod must say what to run.
		return nil, errors.New("no command specified: the process runtime runs spec.command (and args) on this machine and has no image entrypoint to fall back to")
	}
	info, err := os.Stat(workingDir)
	if err != nil || !info.IsDir() {
		return nil, fmt.Errorf("chdir to cwd (%q) set in config.json failed: no such file or directory", workingDir)
	}
	path, err := lookPath(argv[0], envValue(env, "PATH"), workingDir)
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{
		Path: path,
		Args: argv,
		Env:  env,
		Dir:  workingDir,
		SysProcAttr: &syscall.SysProcAttr{
			// Its own process group, so that Stop signals every process of
			// the container and nothing else.
			Setpgid: true,
			// If the kubelet dies, the leader dies with it rather than
			// lingering unmanaged.
			Pdeathsig: syscall.SIGKILL,
		},
	}
	return cmd, nil
}

// processContainer is one run of a container as a process group.
//
// Invariants: done is closed exactly once, after exitCode and reason are
// final and the log file is complete, and before log followers are told the
// log has ended (so a follower that ends sees Done closed).
type processContainer struct {
	logs      *logFile
	startedAt time.Time
	done      chan struct{}
	log       *slog.Logger

	// env and workingDir are what the container's command got; an exec
	// runs with the same (process_exec.go).
	env        []string
	workingDir string

	// The container's own stdin and terminal (process_attach.go), as its
	// spec asks: with stdin, stdin is the write end of the process's stdin
	// pipe, kept open for attached clients; with tty, terminal is the
	// master side of the process's pseudo-terminal, its input and output
	// both, and stdin is the same file.
	wantStdin, stdinOnce, wantTTY bool
	stdin                         *os.File
	terminal                      *os.File
	stdinClosed                   sync.Once
	attached                      attachments

	// pgid is the process group (the leader's PID).
	pgid int

	mu       sync.Mutex
	exited   bool // the leader has been reaped; pgid may no longer be signalled
	exitCode int
	reason   string
	usage    usageSampler
}

// start launches cmd with its output going to the log file and to attached
// clients, and with a stdin or a terminal if the spec asks for one.
func (c *processContainer) start(cmd *exec.Cmd) error {
	c.logs.observe = c.attached.broadcast
	if c.wantTTY {
		if started, err := c.startWithTerminal(cmd); started || err != nil {
			return err
		}
	}
	if c.wantStdin {
		r, w, err := os.Pipe()
		if err != nil {
			return fmt.Errorf("create stdin pipe: %w", err)
		}
		// The child has its own copy of the read end once started.
		defer r.Close()
		cmd.Stdin, c.stdin = r, w
	}
	stdout, err := c.logs.stream("stdout")
	if err != nil {
		return err
	}
	stderr, err := c.logs.stream("stderr")
	if err != nil {
		stdout.Close()
		return err
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Start()
	// The child has its own copies of the write ends; the log readers see
	// EOF once every process of the container has closed them.
	stdout.Close()
	stderr.Close()
	if err != nil {
		c.closeStdin()
		return startError(cmd, err)
	}
	c.started(cmd)
	return nil
}

// started records the running process group.
func (c *processContainer) started(cmd *exec.Cmd) {
	c.pgid = cmd.Process.Pid
	c.usage = usageSampler{pgid: c.pgid, startedAt: c.startedAt}
}

// wait reaps the leader, then ends the container as a PID namespace ends
// with its PID 1: every other process of the group is killed.
func (c *processContainer) wait(cmd *exec.Cmd, log *slog.Logger) {
	err := cmd.Wait()
	code := 0
	if cmd.ProcessState != nil {
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			// A runtime reports death by signal N as exit code 128+N
			// (137 for SIGKILL, 143 for SIGTERM), as a shell does.
			code = 128 + int(ws.Signal())
		} else {
			code = cmd.ProcessState.ExitCode()
		}
	} else if err != nil {
		code = 128 // not reaped normally: report it as a runtime failure
	}
	c.mu.Lock()
	// The group's ID stays reserved while any member lives, so killing it
	// right after the leader exits cannot hit an unrelated process.
	_ = syscall.Kill(-c.pgid, syscall.SIGKILL)
	c.exited = true
	c.mu.Unlock()

	c.logs.drain(processGraceAfterLeaderExit)
	c.closeStdin()

	reason := ExitReason(code)
	c.mu.Lock()
	c.exitCode, c.reason = code, reason
	c.mu.Unlock()
	log.Info("container exited", "exitCode", code, "reason", reason)
	close(c.done)
	c.logs.finish()
}

// signal sends sig to the container's process group unless it has exited.
func (c *processContainer) signal(sig syscall.Signal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.exited || c.pgid == 0 {
		return
	}
	_ = syscall.Kill(-c.pgid, sig)
}

// Done is closed when the container has exited and its output is complete.
func (c *processContainer) Done() <-chan struct{} { return c.done }

// ExitCode is the leader's exit code (128+N after signal N); valid after Done.
func (c *processContainer) ExitCode() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exitCode
}

// Reason is Completed, Error or StartError; valid after Done.
func (c *processContainer) Reason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reason
}

// StartedAt is when the kubelet started the container.
func (c *processContainer) StartedAt() time.Time { return c.startedAt }

// Stop sends SIGTERM to every process of the container now and SIGKILL once
// grace has passed, unless the container has exited by then; it does not
// wait (Done says when the container has exited). Calling it again (say, a
// pod deletion while a liveness kill is under way) sends SIGTERM again and
// starts another grace period; the earliest one to expire kills.
func (c *processContainer) Stop(grace time.Duration) {
	c.signal(syscall.SIGTERM)
	go func() {
		timer := time.NewTimer(grace)
		defer timer.Stop()
		select {
		case <-c.done:
		case <-timer.C:
			c.signal(syscall.SIGKILL)
		}
	}()
}

// Logs returns what the container wrote to stdout and stderr, interleaved
// in the order it was written, and with follow what it writes later, until
// it exits.
func (c *processContainer) Logs(follow bool) io.ReadCloser {
	return c.logs.reader(follow, false)
}

// LogsWithTimestamps is Logs with each line prefixed by the time it was
// written (RFC 3339 with nanoseconds, then a space), as
// `kubectl logs --timestamps` prints it.
func (c *processContainer) LogsWithTimestamps(follow bool) io.ReadCloser {
	return c.logs.reader(follow, true)
}

// Usage samples the CPU time, CPU rate (averaged since the previous call)
// and resident memory of all the container's processes (process_usage.go).
func (c *processContainer) Usage() Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.exited || c.pgid == 0 {
		return Usage{}
	}
	return c.usage.sample(time.Now())
}
