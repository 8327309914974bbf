package streaming

// This file is the entry point of the kubelet's end of `kubectl
// port-forward`: the names the protocol uses, and ServePortForward, which
// picks one of its three wire forms by the request's upgrade headers.
//
// What port-forward carries is always the same: a local TCP connection that
// kubectl accepted on 127.0.0.1:<local port> becomes a byte stream to
// <port> inside the pod, plus an error stream on which the kubelet says why
// the port could not be reached. The three forms differ in how those
// streams travel (upstream's kubelet: pkg/kubelet/cri/streaming/portforward,
// httpstream.go and websocket.go; the apiserver's tunnel:
// staging/src/k8s.io/apiserver/pkg/util/proxy/streamtunnel.go):
//
//   - SPDY/3.1 (portforward_spdy.go): for every local connection kubectl
//     opens two SPDY streams, error and data, with headers naming the port
//     and a requestID that pairs them. Many connections share one session.
//   - WebSocket tunnel (portforward_tunnel.go, kubectl ≥ 1.31): the very
//     same SPDY session, its bytes carried in WebSocket binary messages
//     (subprotocol SPDY/3.1+portforward.k8s.io).
//   - WebSocket channels (portforward_websocket.go, v4.channel.k8s.io,
//     used by the Python client): the ports are fixed by ?ports= in the
//     URL; each port gets a data channel and an error channel, and the
//     session carries one connection per port.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

// Names of the port-forward protocol, as upstream's core/v1 and
// apimachinery spell them.
const (
	// PortForwardProtocolV1 is the stream protocol kubectl asks for in
	// X-Stream-Protocol-Version (SPDY) and, behind the tunnel prefix, in
	// Sec-WebSocket-Protocol.
	PortForwardProtocolV1 = "portforward.k8s.io"
	// TunnelingProtocolPrefix marks a WebSocket subprotocol whose messages
	// carry a SPDY session ("SPDY/3.1+portforward.k8s.io").
	TunnelingProtocolPrefix = SPDY31 + "+"
	// HeaderPort names the port a stream forwards to ("80"); in the
	// WebSocket channel protocol it is the query parameter "port" or
	// "ports".
	HeaderPort = "port"
	// HeaderPortForwardRequestID pairs the error and data streams of one
	// forwarded connection. Clients older than Kubernetes 1.6 do not send
	// it; the stream IDs pair them then (see requestIDOf).
	HeaderPortForwardRequestID = "requestID"
	// StreamTypeData is the streamType of the stream carrying a
	// connection's bytes both ways.
	StreamTypeData = "data"
	// StreamTypeError is the streamType of the stream on which the
	// kubelet writes why forwarding failed (and nothing when it worked).
	StreamTypeError = "error"
)

// Timeouts of a port-forward session, upstream's kubelet defaults.
const (
	// DefaultStreamCreationTimeout bounds the wait for the second stream of
	// a pair (upstream's streaming server: 30 s).
	DefaultStreamCreationTimeout = 30 * time.Second
	// DefaultStreamIdleTimeout ends a session on which nothing moved for
	// this long (upstream: --streaming-connection-idle-timeout, 4 h).
	DefaultStreamIdleTimeout = 4 * time.Hour
)

// ForwardFunc carries one forwarded connection to port inside the pod:
// it copies between conn and the port until the pod's side is done,
// closes conn, and returns an error when the port cannot be reached (the
// error's text goes to kubectl). ctx ends when the session ends.
type ForwardFunc func(ctx context.Context, port int32, conn io.ReadWriteCloser) error

// PortForwardOptions describe the pod a session forwards to.
type PortForwardOptions struct {
	// Pod names the pod in error messages: "namespace/name".
	Pod string
	// UID is the pod's UID, also for error messages.
	UID string
	// StreamCreationTimeout bounds how long the first stream of a pair
	// waits for its partner; 0 means DefaultStreamCreationTimeout.
	StreamCreationTimeout time.Duration
	// IdleTimeout ends a session idle this long; 0 means
	// DefaultStreamIdleTimeout.
	IdleTimeout time.Duration
	// Logger receives the session's debug lines; nil means slog.Default().
	Logger *slog.Logger
}

// withDefaults fills the zero fields of o.
func (o PortForwardOptions) withDefaults() PortForwardOptions {
	if o.StreamCreationTimeout <= 0 {
		o.StreamCreationTimeout = DefaultStreamCreationTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultStreamIdleTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// forwardError is the text the kubelet writes on a pair's error stream,
// which kubectl prints after "an error occurred forwarding 8080 -> 80: ".
func (o PortForwardOptions) forwardError(port int32, err error) string {
	return fmt.Sprintf("error forwarding port %d to pod %s, uid %s: %v", port, o.Pod, o.UID, err)
}

// ServePortForward serves one port-forward request in whichever form it
// comes: a SPDY upgrade, a WebSocket carrying SPDY (the tunnel), or a
// WebSocket with the channel protocol. It returns when the session ends.
// A request that asks for no upgrade at all is answered 400.
func ServePortForward(w http.ResponseWriter, r *http.Request, forward ForwardFunc, opts PortForwardOptions) {
	opts = opts.withDefaults()
	switch {
	case IsWebSocketUpgrade(r) && tunnelingProtocolOffered(r):
		servePortForwardTunnel(w, r, forward, opts)
	case IsWebSocketUpgrade(r):
		servePortForwardWebSocket(w, r, forward, opts)
	case IsSPDYUpgrade(r):
		servePortForwardSPDY(w, r, forward, opts)
	default:
		http.Error(w, "unable to upgrade: port-forward needs a SPDY/3.1 or WebSocket upgrade request", http.StatusBadRequest)
	}
}

// tunnelingProtocolOffered reports whether one of the WebSocket
// subprotocols r offers is a tunnelled SPDY protocol.
func tunnelingProtocolOffered(r *http.Request) bool {
	for _, p := range websocket.Subprotocols(r) {
		if strings.HasPrefix(p, TunnelingProtocolPrefix) {
			return true
		}
	}
	return false
}
