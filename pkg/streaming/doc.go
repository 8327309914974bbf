// Package streaming holds the wire protocols of `kubectl exec`, `kubectl
// attach` and `kubectl port-forward` that the kubelet's server speaks and
// any client of it can share: protocol negotiation, the SPDY/3.1 upgrade
// (through github.com/moby/spdystream, the library upstream uses), and the
// WebSocket channel protocols (channel.k8s.io, v4 and v5, through
// github.com/gorilla/websocket).
//
// Two generations of protocol exist side by side, and kubectl picks by its
// version:
//
//   - SPDY/3.1 (every kubectl; the only one before 1.30 for exec and before
//     1.31 for port-forward): one TCP connection carries many streams, each
//     opened by the client with a streamType header (stdin, stdout,
//     stderr, error, resize; data and error per forwarded port).
//   - WebSocket (exec and attach from kubectl 1.30, v5.channel.k8s.io): each
//     binary message starts with one byte naming its channel (0 stdin,
//     1 stdout, 2 stderr, 3 error, 4 resize, and in v5 255 to close a
//     channel). Port-forward from kubectl 1.31 tunnels the SPDY protocol
//     itself inside WebSocket messages (subprotocol
//     SPDY/3.1+portforward.k8s.io).
//
// Whatever the protocol, a session ends with a Status on the error
// channel: Success, or Failure with reason NonZeroExitCode and the exit
// code as a cause, which kubectl turns into its own exit code. Port-forward
// is the exception: its error streams carry plain text, the reason a port
// could not be reached, and nothing when the connection went well.
//
// Files: spdy.go (negotiation and the SPDY upgrade), wsconn.go (a WebSocket
// as a net.Conn), websocket_channels.go (the channel framing exec and
// port-forward share), remotecommand*.go and status.go (exec and attach),
// portforward*.go (port-forward).
package streaming
