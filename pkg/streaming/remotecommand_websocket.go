package streaming

// The WebSocket transport of exec and attach (kubectl from 1.30 asks for
// v5.channel.k8s.io). Every message is one channel's data, its first byte
// naming the channel:
//
//	client → server   {0, 'l','s','\n'}        stdin "ls\n"
//	server → client   {1, 'b','i','n','\n'}    stdout "bin\n"
//	client → server   {4, '{','"','W',…}       resize {"Width":80,"Height":24}
//	client → server   {255, 0}                 v5: stdin is closed (EOF)
//	server → client   {3, '{',…,'}'}           the Status that ends the session
//	server → client   close frame 1000         then the client closes too
//
// The base64 variants (base64.channel.k8s.io, v4.base64.channel.k8s.io)
// send text messages instead: the channel as an ASCII digit ('0'…'4'),
// then the data base64-encoded, for clients that cannot send binary
// messages (browsers of old).
//
// Keepalive: client-go pings every 5 seconds and gives up after a minute
// without a pong; gorilla/websocket answers pings while the read loop runs.
// Upstream: apimachinery's httpstream/wsstream/conn.go (the framing),
// pkg/kubelet/cri/streaming/remotecommand/websocket.go (the channels),
// client-go's tools/remotecommand/websocket.go (what the client expects).

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// The WebSocket subprotocols of exec and attach besides RemoteCommandV*.
const (
	websocketBase64   = "base64.channel.k8s.io"
	websocketV4Base64 = "v4.base64.channel.k8s.io"
)

// channelClose is the v5 message that closes one channel: {255, channel}.
const channelClose = 255

// The channel numbers of the remote command protocols.
const (
	channelStdin  = 0
	channelStdout = 1
	channelStderr = 2
	channelError  = 3
	channelResize = 4
)

// websocketProtocols are the subprotocols the server accepts, each with
// whether it is base64-encoded. The empty protocol (a client that names
// none) is channel.k8s.io.
var websocketProtocols = map[string]bool{
	RemoteCommandV5:   false,
	RemoteCommandV4:   false,
	websocketV4Base64: true,
	RemoteCommandV3:   false,
	RemoteCommandV2:   false,
	RemoteCommandV1:   false,
	websocketBase64:   true,
	"":                false,
}

// websocketFinishTimeout bounds how long the server waits, after its close
// frame, for the client to close the connection: client-go does so once it
// has read everything the server sent.
const websocketFinishTimeout = 15 * time.Second

// clientWriteTimeout bounds one write to the client, a WebSocket message
// or a SPDY frame, so that a client that stopped reading cannot hold the
// session for ever (client-go's is a minute too). A variable only so that
// a test can shorten it.
var clientWriteTimeout = time.Minute

// clientStreamSetupGrace is how long the server waits after the upgrade
// before it writes, for the client to register its streams.
const clientStreamSetupGrace = 20 * time.Millisecond

// negotiateWebSocketProtocol picks the first of the client's subprotocols,
// in the client's order of preference, that the server supports.
func negotiateWebSocketProtocol(r *http.Request) (string, error) {
	offered := websocket.Subprotocols(r)
	if len(offered) == 0 {
		return "", nil
	}
	for _, p := range offered {
		if _, ok := websocketProtocols[p]; ok && p != "" {
			return p, nil
		}
	}
	return "", fmt.Errorf("requested protocol(s) are not supported: %v; supports %v", offered,
		[]string{RemoteCommandV5, RemoteCommandV4, websocketV4Base64, RemoteCommandV3, RemoteCommandV2, RemoteCommandV1, websocketBase64})
}

