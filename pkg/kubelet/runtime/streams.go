package runtime

// This file is the runtime's half of `kubectl exec`, `kubectl attach` and
// `kubectl port-forward`. The kubelet's server (pkg/kubelet/server) speaks
// the wire protocols with the apiserver — WebSocket channels or SPDY
// streams — and hands a runtime plain Go streams; a runtime never sees a
// protocol. Upstream draws the same line: the kubelet's streaming server
// turns the protocol into io.Reader/io.Writer pairs for the CRI runtime.

import (
	"context"
	"fmt"
	"io"

	"kplane/pkg/api"
	"kplane/pkg/streaming"
)

// TerminalSize is a terminal's size in characters, as a client reports it
// when it starts a session with a TTY and whenever its window changes. It
// is the wire type itself, so the server hands the session's sizes to the
// runtime as they come.
type TerminalSize = streaming.TerminalSize

// Streams are the standard streams of one exec or attach session. A nil
// stream was not asked for: kubectl exec without -i sends no Stdin. With
// TTY, Stderr is nil (a terminal has one output) and Resize delivers the
// client's window sizes until the session ends.
type Streams struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	TTY    bool
	Resize <-chan TerminalSize
}

// Execer is implemented by a Container that can run a further command
// beside its own (`kubectl exec`). Exec returns the command's exit code
// once it has exited and its output is written; err is for a command that
// could not run at all (err wrapping ErrCommandNotFound: exit code 127, as
// a shell would say). ctx ends when the client goes away.
type Execer interface {
	Exec(ctx context.Context, cmd []string, streams Streams) (exitCode int, err error)
}

// Attacher is implemented by a Container whose own standard streams a
// client can join (`kubectl attach`, `kubectl run -it`): Stdin feeds the
// container's stdin (when its spec says stdin: true), Stdout and Stderr
// receive what it writes from now on. Attach returns when the container
// exits or ctx ends (the client detached).
type Attacher interface {
	Attach(ctx context.Context, streams Streams) error
}

// PortForwarder is implemented by a Runtime that can carry a connection to
// a port inside a pod (`kubectl port-forward`). PortForward copies between
// conn and the pod's port until either side closes, then closes conn. The
// process runtime dials the container's process on 127.0.0.1:port: a pod
// IP is a label in kplane, never dialled.
type PortForwarder interface {
	PortForward(ctx context.Context, pod *api.Pod, port int32, conn io.ReadWriteCloser) error
}

// ErrCommandNotFound marks an Exec whose command does not exist in the
// container.
var ErrCommandNotFound = fmt.Errorf("executable file not found")
