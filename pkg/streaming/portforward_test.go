package streaming

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/moby/spdystream"
)

// The fake pod behind these tests: port 80 echoes what it receives until
// the client has sent everything, port 82 holds the connection until the
// session ends (and reports that it did), any other port refuses.
type fakePod struct {
	sessionEnded chan struct{} // closed when a port-82 forward sees ctx end
	once         sync.Once
}

func newFakePod() *fakePod { return &fakePod{sessionEnded: make(chan struct{})} }

func (f *fakePod) forward(ctx context.Context, port int32, conn io.ReadWriteCloser) error {
	switch port {
	case 80:
		defer conn.Close()
		_, _ = io.Copy(conn, conn)
		return nil
	case 82:
		defer conn.Close()
		<-ctx.Done()
		f.once.Do(func() { close(f.sessionEnded) })
		return nil
	}
	return fmt.Errorf("dial tcp4 127.0.0.1:%d: connect: connection refused", port)
}

func (f *fakePod) server(t testing.TB) *httptest.Server {
	return f.serverWith(t, PortForwardOptions{})
}

// serverWith serves the fake pod with opts (Pod, UID and Logger filled in).
func (f *fakePod) serverWith(t testing.TB, opts PortForwardOptions) *httptest.Server {
	t.Helper()
	opts.Pod, opts.UID, opts.Logger = "default/web", "uid-1", slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ServePortForward(w, r, f.forward, opts)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// dialSPDY upgrades a connection to srv to SPDY/3.1 offering protocols, as
// kubectl does, and returns the client side of the session.
func dialSPDY(t testing.TB, srv *httptest.Server, protocols ...string) *spdystream.Connection {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/portForward/default/web", nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", SPDY31)
	for _, p := range protocols {
		req.Header.Add(HeaderProtocolVersion, p)
	}
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get(HeaderProtocolVersion) != PortForwardProtocolV1 {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("upgrade: %s %v %s", resp.Status, resp.Header, body)
	}
	return clientSession(t, &bufferedConn{Conn: conn, r: br})
}

// clientSession runs the client side of a SPDY session on conn.
func clientSession(t testing.TB, conn net.Conn) *spdystream.Connection {
	t.Helper()
	session, err := spdystream.NewConnection(conn, false)
	if err != nil {
		t.Fatal(err)
	}
	go session.Serve(spdystream.NoOpStreamHandler)
	t.Cleanup(func() { conn.Close() })
	return session
}

// forwardOnce does what kubectl does for one accepted local connection:
// open the error stream and half-close it, open the data stream, send
// payload and half-close, then read the answer and the error text.
func forwardOnce(session *spdystream.Connection, port int, requestID string, payload string) (answer, errText string, err error) {
	headers := http.Header{}
	headers.Set(HeaderStreamType, StreamTypeError)
	headers.Set(HeaderPort, strconv.Itoa(port))
	if requestID != "" {
		headers.Set(HeaderPortForwardRequestID, requestID)
	}
	errorStream, err := session.CreateStream(headers, nil, false)
	if err != nil {
		return "", "", err
	}
	if err := errorStream.Wait(); err != nil {
		return "", "", fmt.Errorf("error stream: %w", err)
	}
	errorStream.Close()
	data := http.Header{}
	for k, v := range headers {
		data[k] = v
	}
	data.Set(HeaderStreamType, StreamTypeData)
	dataStream, err := session.CreateStream(data, nil, false)
	if err != nil {
		return "", "", err
	}
	if err := dataStream.Wait(); err != nil {
		return "", "", fmt.Errorf("data stream: %w", err)
	}
	if _, err := dataStream.Write([]byte(payload)); err != nil {
		return "", "", err
	}
	dataStream.Close()
	got, _ := io.ReadAll(dataStream)
	// kubectl resets the data stream once the answer is in, then reads the
	// error stream to its end.
	dataStream.Reset()
	errBytes, _ := io.ReadAll(errorStream)
	return string(got), string(errBytes), nil
}