// acceptWebSocket upgrades r to a WebSocket session.
func acceptWebSocket(w http.ResponseWriter, r *http.Request, opts RemoteCommandOptions) (*Session, error) {
	protocol, err := negotiateWebSocketProtocol(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, err
	}
	header := http.Header{}
	if protocol != "" {
		header.Set("Sec-WebSocket-Protocol", protocol)
	}
	upgrader := websocket.Upgrader{
		// The kubelet authenticates its caller by client certificate; the
		// Origin of a browser page means nothing here.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	ws, err := upgrader.Upgrade(w, r, header)
	if err != nil {
		return nil, fmt.Errorf("websocket upgrade: %w", err)
	}
	if protocol == "" {
		protocol = RemoteCommandV1
	}
	c := &wsSession{ws: ws, base64: websocketProtocols[protocol], v5: protocol == RemoteCommandV5,
		gone: make(chan struct{})}
	s := &Session{Protocol: protocol, Transport: "websocket", TTY: opts.TTY, gone: c.gone, conn: c}
	if opts.Stdin {
		r, w := io.Pipe()
		c.inputs[channelStdin], s.Stdin = w, r
	}
	if opts.Stdout {
		s.Stdout = &wsChannel{session: c, channel: channelStdout}
	}
	if opts.Stderr {
		s.Stderr = &wsChannel{session: c, channel: channelStderr}
	}
	// Upstream always opens the resize channel; sizes only come with a TTY.
	resizeR, resizeW := io.Pipe()
	c.inputs[channelResize] = resizeW
	s.Resize = decodeResizes(resizeR)
	go c.readLoop()

	// An empty message on the first channel the server writes tells the
	// client the session is established, as upstream's kubelet does. It
	// waits a moment first: client-go starts reading the connection before
	// it has registered its streams, and drops a message that arrives in
	// between ("Unknown stream id 1, discarding message" on kubectl's
	// stderr, or lost output). Upstream's own latency (a SPDY dial to the
	// kubelet, a CRI exec) hides that race; kplane's simulated runtime
	// answers at once.
	time.Sleep(clientStreamSetupGrace)
	first := byte(channelError)
	switch {
	case opts.Stdout:
		first = channelStdout
	case opts.Stderr:
		first = channelStderr
	}
	if _, err := c.write(first, nil); err != nil {
		c.close()
		return nil, fmt.Errorf("websocket: write the first message: %w", err)
	}
	return s, nil
}

// wsSession is one WebSocket connection carrying a session's channels.
//
// Invariants: only readLoop reads ws; writes hold writeMu; inputs[n] is
// the write end of the pipe a readable channel's data goes into (stdin,
// resize), closed when the client closes the channel (v5), when the
// connection ends, or when the session finishes.
type wsSession struct {
	ws     *websocket.Conn
	base64 bool
	v5     bool

	writeMu sync.Mutex
	inputs  [channelResize + 1]*io.PipeWriter

	gone     chan struct{} // closed when readLoop has ended
	goneOnce sync.Once
}

// readLoop hands each message to its channel until the connection ends.
// Reading is also what answers the client's pings and notices its close
// frame.
func (c *wsSession) readLoop() {
	defer func() {
		for _, in := range c.inputs {
			if in != nil {
				in.Close()
			}
		}
		c.goneOnce.Do(func() { close(c.gone) })
	}()
	for {
		_, msg, err := c.ws.ReadMessage()
		if err != nil {
			return
		}
		channel, payload, ok := decodeChannelMessage(msg, c.base64)
		if !ok {
			continue
		}
		// v5 is never base64: channelClose is the raw first byte.
		if c.v5 && channel == channelClose {
			if len(payload) == 1 && int(payload[0]) < len(c.inputs) && c.inputs[payload[0]] != nil {
				c.inputs[payload[0]].Close()
			}
			continue
		}
		if int(channel) >= len(c.inputs) || c.inputs[channel] == nil {
			continue // a channel the server does not read: ignored, as upstream
		}
		// Blocks until the command reads it: a command that does not read
		// its stdin holds back the client's further messages, as upstream.
		_, _ = c.inputs[channel].Write(payload)
	}
}

// write sends data as one message on channel.
func (c *wsSession) write(channel byte, data []byte) (int, error) {
	if err := writeChannel(c.ws, &c.writeMu, c.base64, channel, data); err != nil {
		return 0, err
	}
	return len(data), nil
}

// closeOutput has nothing to do: a channel ends with the connection.
func (c *wsSession) closeOutput() {}

func (c *wsSession) writeStatus(b []byte) error {
	_, err := c.write(channelError, b)
	return err
}

// close ends the session as upstream's apiserver does: no more input is
// taken, a close frame follows the Status, and the connection closes when
// the client answers it (or after websocketFinishTimeout). Closing at once
// could make the kernel reset the connection and lose output the client
// has not read yet.
func (c *wsSession) close() {
	for _, in := range c.inputs {
		if in != nil {
			in.CloseWithError(errors.New("session finished"))
		}
	}
	c.writeMu.Lock()
	_ = c.ws.WriteControl(websocket.CloseMessage,
		websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(clientWriteTimeout))
	c.writeMu.Unlock()
	timer := time.NewTimer(websocketFinishTimeout)
	defer timer.Stop()
	select {
	case <-c.gone:
	case <-timer.C:
	}
	_ = c.ws.Close()
}

// wsChannel is one output channel of a session.
type wsChannel struct {
	session *wsSession
	channel byte
}

func (w *wsChannel) Write(p []byte) (int, error) { return w.session.write(w.channel, p) }
