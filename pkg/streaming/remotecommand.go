package streaming

// This file is the server's side of the remote command protocols behind
// `kubectl exec` and `kubectl attach`, whatever carries them: which
// streams a session has (the query), the protocol versions, and the
// Session a handler works with once the connection is upgraded.
// remotecommand_websocket.go and remotecommand_spdy.go carry a Session over
// their transport. Upstream's counterpart is the kubelet's
// pkg/kubelet/cri/streaming/remotecommand (httpstream.go, websocket.go).

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"

	"kplane/pkg/api"
)

// The remote command protocol versions, as upstream's
// apimachinery/pkg/util/remotecommand names them. Each adds to the one
// before:
//
//   - channel.k8s.io (v1): stdin, stdout, stderr and an error stream
//     carrying a failure's text.
//   - v2: the error stream is written only at the end (v1 kubelets reset it
//     early).
//   - v3: a resize stream carries the client's terminal sizes as JSON.
//   - v4: the error stream carries a JSON meta/v1 Status, with the exit
//     code of a command that failed.
//   - v5 (WebSocket only): a client can close one channel, so stdin can end
//     without ending the session (message {255, channel}).
const (
	RemoteCommandV1 = "channel.k8s.io"
	RemoteCommandV2 = "v2.channel.k8s.io"
	RemoteCommandV3 = "v3.channel.k8s.io"
	RemoteCommandV4 = "v4.channel.k8s.io"
	RemoteCommandV5 = "v5.channel.k8s.io"
)

// The streamType header values of a session's SPDY streams, besides
// StreamTypeError (portforward.go), on which the Status that ends the
// session comes. Their WebSocket channel numbers follow the same order:
// stdin 0, stdout 1, stderr 2, error 3, resize 4.
const (
	StreamTypeStdin  = "stdin"
	StreamTypeStdout = "stdout"
	StreamTypeStderr = "stderr"
	StreamTypeResize = "resize"
)

// TerminalSize is a client's terminal size in characters, sent on the
// resize stream as JSON ({"Width":80,"Height":24}, upstream's field names).
type TerminalSize struct {
	Width  uint16
	Height uint16
}

// RemoteCommandOptions say which streams an exec or attach session has,
// from the request's query: stdin, stdout, stderr and tty, each "true" or
// "1" (kubectl sends true; upstream's apiserver rewrites it to 1 for the
// kubelet, and kplane's apiserver passes the query unchanged).
type RemoteCommandOptions struct {
	Stdin  bool
	Stdout bool
	Stderr bool
	TTY    bool
}

// ParseRemoteCommandOptions reads the options from a query. A terminal has
// one output, so with tty stderr is dropped, as upstream's kubelet drops it
// (kubectl never asks for both). A session with no stream at all is
// refused with upstream's message.
func ParseRemoteCommandOptions(query url.Values) (RemoteCommandOptions, error) {
	flag := func(name string) bool {
		v := query.Get(name)
		return v == "1" || v == "true"
	}
	opts := RemoteCommandOptions{Stdin: flag("stdin"), Stdout: flag("stdout"), Stderr: flag("stderr"), TTY: flag("tty")}
	if opts.TTY && opts.Stderr {
		opts.Stderr = false
	}
	if !opts.Stdin && !opts.Stdout && !opts.Stderr {
		return opts, errors.New("you must specify at least 1 of stdin, stdout, stderr")
	}
	return opts, nil
}

// Session is the server's side of one exec or attach connection, once
// upgraded. The streams the client did not ask for are nil. A handler runs
// the command with them and ends the session with Finish; Gone is closed
// if the client goes away first.
type Session struct {
	// Protocol is the negotiated protocol, e.g. v5.channel.k8s.io.
	Protocol string
	// Transport is "websocket" or "spdy", for logs.
	Transport string

	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	TTY    bool
	// Resize delivers the client's terminal sizes (TTY sessions of v3 and
	// later); it is closed when the client stops sending them.
	Resize <-chan TerminalSize

	gone <-chan struct{}
	conn sessionConn
}

// sessionConn is what a transport does for a Session.
type sessionConn interface {
	// closeOutput ends stdout and stderr, so the client has read
	// everything once it sees them end.
	closeOutput()
	// writeStatus writes the encoded Status on the error stream.
	writeStatus(b []byte) error
	// close ends the connection after the Status, letting the client read
	// it first.
	close()
}

// Gone is closed when the client has gone away: the connection broke or
// the client closed it.
func (s *Session) Gone() <-chan struct{} { return s.gone }

// Context returns a context derived from parent that ends when the client
// goes away, for the command the session runs. After an upgrade the HTTP
// server no longer watches the connection, so the request's own context
// does not end then.
func (s *Session) Context(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	go func() {
		select {
		case <-s.gone:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// Finish ends the session: stdout and stderr end, the Status goes on the
// error stream (as JSON from v4 on, as a failure's text before), and the
// connection closes once the client has had it.
func (s *Session) Finish(status api.Status) error {
	s.conn.closeOutput()
	b, err := encodeStatus(status, s.jsonStatus())
	if err == nil && len(b) > 0 {
		err = s.conn.writeStatus(b)
	}
	s.conn.close()
	return err
}

// jsonStatus reports whether the protocol writes the Status as JSON.
func (s *Session) jsonStatus() bool {
	switch s.Protocol {
	case RemoteCommandV4, RemoteCommandV5, websocketV4Base64:
		return true
	}
	return false
}

// AcceptRemoteCommand upgrades an exec or attach request to a Session:
// WebSocket when the client asks for it (GET with Upgrade: websocket,
// kubectl from 1.30), SPDY/3.1 otherwise (POST, every older kubectl). When
// it fails it has answered the request (or closed the upgraded connection)
// and returns why.
func AcceptRemoteCommand(w http.ResponseWriter, r *http.Request, opts RemoteCommandOptions) (*Session, error) {
	if IsWebSocketUpgrade(r) {
		return acceptWebSocket(w, r, opts)
	}
	return acceptSPDY(w, r, opts, DefaultStreamCreationTimeout)
}

// decodeResizes reads the TerminalSizes a client sends on r, as upstream's
// handleResizeEvents, until r ends or holds something else. The channel it
// returns holds the newest size not yet taken and is closed at the end: a
// command that never asks for sizes (no TTY) cannot hold the client back,
// and one that does gets the latest, which is the only one that matters.
func decodeResizes(r io.Reader) <-chan TerminalSize {
	sizes := make(chan TerminalSize, 1)
	go func() {
		defer close(sizes)
		decoder := json.NewDecoder(r)
		for {
			var size TerminalSize
			if err := decoder.Decode(&size); err != nil {
				return
			}
			select {
			case sizes <- size:
			default:
				// Replace the size nobody took; this goroutine is the only
				// sender, so the send after the drain cannot block.
				select {
				case <-sizes:
				default:
				}
				sizes <- size
			}
		}
	}()
	return sizes
}
