package streaming

// This file is port-forward's WebSocket channel protocol (v4.channel.k8s.io),
// the form the Python client (kubernetes.stream.portforward) and other
// non-Go clients use. It mirrors upstream's
// pkg/kubelet/cri/streaming/portforward/websocket.go.
//
// The ports come in the URL (?ports=80,443; upstream's kubelet reads
// ?port=, which its apiserver writes from ports=; kplane's apiserver passes
// the query through, so both are read). Port i gets two channels:
//
//	channel 2i:   data, both ways
//	channel 2i+1: error, kubelet → client only
//
// Every binary message starts with its channel's number; with
// v4.base64.channel.k8s.io messages are text, the channel is an ASCII
// digit and the rest is base64. The first message on each channel is the
// port itself, two bytes little-endian, so the client can tell which
// channel is which. Unlike SPDY, a session carries exactly one connection
// per port; it ends when every port's connection has ended.

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// The channel protocols port-forward accepts, in the server's order of
// preference. A client that offers none gets binary channels, as upstream.
const (
	// ChannelProtocolV4 carries each channel's bytes in binary messages
	// that start with the channel's number. It is exec's protocol of the
	// same name: the framing is one (websocket_channels.go), only the
	// channels mean something else.
	ChannelProtocolV4 = RemoteCommandV4
	// Base64ChannelProtocolV4 carries them in text messages: the channel
	// as an ASCII digit, then the bytes in base64 (for clients that cannot
	// send binary messages, such as old browsers).
	Base64ChannelProtocolV4 = websocketV4Base64
)

// servePortForwardWebSocket serves a channel-protocol session.
func servePortForwardWebSocket(w http.ResponseWriter, r *http.Request, forward ForwardFunc, opts PortForwardOptions) {
	ports, err := portsFromQuery(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	supported := []string{ChannelProtocolV4, Base64ChannelProtocolV4}
	offered := websocket.Subprotocols(r)
	if len(offered) > 0 && !slices.ContainsFunc(offered, func(p string) bool { return slices.Contains(supported, p) }) {
		http.Error(w, fmt.Sprintf("unable to upgrade: requested protocol(s) are not supported: %v; supports %v", offered, supported), http.StatusBadRequest)
		return
	}
	upgrader := websocket.Upgrader{Subprotocols: supported, CheckOrigin: func(*http.Request) bool { return true }}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		opts.Logger.Debug("port-forward websocket upgrade failed", "pod", opts.Pod, "err", err)
		return
	}
	conn := newChannelConn(ws, ws.Subprotocol() == Base64ChannelProtocolV4, 2*len(ports), opts.IdleTimeout)
	defer conn.close()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		conn.readLoop()
		cancel() // the client went away: stop every forward
	}()

	var wg sync.WaitGroup
	for i, port := range ports {
		data, errs := byte(2*i), byte(2*i+1)
		portBytes := binary.LittleEndian.AppendUint16(nil, uint16(port))
		if conn.write(data, portBytes) != nil || conn.write(errs, portBytes) != nil {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			stream := &channelStream{conn: conn, channel: data}
			if err := forward(ctx, port, stream); err != nil {
				opts.Logger.Debug("port-forward connection failed", "pod", opts.Pod, "port", port, "err", err)
				_ = conn.write(errs, []byte(opts.forwardError(port, err)))
			}
			stream.Close()
		}()
	}
	wg.Wait()
}

// portsFromQuery reads the ports to forward from ?ports= or ?port= (each
// possibly repeated, each possibly a comma-separated list).
func portsFromQuery(r *http.Request) ([]int32, error) {
	q := r.URL.Query()
	values := slices.Concat(q["ports"], q["port"])
	if len(values) == 0 {
		return nil, fmt.Errorf("query parameter %q is required", "ports")
	}
	var ports []int32
	for _, v := range values {
		if v == "" {
			return nil, fmt.Errorf("query parameter %q cannot be empty", "ports")
		}
		for _, p := range strings.Split(v, ",") {
			n, err := strconv.ParseUint(p, 10, 16)
			if err != nil {
				return nil, fmt.Errorf("unable to parse %q as a port: %w", p, err)
			}
			if n < 1 {
				return nil, fmt.Errorf("port %q must be > 0", p)
			}
			ports = append(ports, int32(n))
		}
	}
	return ports, nil
}

// channelConn is a WebSocket split into numbered channels. The client
// writes only to data channels; what it sends to each is delivered through
// a pipe to that channel's reader.
type channelConn struct {
	ws     *websocket.Conn
	base64 bool
	// idle ends the session when no message went either way for this
	// long: every message moves the read deadline on, as upstream's
	// wsstream does.
	idle time.Duration
	// writeMu serializes writers: gorilla/websocket allows one at a time.
	writeMu sync.Mutex
	// pipes[i] carries what the client sends on channel i to its reader.
	pipes []*io.PipeWriter
	reads []*io.PipeReader
}

func newChannelConn(ws *websocket.Conn, base64 bool, channels int, idle time.Duration) *channelConn {
	c := &channelConn{ws: ws, base64: base64, idle: idle}
	c.touch()
	for i := 0; i < channels; i++ {
		r, w := io.Pipe()
		c.reads, c.pipes = append(c.reads, r), append(c.pipes, w)
	}
	return c
}

// touch moves the idle deadline on.
func (c *channelConn) touch() {
	if c.idle > 0 {
		_ = c.ws.UnderlyingConn().SetReadDeadline(time.Now().Add(c.idle))
	}
}

// write sends data as one message on channel. Its write deadline matters
// here as in exec: a client that stops reading fails the forward's write
// after clientWriteTimeout, so the session ends instead of leaking its
// handler and the connection into the pod.
func (c *channelConn) write(channel byte, data []byte) error {
	c.touch()
	return writeChannel(c.ws, &c.writeMu, c.base64, channel, data)
}

// readLoop delivers the client's messages to their channels until the
// WebSocket closes, then ends every channel's input.
func (c *channelConn) readLoop() {
	defer func() {
		for _, p := range c.pipes {
			p.Close()
		}
	}()
	for {
		_, msg, err := c.ws.ReadMessage()
		if err != nil {
			return
		}
		c.touch()
		channel, payload, ok := decodeChannelMessage(msg, c.base64)
		if !ok {
			continue
		}
		// Messages for channels that do not exist or that only the kubelet
		// writes (the error channels) are dropped, as upstream does. A
		// channel whose reader is gone drops its data too.
		if int(channel) >= len(c.pipes) || channel%2 == 1 {
			continue
		}
		_, _ = c.pipes[channel].Write(payload)
	}
}

// close ends the session: a normal close message, then the connection.
func (c *channelConn) close() {
	c.writeMu.Lock()
	_ = c.ws.WriteControl(websocket.CloseMessage,
		websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(clientWriteTimeout))
	c.writeMu.Unlock()
	_ = c.ws.Close()
}

// channelStream is one data channel as the io.ReadWriteCloser a forward
// copies to and from.
type channelStream struct {
	conn    *channelConn
	channel byte
}

func (s *channelStream) Read(p []byte) (int, error) { return s.conn.reads[s.channel].Read(p) }

func (s *channelStream) Write(p []byte) (int, error) {
	if err := s.conn.write(s.channel, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close stops reading the channel; anything the client still sends on it
// is dropped. The protocol has no way to close one channel towards the
// client: the session's end closes them all.
func (s *channelStream) Close() error { return s.conn.reads[s.channel].Close() }
