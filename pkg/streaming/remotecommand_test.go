package streaming

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestParseRemoteCommandOptions(t *testing.T) {
	for _, tc := range []struct {
		query   string
		want    RemoteCommandOptions
		wantErr string
	}{
		{query: "stdin=true&stdout=true&tty=true", want: RemoteCommandOptions{Stdin: true, Stdout: true, TTY: true}},
		{query: "stdout=1&stderr=1", want: RemoteCommandOptions{Stdout: true, Stderr: true}},
		// A terminal has one output: stderr is dropped, as upstream's kubelet drops it.
		{query: "stdout=true&stderr=true&tty=true", want: RemoteCommandOptions{Stdout: true, TTY: true}},
		{query: "stdout=false&tty=true", wantErr: "you must specify at least 1 of stdin, stdout, stderr"},
		{query: "command=ls", wantErr: "you must specify at least 1 of stdin, stdout, stderr"},
	} {
		q, _ := url.ParseQuery(tc.query)
		got, err := ParseRemoteCommandOptions(q)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%s: error %v, want %q", tc.query, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.query, got, err, tc.want)
		}
	}
}

// TestStatusRoundTrip: what the kubelet writes is what a client decodes,
// for each protocol generation.
func TestStatusRoundTrip(t *testing.T) {
	exit := ExitCodeStatus([]string{"sh", "-c", "exit 3"}, 3)
	b, err := encodeStatus(exit, true)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}`
	if string(b) != want {
		t.Errorf("v4 exit status:\n%s\nwant\n%s", b, want)
	}
	var code *ExitCodeError
	if err := DecodeStatus(b); !errors.As(err, &code) || code.Code != 3 || err.Error() != "command terminated with exit code 3" {
		t.Errorf("decoded %v, want exit code 3 in kubectl's words", err)
	}

	b, _ = encodeStatus(SuccessStatus(), true)
	if string(b) != `{"metadata":{},"status":"Success"}` || DecodeStatus(b) != nil {
		t.Errorf("v4 success: %s", b)
	}
	internal, _ := encodeStatus(InternalErrorStatus(errors.New("boom")), true)
	if err := DecodeStatus(internal); err == nil || err.Error() != "Internal error occurred: boom" {
		t.Errorf("internal error decoded as %v", err)
	}

	// Before v4: a failure's text, and nothing on success.
	if b, _ := encodeStatus(exit, false); !strings.HasPrefix(string(b), "command terminated with non-zero exit code") {
		t.Errorf("v1 failure = %q", b)
	}
	if b, _ := encodeStatus(SuccessStatus(), false); len(b) != 0 {
		t.Errorf("v1 success = %q, want nothing", b)
	}
}

// TestSPDYClientThatStopsReadingFailsTheWrite: an exec or attach client
// that stops reading must not hold the server's writer (for attach, the
// container's output copier) for ever: a write times out.
func TestSPDYClientThatStopsReadingFailsTheWrite(t *testing.T) {
	saved := clientWriteTimeout
	clientWriteTimeout = 200 * time.Millisecond
	writeErr := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		session, err := AcceptRemoteCommand(w, r, RemoteCommandOptions{Stdout: true})
		if err != nil {
			writeErr <- err
			return
		}
		chunk := make([]byte, 64<<10)
		for {
			if _, err := session.Stdout.Write(chunk); err != nil {
				writeErr <- err
				return
			}
		}
	}))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/exec/default/web/web?command=yes&stdout=true", nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", SPDY31)
	req.Header.Set(HeaderProtocolVersion, RemoteCommandV4)
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	if resp, err := http.ReadResponse(br, req); err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	client := clientSession(t, &bufferedConn{Conn: conn, r: br})
	for _, streamType := range []string{StreamTypeError, StreamTypeStdout} {
		if _, err := client.CreateStream(http.Header{HeaderStreamType: {streamType}}, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	// Nothing reads stdout: the client's buffers fill, then the server's.
	select {
	case err := <-writeErr:
		clientWriteTimeout = saved // the session has written its last
		if err == nil || !strings.Contains(err.Error(), "timeout") {
			t.Errorf("write error %v, want a timeout", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server's write still blocks 30s after its client stopped reading")
	}
}
