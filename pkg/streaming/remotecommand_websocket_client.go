package streaming

// The client's side of the WebSocket transport of exec and attach, as
// client-go's tools/remotecommand/websocket.go speaks it: `ctl exec` and
// the tests use it. The client sends stdin on channel 0 (and, in v5,
// {255, 0} at its end), its terminal sizes on channel 4, and copies
// channels 1 and 2 to its stdout and stderr until the server's close
// frame; what came on channel 3 is the Status that says how the command
// ended.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/gorilla/websocket"
)

// RemoteCommandClient is one exec or attach session a client runs over
// WebSocket.
type RemoteCommandClient struct {
	// Dialer dials the server (TLS configuration, proxy); nil means
	// websocket.DefaultDialer.
	Dialer *websocket.Dialer
	// Header is sent with the upgrade request (Authorization, …).
	Header http.Header
	// Protocols are the subprotocols offered, in order of preference;
	// empty means v5.channel.k8s.io, the only one client-go offers.
	Protocols []string

	// The session's streams; nil ones were not asked for in the URL.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Resize sends the client's terminal sizes while the session lasts.
	Resize <-chan TerminalSize
}

// Stream runs the session at url (ws:// or wss://, with the query that
// names the command and the streams) until the server ends it, and returns
// what its Status says: nil for success, an *ExitCodeError for a command
// that exited non-zero, another error otherwise (an upgrade the server
// refused included).
func (c *RemoteCommandClient) Stream(ctx context.Context, url string) error {
	dialer := c.Dialer
	if dialer == nil {
		dialer = websocket.DefaultDialer
	}
	protocols := c.Protocols
	if len(protocols) == 0 {
		protocols = []string{RemoteCommandV5}
	}
	d := *dialer
	d.Subprotocols = protocols
	ws, resp, err := d.DialContext(ctx, url, c.Header)
	if err != nil {
		if resp != nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 64*1024))
			resp.Body.Close()
			return fmt.Errorf("unable to upgrade connection: %s", bytes.TrimSpace(body))
		}
		return fmt.Errorf("unable to upgrade connection: %w", err)
	}
	defer ws.Close()
	protocol := ws.Subprotocol()
	if _, ok := websocketProtocols[protocol]; !ok || websocketProtocols[protocol] {
		return fmt.Errorf("server chose an unsupported protocol %q", protocol)
	}
	stop := context.AfterFunc(ctx, func() { ws.Close() })
	defer stop()

	var writeMu sync.Mutex
	send := func(msg []byte) error {
		writeMu.Lock()
		defer writeMu.Unlock()
		return ws.WriteMessage(websocket.BinaryMessage, msg)
	}
	if c.Stdin != nil {
		go func() {
			buf := make([]byte, 32*1024)
			for {
				n, err := c.Stdin.Read(buf)
				if n > 0 {
					if send(append([]byte{channelStdin}, buf[:n]...)) != nil {
						return
					}
				}
				if err != nil {
					if protocol == RemoteCommandV5 {
						_ = send([]byte{channelClose, channelStdin})
					}
					return
				}
			}
		}()
	}
	if c.Resize != nil {
		go func() {
			for size := range c.Resize {
				b, _ := json.Marshal(size)
				if send(append([]byte{channelResize}, b...)) != nil {
					return
				}
			}
		}()
	}

	var status bytes.Buffer
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			var closeErr *websocket.CloseError
			if errors.As(err, &closeErr) && closeErr.Code == websocket.CloseNormalClosure {
				break
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("read from the session: %w", err)
		}
		if len(data) == 0 {
			continue
		}
		var w io.Writer
		switch data[0] {
		case channelStdout:
			w = c.Stdout
		case channelStderr:
			w = c.Stderr
		case channelError:
			w = &status
		}
		if w != nil && len(data) > 1 {
			if _, err := w.Write(data[1:]); err != nil {
				return fmt.Errorf("write the session's output: %w", err)
			}
		}
	}
	switch protocol {
	case RemoteCommandV4, RemoteCommandV5:
		return DecodeStatus(status.Bytes())
	}
	if status.Len() > 0 {
		return errors.New(status.String())
	}
	return nil
}