func TestPortForwardSPDYConcurrentConnections(t *testing.T) {
	session := dialSPDY(t, newFakePod().server(t), PortForwardProtocolV1)
	const connections = 8
	var wg sync.WaitGroup
	for i := range connections {
		wg.Add(1)
		go func() {
			defer wg.Done()
			payload := strings.Repeat(fmt.Sprintf("connection %d ", i), 1000)
			answer, errText, err := forwardOnce(session, 80, strconv.Itoa(i), payload)
			if err != nil || answer != payload || errText != "" {
				t.Errorf("connection %d: err %v, error stream %q, answer of %d bytes (want the %d sent back)", i, err, errText, len(answer), len(payload))
			}
		}()
	}
	wg.Wait()
}

func TestPortForwardSPDYRefusedPortWritesErrorStream(t *testing.T) {
	session := dialSPDY(t, newFakePod().server(t), PortForwardProtocolV1)
	answer, errText, err := forwardOnce(session, 81, "0", "GET / HTTP/1.1\r\n\r\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "error forwarding port 81 to pod default/web, uid uid-1: dial tcp4 127.0.0.1:81: connect: connection refused"
	if answer != "" || errText != want {
		t.Errorf("answer %q, error stream %q; want no answer and %q", answer, errText, want)
	}
	// The session survives a refused connection.
	if answer, errText, err := forwardOnce(session, 80, "1", "still here"); err != nil || answer != "still here" || errText != "" {
		t.Errorf("after a refusal: answer %q, error %q, err %v", answer, errText, err)
	}
}

func TestPortForwardSPDYWithoutRequestID(t *testing.T) {
	// Clients older than 1.6 send no requestID; the stream IDs pair them.
	session := dialSPDY(t, newFakePod().server(t), PortForwardProtocolV1)
	for i := range 3 {
		payload := fmt.Sprintf("old client %d", i)
		if answer, errText, err := forwardOnce(session, 80, "", payload); err != nil || answer != payload || errText != "" {
			t.Errorf("connection %d: answer %q, error %q, err %v", i, answer, errText, err)
		}
	}
}

func TestPortForwardSPDYRefusesBadStreams(t *testing.T) {
	session := dialSPDY(t, newFakePod().server(t), PortForwardProtocolV1)
	for _, h := range []http.Header{
		{HeaderStreamType: {StreamTypeData}},                        // no port
		{HeaderStreamType: {StreamTypeData}, HeaderPort: {"0"}},     // port 0
		{HeaderStreamType: {StreamTypeData}, HeaderPort: {"http"}},  // not a number
		{HeaderStreamType: {"stdin"}, HeaderPort: {"80"}},           // not a port-forward stream
		{HeaderPort: {"80"}, HeaderPortForwardRequestID: {"7"}},     // no streamType
		{HeaderStreamType: {StreamTypeData}, HeaderPort: {"70000"}}, // out of range
	} {
		stream, err := session.CreateStream(h, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := stream.Wait(); err != spdystream.ErrReset {
			t.Errorf("stream %v: Wait = %v, want it reset", h, err)
		}
	}
}

func TestPortForwardSessionEndStopsForwards(t *testing.T) {
	pod := newFakePod()
	session := dialSPDY(t, pod.server(t), PortForwardProtocolV1)
	headers := http.Header{}
	headers.Set(HeaderPort, "82")
	headers.Set(HeaderPortForwardRequestID, "0")
	for _, streamType := range []string{StreamTypeError, StreamTypeData} {
		headers.Set(HeaderStreamType, streamType)
		stream, err := session.CreateStream(headers.Clone(), nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := stream.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	session.Close()
	<-pod.sessionEnded // the forward's context ended with the session
}

func TestPortForwardSPDYHandshake(t *testing.T) {
	srv := newFakePod().server(t)
	for _, tt := range []struct {
		name      string
		protocols []string
		want      int
	}{
		{"no protocol", nil, http.StatusBadRequest},
		{"unknown protocol", []string{"v4.channel.k8s.io"}, http.StatusForbidden},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
			req.Header.Set("Connection", "Upgrade")
			req.Header.Set("Upgrade", SPDY31)
			for _, p := range tt.protocols {
				req.Header.Add(HeaderProtocolVersion, p)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("plain GET: status %d, want 400", resp.StatusCode)
	}
}

// dialTunnel opens the WebSocket tunnel as kubectl ≥ 1.31 does and returns
// the SPDY session inside it.
func dialTunnel(t testing.TB, srv *httptest.Server) *spdystream.Connection {
	t.Helper()
	dialer := websocket.Dialer{Subprotocols: []string{TunnelingProtocolPrefix + PortForwardProtocolV1}}
	ws, resp, err := dialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/portForward/default/web", nil)
	if err != nil {
		t.Fatalf("dial tunnel: %v (%v)", err, resp)
	}
	if got := ws.Subprotocol(); got != "SPDY/3.1+portforward.k8s.io" {
		t.Fatalf("tunnel subprotocol %q", got)
	}
	return clientSession(t, NewWebSocketConn(ws))
}

func TestPortForwardTunnelConcurrentConnections(t *testing.T) {
	session := dialTunnel(t, newFakePod().server(t))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			payload := strings.Repeat(fmt.Sprintf("tunnelled %d ", i), 2000)
			answer, errText, err := forwardOnce(session, 80, strconv.Itoa(i), payload)
			if err != nil || answer != payload || errText != "" {
				t.Errorf("connection %d: err %v, error stream %q, answer of %d bytes (want %d)", i, err, errText, len(answer), len(payload))
			}
		}()
	}
	wg.Wait()
	_, errText, err := forwardOnce(session, 81, "refused", "x")
	if err != nil || !strings.Contains(errText, "error forwarding port 81 to pod default/web") {
		t.Errorf("refused port through the tunnel: error stream %q, err %v", errText, err)
	}
}

func TestPortForwardTunnelRefusesOtherTunnelledProtocols(t *testing.T) {
	srv := newFakePod().server(t)
	dialer := websocket.Dialer{Subprotocols: []string{TunnelingProtocolPrefix + "v4.channel.k8s.io"}}
	_, resp, err := dialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("dial: err %v, response %v; want 403", err, resp)
	}
}

// readChannelMessage reads one channel-protocol message.
func readChannelMessage(t *testing.T, ws *websocket.Conn) (channel byte, payload []byte) {
	t.Helper()
	_, msg, err := ws.ReadMessage()
	if err != nil || len(msg) == 0 {
		t.Fatalf("read channel message: %q, %v", msg, err)
	}
	return msg[0], msg[1:]
}

func TestPortForwardWebSocketChannels(t *testing.T) {
	srv := newFakePod().server(t)
	u := "ws" + strings.TrimPrefix(srv.URL, "http") + "/portForward/default/web?" + url.Values{"ports": {"80,81"}}.Encode()
	ws, resp, err := (&websocket.Dialer{Subprotocols: []string{ChannelProtocolV4}}).Dial(u, nil)
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	defer ws.Close()
	if ws.Subprotocol() != ChannelProtocolV4 {
		t.Fatalf("subprotocol %q", ws.Subprotocol())
	}
	// Each channel first announces its port, little-endian.
	for _, want := range []struct {
		channel byte
		port    uint16
	}{{0, 80}, {1, 80}, {2, 81}, {3, 81}} {
		channel, payload := readChannelMessage(t, ws)
		if channel != want.channel || len(payload) != 2 || binary.LittleEndian.Uint16(payload) != want.port {
			t.Fatalf("first message: channel %d payload %v, want channel %d port %d", channel, payload, want.channel, want.port)
		}
	}
	if err := ws.WriteMessage(websocket.BinaryMessage, append([]byte{0}, "ping"...)); err != nil {
		t.Fatal(err)
	}
	var echo, refusal string
	for echo == "" || refusal == "" {
		switch channel, payload := readChannelMessage(t, ws); channel {
		case 0:
			echo += string(payload)
		case 3:
			refusal = string(payload)
		default:
			t.Fatalf("unexpected message on channel %d: %q", channel, payload)
		}
	}
	if echo != "ping" || !strings.HasPrefix(refusal, "error forwarding port 81 to pod default/web, uid uid-1: ") {
		t.Errorf("echo %q, port 81's error %q", echo, refusal)
	}
}

func TestPortForwardWebSocketNeedsPorts(t *testing.T) {
	srv := newFakePod().server(t)
	for _, query := range []string{"", "?ports=", "?ports=0", "?port=http"} {
		_, resp, err := (&websocket.Dialer{}).Dial("ws"+strings.TrimPrefix(srv.URL, "http")+query, nil)
		if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
			t.Errorf("query %q: err %v, response %v; want 400", query, err, resp)
		}
	}
}

func TestPortForwardWebSocketBase64Channels(t *testing.T) {
	srv := newFakePod().server(t)
	u := "ws" + strings.TrimPrefix(srv.URL, "http") + "/portForward/default/web?port=80"
	ws, resp, err := (&websocket.Dialer{Subprotocols: []string{Base64ChannelProtocolV4}}).Dial(u, nil)
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	defer ws.Close()
	// Text messages: the channel as an ASCII digit, then base64.
	for _, want := range []string{"0" + base64.StdEncoding.EncodeToString([]byte{80, 0}), "1" + base64.StdEncoding.EncodeToString([]byte{80, 0})} {
		kind, msg, err := ws.ReadMessage()
		if err != nil || kind != websocket.TextMessage || string(msg) != want {
			t.Fatalf("port announcement: %d %q %v, want text %q", kind, msg, err, want)
		}
	}
	if err := ws.WriteMessage(websocket.TextMessage, []byte("0"+base64.StdEncoding.EncodeToString([]byte("ping")))); err != nil {
		t.Fatal(err)
	}
	kind, msg, err := ws.ReadMessage()
	if err != nil || kind != websocket.TextMessage || string(msg) != "0"+base64.StdEncoding.EncodeToString([]byte("ping")) {
		t.Errorf("echo: %d %q %v", kind, msg, err)
	}
}

func TestPortForwardWebSocketIdleSessionEnds(t *testing.T) {
	// Port 82 holds its connection open; with nothing moving, the idle
	// timeout ends the session and, with it, the forward.
	pod := newFakePod()
	srv := pod.serverWith(t, PortForwardOptions{IdleTimeout: 50 * time.Millisecond})
	ws, resp, err := (&websocket.Dialer{}).Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"?ports=82", nil)
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	defer ws.Close()
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			break // the kubelet closed the idle session
		}
	}
	<-pod.sessionEnded
}

