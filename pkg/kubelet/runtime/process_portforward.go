package runtime

// This file is the process runtime's half of `kubectl port-forward`. A
// real runtime enters the pod's network namespace and dials localhost:<port>
// there (containerd's sandbox_portforward_linux.go). A process-runtime
// container has no namespace of its own: its process listens on the
// machine's loopback, so the runtime dials 127.0.0.1:<port> and never a pod
// IP, which in kplane is only a label. The flip side, said plainly: every
// process pod shares that loopback, so whatever listens on the port
// answers, whichever pod it belongs to.

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"

	"kplane/pkg/api"
)

var _ PortForwarder = (*Process)(nil)

// PortForward dials 127.0.0.1:port and copies between conn and that
// connection until the pod's side is done, ctx ends, or the copy fails.
func (p *Process) PortForward(ctx context.Context, pod *api.Pod, port int32, conn io.ReadWriteCloser) error {
	defer conn.Close()
	var d net.Dialer
	target, err := d.DialContext(ctx, "tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port))))
	if err != nil {
		// Upstream's containerd says: failed to connect to localhost:80
		// inside namespace "<sandbox>", IPv4: dial tcp4 127.0.0.1:80: …
		return fmt.Errorf("failed to connect to localhost:%d inside pod %q, IPv4: %w", port, pod.Namespace+"/"+pod.Name, err)
	}
	copyBothWays(ctx, conn, target)
	return nil
}

// copyBothWays copies client → target and target → client. When the client
// has nothing more to send, target's write side is closed (a TCP half
// close), so a server that reads to the end still answers; the copy ends
// when target has nothing more to send or ctx ends. It closes target. A
// copy that breaks off is not reported: the connection was made, and one
// side hanging up is how connections end (containerd only logs it too).
func copyBothWays(ctx context.Context, client io.ReadWriter, target net.Conn) {
	defer target.Close()
	stop := context.AfterFunc(ctx, func() { target.Close() })
	defer stop()
	go func() {
		_, _ = io.Copy(target, client)
		if tcp, ok := target.(*net.TCPConn); ok {
			_ = tcp.CloseWrite()
		}
	}()
	_, _ = io.Copy(client, target)
}
