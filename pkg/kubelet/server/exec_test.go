package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
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

	"kplane/pkg/api"
	"kplane/pkg/kubelet/runtime"
	"kplane/pkg/streaming"
)

// fakeShell is a running container whose Exec knows a few commands and
// whose Attach echoes stdin, so that the tests see exactly what the
// protocols carry.
type fakeShell struct {
	*fakeRun
}

// Exec runs:
//
//	cat           stdin to stdout, then "bye" on stderr
//	exit N        "out" on stdout, "err" on stderr, exit code N
//	bytes N       N bytes on stdout
//	size          the first terminal size received, as WxH
//	nosuch        a command that does not exist
func (f fakeShell) Exec(ctx context.Context, cmd []string, s runtime.Streams) (int, error) {
	switch cmd[0] {
	case "cat":
		if _, err := io.Copy(s.Stdout, s.Stdin); err != nil {
			return 1, err
		}
		fmt.Fprintln(s.Stderr, "bye")
		return 0, nil
	case "exit":
		fmt.Fprintln(s.Stdout, "out")
		if s.Stderr != nil {
			fmt.Fprintln(s.Stderr, "err")
		}
		code, _ := strconv.Atoi(cmd[1])
		return code, nil
	case "bytes":
		// bytes N writes N bytes to stdout, in 32 KiB writes.
		n, _ := strconv.Atoi(cmd[1])
		chunk := bytes.Repeat([]byte("x"), 32*1024)
		for n > 0 {
			w := min(n, len(chunk))
			if _, err := s.Stdout.Write(chunk[:w]); err != nil {
				return 1, err
			}
			n -= w
		}
		return 0, nil
	case "size":
		select {
		case size := <-s.Resize:
			fmt.Fprintf(s.Stdout, "%dx%d\n", size.Width, size.Height)
			return 0, nil
		case <-ctx.Done():
			return 1, ctx.Err()
		}
	}
	return 127, fmt.Errorf("unable to start container process: exec: %q: %w in $PATH", cmd[0], runtime.ErrCommandNotFound)
}

// Attach greets, then echoes stdin until it ends.
func (f fakeShell) Attach(ctx context.Context, s runtime.Streams) error {
	fmt.Fprintln(s.Stdout, "attached")
	_, err := io.Copy(s.Stdout, s.Stdin)
	return err
}

