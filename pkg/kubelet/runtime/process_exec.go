package runtime

// The process runtime's half of `kubectl exec` (and `kubectl cp`, which
// runs tar through it): the command runs as one more local process beside
// the container's, with the container's environment and in its working
// directory, as runc runs an exec'd process inside the container's
// namespaces with the container's process spec. What a real container
// would also give it (the container's filesystem, PID and network
// namespaces) does not exist here: the command sees this machine.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// initialTerminalSizeWait bounds how long a TTY exec waits for the
// client's first window size before starting the command. kubectl sends it
// right after opening the session, within milliseconds; a command such as
// stty, top or vi reads the size once at start, so starting before it
// arrives would show 0x0. A client that never sends one only delays the
// start by this much.
const initialTerminalSizeWait = time.Second

// Compile-time checks that the process runtime's containers can be exec'd
// into and attached to.
var (
	_ Execer   = (*processContainer)(nil)
	_ Attacher = (*processContainer)(nil)
)

// Exec runs command beside the container until it exits and returns its
// exit code (128+N after signal N). The command is not expanded in any way
// (no shell, no $(VAR)): `kubectl exec p -- sh -c '…'` brings its own
// shell. It ends early, killed with everything it started, when ctx ends
// (the client went away) or the container exits, as exec'd processes die
// with a container's PID namespace.
//
// A command that cannot start returns an error in runc's words, wrapping
// ErrCommandNotFound when the executable does not exist (exit code 127,
// else 126, as a shell reports them).
func (c *processContainer) Exec(ctx context.Context, command []string, streams Streams) (int, error) {
	cmd, err := buildCommand(command, c.env, c.workingDir)
	if err != nil {
		code := 126
		if errors.Is(err, ErrCommandNotFound) || errors.Is(err, fs.ErrNotExist) {
			code = 127
		}
		return code, fmt.Errorf("failed to exec in container: unable to start container process: %w", err)
	}
	if streams.TTY {
		if code, started, err := c.execWithTerminal(ctx, cmd, streams); started {
			return code, err
		}
	}
	return c.execWithPipes(ctx, cmd, streams)
}

// execWithPipes runs cmd with the session's streams as its stdin, stdout
// and stderr. A stream the client did not ask for is /dev/null.
func (c *processContainer) execWithPipes(ctx context.Context, cmd *exec.Cmd, streams Streams) (int, error) {
	var stdin *os.File
	if streams.Stdin != nil {
		r, w, err := os.Pipe()
		if err != nil {
			return 126, fmt.Errorf("failed to exec in container: create stdin pipe: %w", err)
		}
		defer r.Close()
		cmd.Stdin, stdin = r, w
		// This copy ends when the client ends its input or the session
		// ends; the command may exit long before, and does not wait for it.
		go func() {
			_, _ = io.Copy(w, streams.Stdin)
			w.Close()
		}()
	}
	if streams.Stdout != nil {
		cmd.Stdout = streams.Stdout
	}
	if streams.Stderr != nil {
		cmd.Stderr = streams.Stderr
	} else if streams.TTY {
		cmd.Stderr = streams.Stdout // a terminal session has one output
	}
	// A background process that keeps the output open must not hold the
	// session once the command itself has exited.
	cmd.WaitDelay = processGraceAfterLeaderExit
	if err := cmd.Start(); err != nil {
		if stdin != nil {
			stdin.Close()
		}
		return 126, fmt.Errorf("failed to exec in container: unable to start container process: %w", startError(cmd, err))
	}
	c.log.Debug("exec started", "pid", cmd.Process.Pid, "command", cmd.Args)
	return c.waitExec(ctx, cmd)
}

// execWithTerminal runs cmd on a new pseudo-terminal whose master side
// carries the session's stdin and stdout, sized as the client's window.
// started is false (after a log line) when no terminal could be opened,
// for the caller to run it with pipes instead.
func (c *processContainer) execWithTerminal(ctx context.Context, cmd *exec.Cmd, streams Streams) (code int, started bool, err error) {
	master, terminal, err := pty.Open()
	if err != nil {
		c.log.Warn("no pseudo-terminal for exec -t; running the command with pipes", "err", err)
		return 0, false, nil
	}
	defer master.Close()
	runOnTerminal(cmd, terminal)
	// kubectl sends its window's size as soon as the session opens: wait
	// for it, so that the command starts with it rather than at 0x0.
	if streams.Resize != nil {
		wait := time.NewTimer(initialTerminalSizeWait)
		select {
		case size, ok := <-streams.Resize:
			if ok {
				_ = pty.Setsize(master, &pty.Winsize{Rows: size.Height, Cols: size.Width})
			}
		case <-wait.C:
		case <-ctx.Done():
		}
		wait.Stop()
	}
	err = cmd.Start()
	terminal.Close() // the child has its own copies
	if err != nil {
		return 126, true, fmt.Errorf("failed to exec in container: unable to start container process: %w", startError(cmd, err))
	}
	c.log.Debug("exec started on a terminal", "pid", cmd.Process.Pid, "command", cmd.Args)
	resizeCtx, stopResizing := context.WithCancel(ctx)
	defer stopResizing()
	if streams.Resize != nil {
		go resizeTerminal(resizeCtx, master, streams.Resize)
	}
	if streams.Stdin != nil {
		go func() { _, _ = io.Copy(master, streams.Stdin) }()
	}
	output := make(chan struct{})
	go func() {
		defer close(output)
		if streams.Stdout != nil {
			// Ends with EIO once every process has closed the terminal.
			_, _ = io.Copy(streams.Stdout, master)
		} else {
			_, _ = io.Copy(io.Discard, master)
		}
	}()
	code, err = c.waitExec(ctx, cmd)
	// The last output may still be in the terminal; a background process
	// holding it open only gets the grace period.
	grace := time.NewTimer(processGraceAfterLeaderExit)
	defer grace.Stop()
	select {
	case <-output:
	case <-ctx.Done():
	case <-grace.C:
	}
	return code, true, err
}

// waitExec waits for an exec'd command, killing its process group if ctx
// ends or the container exits first.
func (c *processContainer) waitExec(ctx context.Context, cmd *exec.Cmd) (int, error) {
	_, err := waitOrKill(cmd, ctx.Done(), c.done)
	if cmd.ProcessState == nil {
		return 128, fmt.Errorf("failed to exec in container: wait: %w", err)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return cmd.ProcessState.ExitCode(), nil
}

// waitOrKill waits for a started cmd, killing its process group (SIGKILL)
// as soon as stop or containerDone closes; a nil channel never does.
// killed says whether it had to; err is cmd.Wait's. Exec and exec probes
// share it.
func waitOrKill(cmd *exec.Cmd, stop, containerDone <-chan struct{}) (killed bool, err error) {
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err = <-waited:
		return false, err
	case <-stop:
	case <-containerDone:
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return true, <-waited
}

// startError words a failed start as runc does: exec: "/bin/x": permission denied.
func startError(cmd *exec.Cmd, err error) error {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return fmt.Errorf("exec: %q: %w", cmd.Args[0], pathErr.Err)
	}
	return err
}
