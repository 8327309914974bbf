package runtime

// The process runtime's half of `kubectl attach` and `kubectl run -it`: a
// container whose spec says stdin: true gets a stdin that stays open (a
// pipe whose write end the runtime keeps), and one that says tty: true
// gets a pseudo-terminal (github.com/creack/pty) as its stdin, stdout and
// stderr, the way containerd gives a container a FIFO or a console. An
// attached client writes into that stdin and receives the container's
// output from the moment it attaches; the output still goes to the log as
// well. Upstream: containerd's attach (its cio broadcasting to every
// attached writer), kubelet's pkg/kubelet/cri/streaming/remotecommand/attach.go.

import (
	"context"
	"io"
	"os"
	"os/exec"
	"sync"

	"github.com/creack/pty"
)

// startWithTerminal starts cmd on a new pseudo-terminal: the process leads
// a session of its own with the terminal as its controlling terminal (so a
// shell gets job control and ^C), and its output is read from the master
// side into the log, as "stdout" like containerd logs a TTY container. If
// no terminal can be opened it logs why and returns started false, for the
// caller to run the container with pipes instead.
func (c *processContainer) startWithTerminal(cmd *exec.Cmd) (started bool, err error) {
	master, terminal, err := pty.Open()
	if err != nil {
		c.log.Warn("no pseudo-terminal for a tty: true container; running it with pipes", "err", err)
		return false, nil
	}
	defer terminal.Close() // the child has its own copies once started
	runOnTerminal(cmd, terminal)
	if err := cmd.Start(); err != nil {
		master.Close()
		return true, startError(cmd, err)
	}
	c.terminal, c.stdin = master, master
	c.logs.follow("stdout", master)
	c.started(cmd)
	return true, nil
}

// runOnTerminal makes tty, the slave side of a pseudo-terminal, cmd's
// stdin, stdout and stderr and its controlling terminal: the process leads
// a session of its own, so a shell gets job control and ^C. A new session
// is also a new process group with the leader's PID, so killing the group
// (Stop, an exec's end) still reaches every process. (setpgid would fail
// for a session leader.)
func runOnTerminal(cmd *exec.Cmd, tty *os.File) {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr.Setpgid = false
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setctty = true
	cmd.SysProcAttr.Ctty = 0 // the child's stdin
}

// Attach joins the container's standard streams until it exits or ctx
// ends (the client detached): streams.Stdin feeds the container's stdin if
// its spec has stdin: true (otherwise it is ignored, as upstream ignores
// it), streams.Stdout and streams.Stderr receive what the container writes
// from now on, and a TTY client's window sizes resize the container's
// terminal. With stdinOnce, the container's stdin is closed when the first
// attached client's stdin ends, which is how `kubectl run -i` ends a shell
// at the end of its input; a terminal is sent end-of-file (^D) instead,
// since its input cannot be closed alone. It implements Attacher.
func (c *processContainer) Attach(ctx context.Context, streams Streams) error {
	client := &attachment{stdout: streams.Stdout, stderr: streams.Stderr}
	if c.terminal != nil && client.stdout == nil {
		client.stdout = streams.Stderr
	}
	c.attached.add(client)
	defer c.attached.remove(client)

	if streams.Stdin != nil && c.stdin == nil {
		// Read and dropped, so that a client typing into a container
		// without stdin is not held back.
		go func() { _, _ = io.Copy(io.Discard, streams.Stdin) }()
	}
	if streams.Stdin != nil && c.stdin != nil {
		go func() {
			_, _ = io.Copy(c.stdin, streams.Stdin)
			// Ended by the client's end of input, or by the session ending
			// after the container did; only the first matters to stdinOnce.
			if c.stdinOnce && ctx.Err() == nil {
				c.endStdin()
			}
		}()
	}
	if c.terminal != nil && streams.Resize != nil {
		go resizeTerminal(ctx, c.terminal, streams.Resize)
	}
	select {
	case <-c.done:
	case <-ctx.Done():
	}
	return nil
}

// endStdin ends the container's input: closes its stdin pipe, or sends a
// terminal's end-of-file character.
func (c *processContainer) endStdin() {
	if c.terminal != nil {
		_, _ = c.terminal.Write([]byte{4}) // ^D, VEOF in a terminal's default settings
		return
	}
	c.closeStdin()
}

// closeStdin closes the write end of the container's stdin pipe, once.
// A terminal's master side is closed by the log's copier instead.
func (c *processContainer) closeStdin() {
	if c.stdin == nil || c.terminal != nil {
		return
	}
	c.stdinClosed.Do(func() { c.stdin.Close() })
}

// resizeTerminal applies each size a client sends to a terminal.
func resizeTerminal(ctx context.Context, terminal *os.File, sizes <-chan TerminalSize) {
	for {
		select {
		case size, ok := <-sizes:
			if !ok {
				return
			}
			_ = pty.Setsize(terminal, &pty.Winsize{Rows: size.Height, Cols: size.Width})
		case <-ctx.Done():
			return
		}
	}
}

// attachment is one attached client's output streams; either may be nil.
type attachment struct {
	stdout, stderr io.Writer
}

// attachments are the clients attached to a container. The container's
// output is written to each in turn as it is read, as containerd's writer
// group does: a slow client slows the container's output, and a client
// whose write fails is dropped. A client that stops reading altogether is
// dropped when its session's write times out (pkg/streaming bounds each
// write, WebSocket and SPDY alike, to a minute).
type attachments struct {
	mu      sync.Mutex
	clients map[*attachment]struct{}
}

func (a *attachments) add(client *attachment) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.clients == nil {
		a.clients = map[*attachment]struct{}{}
	}
	a.clients[client] = struct{}{}
}

func (a *attachments) remove(client *attachment) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.clients, client)
}

// broadcast writes one chunk of the container's output, read from stream
// ("stdout" or "stderr"), to every attached client that asked for it.
func (a *attachments) broadcast(stream string, p []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for client := range a.clients {
		w := client.stdout
		if stream == "stderr" {
			w = client.stderr
		}
		if w == nil {
			continue
		}
		if _, err := w.Write(p); err != nil {
			delete(a.clients, client)
		}
	}
}