// startExecServer serves a kubelet whose pod default/web has a running
// container "web" (a fakeShell), an exited one "old", and a running one
// "plain" that can neither exec nor attach.
func startExecServer(t testing.TB) string {
	t.Helper()
	exited := newFakeRun()
	exited.exit()
	// Plain HTTP: the sessions, not the TLS around them, are under test;
	// any CA will do for New.
	ca, err := selfSignedCertificate("node1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{ClientCAPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Certificate[0]}),
		Reviewer: &bootstrapPolicyReviewer{}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	s.SetLookup(func(namespace, pod, container string, previous bool) (runtime.Container, error) {
		switch {
		case namespace != "default" || pod != "web":
			return nil, NotFoundf("pod %s/%s is not running on node node1", namespace, pod)
		case container == "web":
			return fakeShell{newFakeRun()}, nil
		case container == "old":
			return exited, nil
		case container == "plain":
			return plainRun{newFakeRun()}, nil
		}
		return nil, fmt.Errorf("container %s is not valid for pod %s", container, pod)
	})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// execResult is what a client saw of one session.
type execResult struct {
	stdout, stderr string
	err            error // from the Status; an *streaming.ExitCodeError for an exit code
}

// wsExec runs a session with the WebSocket client, offering protocol.
func wsExec(t testing.TB, base, path, protocol, stdin string, resize *streaming.TerminalSize) execResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := &streaming.RemoteCommandClient{Protocols: []string{protocol}, Stdout: &stdout, Stderr: &stderr}
	if strings.Contains(path, "stdin=true") {
		c.Stdin = strings.NewReader(stdin)
	}
	if resize != nil {
		sizes := make(chan streaming.TerminalSize, 1)
		sizes <- *resize
		close(sizes)
		c.Resize = sizes
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	err := c.Stream(ctx, "ws"+strings.TrimPrefix(base, "http")+path)
	return execResult{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// spdyExec runs a session as client-go's SPDY executor does: upgrade,
// open the streams, copy, read the error stream. With protocol v4 the
// Status is decoded as kubectl decodes it; before v4 a non-empty error
// stream is the error.
func spdyExec(t testing.TB, base, path, protocol, stdin string, resize *streaming.TerminalSize) execResult {
	t.Helper()
	conn := spdyUpgrade(t, base, path, protocol)
	defer conn.Close()
	query, _ := url.ParseQuery(path[strings.IndexByte(path, '?')+1:])
	open := func(streamType string) *spdystream.Stream {
		s, err := conn.CreateStream(http.Header{streaming.HeaderStreamType: {streamType}}, nil, false)
		if err != nil {
			t.Fatalf("create %s stream: %v", streamType, err)
		}
		if err := s.Wait(); err != nil {
			t.Fatalf("%s stream reply: %v", streamType, err)
		}
		return s
	}
	errorStream := open(streaming.StreamTypeError)
	var wg sync.WaitGroup
	var stdout, stderr bytes.Buffer
	if query.Get("stdin") == "true" {
		in := open(streaming.StreamTypeStdin)
		go func() {
			io.Copy(in, strings.NewReader(stdin))
			in.Close()
		}()
	}
	for _, o := range []struct {
		name string
		buf  *bytes.Buffer
	}{{streaming.StreamTypeStdout, &stdout}, {streaming.StreamTypeStderr, &stderr}} {
		if query.Get(o.name) != "true" || (o.name == streaming.StreamTypeStderr && query.Get("tty") == "true") {
			continue
		}
		s := open(o.name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			io.Copy(o.buf, s)
		}()
	}
	if query.Get("tty") == "true" && protocol != streaming.RemoteCommandV2 {
		rs := open(streaming.StreamTypeResize)
		if resize != nil {
			b, _ := json.Marshal(resize)
			rs.Write(b)
		}
	}
	status, err := io.ReadAll(errorStream)
	if err != nil {
		t.Fatalf("read the error stream: %v", err)
	}
	wg.Wait()
	res := execResult{stdout: stdout.String(), stderr: stderr.String()}
	switch {
	case protocol == streaming.RemoteCommandV4:
		res.err = streaming.DecodeStatus(status)
	case len(status) > 0:
		res.err = errors.New(string(status))
	}
	return res
}

// spdyUpgrade sends the upgrade request and returns the client side of
// the SPDY connection.
func spdyUpgrade(t testing.TB, base, path, protocol string) *spdystream.Connection {
	t.Helper()
	conn, status, body := rawUpgrade(t, base, path, protocol)
	if status != http.StatusSwitchingProtocols {
		t.Fatalf("POST %s: %d %s, want 101", path, status, body)
	}
	sc, err := spdystream.NewConnection(conn, false)
	if err != nil {
		t.Fatal(err)
	}
	go sc.Serve(spdystream.NoOpStreamHandler)
	return sc
}

// rawUpgrade posts a SPDY upgrade request and returns the connection, the
// answer's status and, when it is not 101, its body.
func rawUpgrade(t testing.TB, base, path, protocol string) (net.Conn, int, string) {
	t.Helper()
	u, _ := url.Parse(base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	req, _ := http.NewRequest(http.MethodPost, base+path, nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", streaming.SPDY31)
	req.Header.Add(streaming.HeaderProtocolVersion, protocol)
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		b, _ := io.ReadAll(resp.Body)
		return conn, resp.StatusCode, strings.TrimSpace(string(b))
	}
	return &readerConn{Conn: conn, r: br}, resp.StatusCode, ""
}

type readerConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *readerConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// sessionFunc is wsExec or spdyExec.
type sessionClient func(t testing.TB, base, path, protocol, stdin string, resize *streaming.TerminalSize) execResult

// TestExecProtocols runs the same sessions over every transport and
// protocol kubectl uses: stdin reaches the command and its end is seen
// (v5's close message, SPDY's half-close), stdout and stderr stay apart,
// an exit code comes back as the Status kubectl exits with, and a TTY
// session's window size reaches the command.
func TestExecProtocols(t *testing.T) {
	base := startExecServer(t)
	const exitPath = "/exec/default/web/web?command=exit&command=3&stdout=true&stderr=true"
	const catPath = "/exec/default/web/web?command=cat&stdin=true&stdout=true&stderr=true"
	const sizePath = "/exec/default/web/web?command=size&stdin=true&stdout=true&tty=true"
	for _, tc := range []struct {
		name     string
		client   sessionClient
		protocol string
		stdinEOF bool // the protocol can tell the server that stdin ended
	}{
		{"websocket v5", wsExec, streaming.RemoteCommandV5, true},
		{"websocket v4", wsExec, streaming.RemoteCommandV4, false},
		{"spdy v4", spdyExec, streaming.RemoteCommandV4, true},
		{"spdy v3", spdyExec, streaming.RemoteCommandV3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.client(t, base, exitPath, tc.protocol, "", nil)
			var exit *streaming.ExitCodeError
			if got.stdout != "out\n" || got.stderr != "err\n" {
				t.Errorf("exit 3: stdout %q stderr %q, want out and err apart", got.stdout, got.stderr)
			}
			if tc.protocol == streaming.RemoteCommandV3 {
				want := "command terminated with non-zero exit code: error executing command [exit 3], exit code 3"
				if got.err == nil || got.err.Error() != want {
					t.Errorf("exit 3 over v3: error %v, want the plain message %q", got.err, want)
				}
			} else if !errors.As(got.err, &exit) || exit.Code != 3 {
				t.Errorf("exit 3: error %v, want exit code 3", got.err)
			}

			if tc.stdinEOF {
				got = tc.client(t, base, catPath, tc.protocol, "hello\nworld\n", nil)
				if got.err != nil || got.stdout != "hello\nworld\n" || got.stderr != "bye\n" {
					t.Errorf("cat: %+v, want stdin echoed, bye on stderr, success", got)
				}
			}

			got = tc.client(t, base, sizePath, tc.protocol, "", &streaming.TerminalSize{Width: 132, Height: 43})
			if got.err != nil || got.stdout != "132x43\n" {
				t.Errorf("size: %+v, want the client's 132x43", got)
			}
		})
	}
}

// TestExecStatusMessages pins the Status a failure carries, as kubectl
// prints it.
func TestExecStatusMessages(t *testing.T) {
	base := startExecServer(t)
	conn := spdyUpgrade(t, base, "/exec/default/web/web?command=exit&command=3&stdout=true", streaming.RemoteCommandV4)
	errorStream, err := conn.CreateStream(http.Header{streaming.HeaderStreamType: {streaming.StreamTypeError}}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := conn.CreateStream(http.Header{streaming.HeaderStreamType: {streaming.StreamTypeStdout}}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, stdout)
	raw, err := io.ReadAll(errorStream)
	if err != nil {
		t.Fatal(err)
	}
	var status api.Status
	if err := json.Unmarshal(raw, &status); err != nil {
		t.Fatalf("status %q: %v", raw, err)
	}
	wantMsg := "command terminated with non-zero exit code: error executing command [exit 3], exit code 3"
	if status.Status != api.StatusFailure || status.Reason != "NonZeroExitCode" || status.Message != wantMsg ||
		status.Details == nil || len(status.Details.Causes) != 1 ||
		status.Details.Causes[0] != (api.StatusCause{Type: "ExitCode", Message: "3"}) {
		t.Errorf("status = %s", raw)
	}

	got := wsExec(t, base, "/exec/default/web/web?command=nosuch&stdout=true", streaming.RemoteCommandV5, "", nil)
	want := `Internal error occurred: error executing command in container: unable to start container process: exec: "nosuch": executable file not found in $PATH`
	if got.err == nil || got.err.Error() != want {
		t.Errorf("nosuch: %v, want %q", got.err, want)
	}
}

// TestExecRefusals: what the kubelet refuses before upgrading, with
// upstream's words.
func TestExecRefusals(t *testing.T) {
	base := startExecServer(t)
	for _, tc := range []struct {
		path string
		code int
		body string
	}{
		{"/exec/default/web/web?command=ls", http.StatusBadRequest, "you must specify at least 1 of stdin, stdout, stderr"},
		{"/exec/default/web/web?stdout=true", http.StatusBadRequest, "you must specify at least one command for the container"},
		{"/exec/default/web/old?command=ls&stdout=true", http.StatusInternalServerError, `container not found ("old")`},
		{"/attach/default/web/old?stdout=true", http.StatusInternalServerError, `container not found ("old")`},
		{"/exec/default/web/plain?command=ls&stdout=true", http.StatusNotImplemented, "kplane's container runtime cannot exec into containers"},
		{"/attach/default/web/plain?stdout=true", http.StatusNotImplemented, "kplane's container runtime cannot attach to containers"},
		{"/exec/default/nope/web?command=ls&stdout=true", http.StatusNotFound, "pod default/nope is not running on node node1"},
		{"/exec/default/web/web?command=ls&stdout=true&stdin=true&protocol=none", http.StatusForbidden, "unable to upgrade: unable to negotiate protocol"},
	} {
		protocol := streaming.RemoteCommandV4
		if strings.Contains(tc.path, "protocol=none") {
			protocol = "v9.channel.k8s.io"
		}
		_, code, body := rawUpgrade(t, base, tc.path, protocol)
		if code != tc.code || !strings.Contains(body, tc.body) {
			t.Errorf("%s: %d %q, want %d %q", tc.path, code, body, tc.code, tc.body)
		}
	}
	// The same refusal reaches a WebSocket client as the upgrade's failure.
	got := wsExec(t, base, "/exec/default/web/old?command=ls&stdout=true", streaming.RemoteCommandV5, "", nil)
	if got.err == nil || got.err.Error() != `unable to upgrade connection: container not found ("old")` {
		t.Errorf("websocket exec into an exited container: %v", got.err)
	}
}

// TestAttach joins a container's streams over both transports.
func TestAttach(t *testing.T) {
	base := startExecServer(t)
	const path = "/attach/default/web/web?stdin=true&stdout=true&stderr=true"
	for name, client := range map[string]sessionClient{"websocket": wsExec, "spdy": spdyExec} {
		protocol := streaming.RemoteCommandV5
		if name == "spdy" {
			protocol = streaming.RemoteCommandV4
		}
		got := client(t, base, path, protocol, "echo hi\n", nil)
		if got.err != nil || got.stdout != "attached\necho hi\n" {
			t.Errorf("%s: %+v, want the greeting and stdin echoed", name, got)
		}
	}
}

// TestExecWebSocketBase64: the base64 variant sends text messages, the
// channel as an ASCII digit and the data base64-encoded; stdin comes the
// same way.
func TestExecWebSocketBase64(t *testing.T) {
	base := startExecServer(t)
	dialer := websocket.Dialer{Subprotocols: []string{"v4.base64.channel.k8s.io"}}
	ws, _, err := dialer.Dial("ws"+strings.TrimPrefix(base, "http")+
		"/exec/default/web/web?command=cat&stdin=true&stdout=true&stderr=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if ws.Subprotocol() != "v4.base64.channel.k8s.io" {
		t.Fatalf("subprotocol %q", ws.Subprotocol())
	}
	if err := ws.WriteMessage(websocket.TextMessage, []byte("0"+base64.StdEncoding.EncodeToString([]byte("hi\n")))); err != nil {
		t.Fatal(err)
	}
	// The first message is the empty one that says the session is open;
	// then cat's echo.
	for _, want := range []string{"1", "1" + base64.StdEncoding.EncodeToString([]byte("hi\n"))} {
		kind, msg, err := ws.ReadMessage()
		if err != nil || kind != websocket.TextMessage || string(msg) != want {
			t.Fatalf("message = %d %q, %v; want text %q", kind, msg, err, want)
		}
	}
}

// BenchmarkExecStdout measures how fast a command's output crosses the
// kubelet's end of a session: 8 MiB per session over each transport
// (make bench).
func BenchmarkExecStdout(b *testing.B) {
	const size = 8 << 20
	base := startExecServer(b)
	path := "/exec/default/web/web?command=bytes&command=" + strconv.Itoa(size) + "&stdout=true"
	for _, tc := range []struct {
		name     string
		client   sessionClient
		protocol string
	}{
		{"websocket-v5", wsExec, streaming.RemoteCommandV5},
		{"spdy-v4", spdyExec, streaming.RemoteCommandV4},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(size)
			for range b.N {
				if got := tc.client(b, base, path, tc.protocol, "", nil); got.err != nil || len(got.stdout) != size {
					b.Fatalf("session: %v, %d bytes", got.err, len(got.stdout))
				}
			}
		})
	}
}
