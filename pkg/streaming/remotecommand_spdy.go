package streaming

// The SPDY/3.1 transport of exec and attach, which every kubectl speaks
// (and the only one before 1.30). After the upgrade the client opens one
// SPDY stream per standard stream, naming each in its streamType header:
//
//	error   always; the server writes the Status here at the end
//	stdin   with ?stdin=true; the client half-closes it at end of input
//	stdout  with ?stdout=true
//	stderr  with ?stderr=true (never with a TTY)
//	resize  with ?tty=true, from v3 on: JSON TerminalSizes
//
// The server waits (at most DefaultStreamCreationTimeout) until all the
// streams it expects from the query are open, then runs the command. The
// session ends with the Status on the error stream, stdout and stderr
// half-closed, and the connection closed. Upstream:
// pkg/kubelet/cri/streaming/remotecommand/httpstream.go.

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/moby/spdystream"
)

// spdyProtocols are the protocols a SPDY client may negotiate, newest
// first, as upstream's kubelet lists them.
var spdyProtocols = []string{RemoteCommandV4, RemoteCommandV3, RemoteCommandV2, RemoteCommandV1}

// spdyCloseTimeout bounds how long closing the connection waits for the
// client to close its side of the streams.
const spdyCloseTimeout = 15 * time.Second

// acceptSPDY upgrades r to a SPDY session and waits for its streams.
func acceptSPDY(w http.ResponseWriter, r *http.Request, opts RemoteCommandOptions, streamCreationTimeout time.Duration) (*Session, error) {
	protocol, err := Handshake(w, r, spdyProtocols)
	if err != nil {
		return nil, err
	}
	// The handler runs on spdystream's frame loop: it accepts the stream
	// and hands it on without blocking. A client opens at most five.
	opened := make(chan *spdystream.Stream, 8)
	conn, err := UpgradeSPDY(w, r, func(stream *spdystream.Stream) {
		if err := stream.SendReply(http.Header{}, false); err != nil {
			return
		}
		select {
		case opened <- stream:
		default:
			_ = stream.Reset()
		}
	})
	if err != nil {
		return nil, err
	}
	conn.SetCloseTimeout(spdyCloseTimeout)
	// A session on which nothing moves for hours is ended, as upstream's
	// kubelet ends it (--streaming-connection-idle-timeout).
	conn.SetIdleTimeout(DefaultStreamIdleTimeout)
	resize := opts.TTY && protocol != RemoteCommandV2 && protocol != RemoteCommandV1
	c, err := waitForSPDYStreams(conn, opened, opts, resize, streamCreationTimeout)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	s := &Session{Protocol: protocol, Transport: "spdy", TTY: opts.TTY, gone: c.gone, conn: c}
	// Assigned only when present: a nil *spdystream.Stream in an interface
	// would not be a nil stream.
	if c.stdin != nil {
		s.Stdin = c.stdin
	}
	if c.stdout != nil {
		s.Stdout = &spdyOutput{session: c, stream: c.stdout}
	}
	if c.stderr != nil {
		s.Stderr = &spdyOutput{session: c, stream: c.stderr}
	}
	if c.resize != nil {
		s.Resize = decodeResizes(c.resize)
	}
	go func() {
		for {
			select {
			case stream := <-opened:
				// A stream opened after the session's own has no reader:
				// reset it rather than leave it replied to and parked.
				_ = stream.Reset()
			case <-conn.CloseChan():
				c.goneOnce.Do(func() { close(c.gone) })
				return
			}
		}
	}()
	return s, nil
}

// waitForSPDYStreams collects the streams the client opens until it has
// every one opts ask for.
func waitForSPDYStreams(conn *spdystream.Connection, opened <-chan *spdystream.Stream, opts RemoteCommandOptions, resize bool, timeout time.Duration) (*spdySession, error) {
	c := &spdySession{conn: conn, gone: make(chan struct{})}
	want := map[string]bool{StreamTypeError: true, StreamTypeStdin: opts.Stdin, StreamTypeStdout: opts.Stdout,
		StreamTypeStderr: opts.Stderr, StreamTypeResize: resize}
	missing := 0
	for _, w := range want {
		if w {
			missing++
		}
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for missing > 0 {
		select {
		case stream := <-opened:
			slot := c.slot(stream.Headers().Get(HeaderStreamType))
			if slot == nil {
				_ = stream.Reset() // upstream logs an unexpected stream type and ignores it
				continue
			}
			if *slot == nil {
				missing--
			}
			*slot = stream
		case <-conn.CloseChan():
			return nil, errors.New("connection closed before the client created its streams")
		case <-timer.C:
			return nil, errors.New("timed out waiting for client to create streams")
		}
	}
	return c, nil
}

// spdySession is one SPDY connection carrying a session's streams.
//
// Invariant: the server's writes go through write, one at a time
// (writeMu), each under a write deadline it clears when done. A deadline
// belongs to the whole connection, not a stream: one left set would fail
// spdystream's own frames (ping replies, resets) once it passed.
type spdySession struct {
	conn                               *spdystream.Connection
	errorStream, stdin, stdout, stderr *spdystream.Stream
	resize                             *spdystream.Stream
	gone                               chan struct{}
	goneOnce                           sync.Once
	writeMu                            sync.Mutex
}

// write runs one write of the server's (data, or a half-close) on stream
// within clientWriteTimeout: a client that stops reading fails the write
// instead of holding the writer for ever (for attach, the container's
// output copier, which writes to every attached client in turn).
func (c *spdySession) write(stream *spdystream.Stream, do func() error) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if err := stream.SetWriteDeadline(time.Now().Add(clientWriteTimeout)); err != nil {
		return err
	}
	defer func() { _ = stream.SetWriteDeadline(time.Time{}) }()
	return do()
}

// spdyOutput is an output stream of a session: stdout or stderr.
type spdyOutput struct {
	session *spdySession
	stream  *spdystream.Stream
}

func (o *spdyOutput) Write(p []byte) (int, error) {
	if err := o.session.write(o.stream, func() error { return o.stream.WriteData(p, false) }); err != nil {
		return 0, err
	}
	return len(p), nil
}

// slot is where a stream of type t is kept, nil for an unknown type.
func (c *spdySession) slot(t string) **spdystream.Stream {
	switch t {
	case StreamTypeError:
		return &c.errorStream
	case StreamTypeStdin:
		return &c.stdin
	case StreamTypeStdout:
		return &c.stdout
	case StreamTypeStderr:
		return &c.stderr
	case StreamTypeResize:
		return &c.resize
	}
	return nil
}

func (c *spdySession) closeOutput() {
	for _, s := range []*spdystream.Stream{c.stdout, c.stderr} {
		if s != nil {
			_ = c.write(s, s.Close)
		}
	}
}

func (c *spdySession) writeStatus(b []byte) error {
	if err := c.write(c.errorStream, func() error { return c.errorStream.WriteData(b, false) }); err != nil {
		return fmt.Errorf("write status: %w", err)
	}
	return nil
}

// close half-closes the error stream and closes the connection (GOAWAY;
// the socket closes once the client has closed its side, which kubectl
// does when it has read the Status, or after spdyCloseTimeout). The input
// streams are left for the client to close: resetting them would make a
// client still sending a window size log an error.
func (c *spdySession) close() {
	_ = c.write(c.errorStream, c.errorStream.Close)
	_ = c.conn.Close()
}

// Compile-time check that a SPDY stream is what a Session hands out.
var _ io.ReadWriteCloser = (*spdystream.Stream)(nil)
