package streaming

// This file turns a WebSocket into a net.Conn, which is how port-forward's
// tunnel runs an unchanged SPDY session over WebSocket (upstream:
// client-go tools/portforward/tunneling_connection.go, used on both ends).

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// WebSocketConn is a net.Conn whose bytes travel in the binary messages of
// a WebSocket. Message boundaries mean nothing: a Read may return part of a
// message or continue where the last one stopped, and each Write sends one
// message. A text message is a protocol error. A normal close from the
// peer reads as io.EOF.
type WebSocketConn struct {
	ws *websocket.Conn

	// readMu guards current, the message being read; a WebSocket has one
	// reader at a time.
	readMu  sync.Mutex
	current io.Reader
	// writeMu serializes writers: gorilla/websocket allows one at a time.
	writeMu   sync.Mutex
	closeOnce sync.Once
}

// NewWebSocketConn wraps ws as a net.Conn.
func NewWebSocketConn(ws *websocket.Conn) *WebSocketConn {
	return &WebSocketConn{ws: ws}
}

var _ net.Conn = (*WebSocketConn)(nil)

// Read reads the next bytes of the current message, moving on to the next
// message when it is exhausted.
func (c *WebSocketConn) Read(p []byte) (int, error) {
	c.readMu.Lock()
	defer c.readMu.Unlock()
	for {
		if c.current == nil {
			messageType, r, err := c.ws.NextReader()
			if err != nil {
				if websocket.IsCloseError(err, websocket.CloseNormalClosure) {
					return 0, io.EOF
				}
				return 0, err
			}
			if messageType != websocket.BinaryMessage {
				return 0, fmt.Errorf("websocket tunnel: got a text message, want binary")
			}
			c.current = r
		}
		n, err := c.current.Read(p)
		if errors.Is(err, io.EOF) {
			c.current = nil
			if n == 0 {
				continue
			}
			err = nil
		}
		return n, err
	}
}

// Write sends p as one binary message.
func (c *WebSocketConn) Write(p []byte) (int, error) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if err := c.ws.WriteMessage(websocket.BinaryMessage, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close sends a normal close message (best effort, for a second at most)
// and closes the connection.
func (c *WebSocketConn) Close() error {
	err := net.ErrClosed
	c.closeOnce.Do(func() {
		msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
		_ = c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
		err = c.ws.Close()
	})
	return err
}

// LocalAddr returns the local network address.
func (c *WebSocketConn) LocalAddr() net.Addr { return c.ws.LocalAddr() }

// RemoteAddr returns the peer's network address.
func (c *WebSocketConn) RemoteAddr() net.Addr { return c.ws.RemoteAddr() }

// SetDeadline sets the read and write deadlines.
func (c *WebSocketConn) SetDeadline(t time.Time) error {
	return errors.Join(c.ws.SetReadDeadline(t), c.ws.SetWriteDeadline(t))
}

// SetReadDeadline sets the read deadline.
func (c *WebSocketConn) SetReadDeadline(t time.Time) error { return c.ws.SetReadDeadline(t) }

// SetWriteDeadline sets the write deadline.
func (c *WebSocketConn) SetWriteDeadline(t time.Time) error { return c.ws.SetWriteDeadline(t) }
