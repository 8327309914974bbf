package runtime

// This file is the simulated runtime's half of `kubectl port-forward`.
// Nothing listens in a simulated pod, so a forwarded connection is refused
// with the words a real node uses when nothing listens on the port — except
// where a real pod would have a web server: a container with an nginx image
// answers HTTP on its port as nginx's default server (simhttp.go), without
// any process, socket or pod IP involved.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"kplane/pkg/api"
)

var _ PortForwarder = (*Simulated)(nil)

// PortForward answers HTTP on conn as the pod's nginx container would, or
// returns the refusal a real node reports when nothing listens on port.
func (s *Simulated) PortForward(ctx context.Context, pod *api.Pod, port int32, conn io.ReadWriteCloser) error {
	defer conn.Close()
	container := simulatedHTTPContainer(pod, port)
	if container == nil {
		return fmt.Errorf("failed to connect to localhost:%d inside pod %q, IPv4: dial tcp4 127.0.0.1:%d: connect: connection refused"+
			" (simulated runtime: nothing listens in a simulated pod; only a container with an nginx image answers HTTP, on port 80 or a port it declares)",
			port, pod.Namespace+"/"+pod.Name, port)
	}
	serveSimulatedHTTP(ctx, conn, func(req *http.Request) *http.Response { return nginxResponse(pod, req) })
	return nil
}

// simulatedHTTPContainer is the first container of pod that answers HTTP
// on port in the simulation, or nil. A container whose last reported state
// is not running (it exited, or waits in CrashLoopBackOff) answers nothing,
// as its real process would not be there to listen.
func simulatedHTTPContainer(pod *api.Pod, port int32) *api.Container {
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		if isNginxImage(c.Image) && listensOn(c, port) && !reportedNotRunning(pod, c.Name) {
			return c
		}
	}
	return nil
}

// reportedNotRunning reports whether pod's status says container is not
// running; a container with no status yet gets the benefit of the doubt.
func reportedNotRunning(pod *api.Pod, container string) bool {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name == container {
			return cs.State.Running == nil
		}
	}
	return false
}

// serveSimulatedHTTP reads HTTP/1.x requests from conn and writes answer's
// responses, keeping the connection alive as the client asks, until the
// client is done or ctx ends. A request that does not parse gets 400 and
// the connection is closed, as nginx does.
func serveSimulatedHTTP(ctx context.Context, conn io.ReadWriter, answer func(*http.Request) *http.Response) {
	in := bufio.NewReader(conn)
	for ctx.Err() == nil {
		req, err := http.ReadRequest(in)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return
		}
		if err != nil {
			bad := &http.Response{StatusCode: http.StatusBadRequest, ProtoMajor: 1, ProtoMinor: 1, Close: true,
				Header: http.Header{"Server": {"nginx"}, "Content-Type": {"text/html"}}}
			body := nginxErrorPage(http.StatusBadRequest, "Bad Request")
			bad.ContentLength, bad.Body = int64(len(body)), io.NopCloser(bytes.NewReader(body))
			_ = bad.Write(conn)
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		resp := answer(req)
		if err := resp.Write(conn); err != nil || resp.Close {
			return
		}
	}
}