func TestPortForwardSessionForgetsFinishedPairs(t *testing.T) {
	// A long kubectl port-forward makes many connections on one session:
	// the session must not keep the streams of those that ended.
	session := newPortForwardSession(newFakePod().forward, PortForwardOptions{}.withDefaults())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := Handshake(w, r, []string{PortForwardProtocolV1}); err != nil {
			return
		}
		if conn, err := UpgradeSPDY(w, r, session.onStream); err == nil {
			session.run(r.Context(), conn)
		}
	}))
	defer srv.Close()
	client := dialSPDY(t, srv, PortForwardProtocolV1)
	for i := range 5 {
		if answer, errText, err := forwardOnce(client, 80, strconv.Itoa(i), "x"); err != nil || answer != "x" || errText != "" {
			t.Fatalf("connection %d: %q %q %v", i, answer, errText, err)
		}
	}
	if _, errText, _ := forwardOnce(client, 81, "refused", "x"); errText == "" {
		t.Fatal("no error for the refused port")
	}
	// The forwards forget their streams just after closing them.
	deadline := time.Now().Add(10 * time.Second)
	for {
		session.mu.Lock()
		streams, pairs := len(session.streams), len(session.pairs)
		session.mu.Unlock()
		if streams == 0 && pairs == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after six finished connections the session still holds %d streams and %d pairs", streams, pairs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPortForwardWebSocketClientThatStopsReadingEndsTheSession(t *testing.T) {
	// The pod sends without end; the client reads the port announcements
	// and then nothing. Once the socket buffers are full, a write must
	// time out and end the session, not hold the handler for ever.
	saved := clientWriteTimeout
	clientWriteTimeout = 200 * time.Millisecond
	handlerDone := make(chan struct{})
	forward := func(ctx context.Context, port int32, conn io.ReadWriteCloser) error {
		defer conn.Close()
		chunk := make([]byte, 64<<10)
		for ctx.Err() == nil {
			if _, err := conn.Write(chunk); err != nil {
				return err
			}
		}
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(handlerDone)
		ServePortForward(w, r, forward, PortForwardOptions{Pod: "default/web", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	}))
	defer srv.Close()
	ws, resp, err := (&websocket.Dialer{}).Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"?ports=80", nil)
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	defer ws.Close()
	readChannelMessage(t, ws)
	readChannelMessage(t, ws)
	select {
	case <-handlerDone:
		clientWriteTimeout = saved // no session is left to read it
	case <-time.After(30 * time.Second):
		t.Fatal("the port-forward handler still runs 30s after its client stopped reading")
	}
}
