package streaming

// This file is port-forward over SPDY/3.1, the form every kubectl speaks
// (and, inside a WebSocket, the form kubectl ≥ 1.31 tunnels). It mirrors
// upstream's pkg/kubelet/cri/streaming/portforward/httpstream.go.
//
// A session is one upgraded connection; kubectl keeps it open for as long
// as `kubectl port-forward` runs. For each TCP connection kubectl accepts
// locally it opens, on that session,
//
//	stream 1: streamType=error port=80 requestID=0   (kubectl half-closes it at once)
//	stream 3: streamType=data  port=80 requestID=0   (the connection's bytes, both ways)
//
// The kubelet pairs the two by requestID and, once it has both, forwards
// the data stream to the port. If that fails it writes the reason on the
// error stream; kubectl prints "an error occurred forwarding 8080 -> 80:
// <reason>". Closing the error stream with nothing written means success.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/moby/spdystream"
)

// closeTimeout bounds how long closing a session waits for its streams
// before it cuts the connection.
const closeTimeout = time.Second

// servePortForwardSPDY negotiates the stream protocol, upgrades r to SPDY
// and serves the session until it ends.
func servePortForwardSPDY(w http.ResponseWriter, r *http.Request, forward ForwardFunc, opts PortForwardOptions) {
	if _, err := Handshake(w, r, []string{PortForwardProtocolV1}); err != nil {
		opts.Logger.Debug("port-forward handshake refused", "pod", opts.Pod, "err", err)
		return
	}
	session := newPortForwardSession(forward, opts)
	conn, err := UpgradeSPDY(w, r, session.onStream)
	if err != nil {
		opts.Logger.Debug("port-forward upgrade failed", "pod", opts.Pod, "err", err)
		return
	}
	session.run(r.Context(), conn)
}

// portForwardSession is the kubelet's side of one SPDY port-forward
// session: it accepts the streams kubectl opens, pairs them, and runs one
// forward per complete pair.
//
// Invariants: a requestID is in pairs from its first stream until its pair
// is complete or timed out, never longer, so a late stream with an old
// requestID starts a new pair rather than joining a finished one. An
// accepted stream is in streams until its forward (or its pair's timeout)
// is over; when the session ends, run resets those left (which unblocks
// whatever still reads them).
type portForwardSession struct {
	forward ForwardFunc
	opts    PortForwardOptions
	// ctx ends with the session; the forwards run under it.
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	pairs   map[string]*streamPair
	streams map[*spdystream.Stream]struct{}
}

// streamPair is the error and data streams of one forwarded connection.
type streamPair struct {
	requestID string
	port      int32
	data      *spdystream.Stream
	error     *spdystream.Stream
	timer     *time.Timer // the stream creation timeout
}

func newPortForwardSession(forward ForwardFunc, opts PortForwardOptions) *portForwardSession {
	ctx, cancel := context.WithCancel(context.Background())
	return &portForwardSession{forward: forward, opts: opts, ctx: ctx, cancel: cancel, pairs: map[string]*streamPair{}, streams: map[*spdystream.Stream]struct{}{}}
}

// run serves the session on conn until the client goes away or ctx (the
// kubelet's) ends, then tears every stream down.
func (s *portForwardSession) run(ctx context.Context, conn *spdystream.Connection) {
	conn.SetIdleTimeout(s.opts.IdleTimeout)
	select {
	case <-conn.CloseChan():
	case <-ctx.Done():
	}
	s.cancel()
	s.mu.Lock()
	streams := s.streams
	s.streams = map[*spdystream.Stream]struct{}{}
	for _, p := range s.pairs {
		p.timer.Stop()
	}
	s.mu.Unlock()
	// As upstream's SPDY connection closes: reset every stream first, so
	// that Close (which waits for open streams) ends the connection at
	// once; the close timeout cuts it off should a stream linger anyway.
	for st := range streams {
		_ = st.Reset()
	}
	conn.SetCloseTimeout(closeTimeout)
	_ = conn.Close()
	s.opts.Logger.Debug("port-forward session ended", "pod", s.opts.Pod)
}

// onStream is spdystream's handler for a stream the client opens. It runs
// on the connection's frame loop, so it never blocks: it files the stream
// in its pair, accepts it with a reply, and starts a forward when the
// stream completes its pair. The reply comes after the filing, so a client
// that has its reply knows the kubelet holds the stream.
func (s *portForwardSession) onStream(stream *spdystream.Stream) {
	complete, err := s.addStream(stream)
	if err != nil {
		// Upstream refuses such a stream with a reset and no reply.
		s.opts.Logger.Debug("port-forward stream refused", "pod", s.opts.Pod, "err", err)
		_ = stream.Reset()
		return
	}
	if err := stream.SendReply(http.Header{}, false); err != nil {
		_ = stream.Reset()
		return
	}
	if complete != nil {
		go s.forwardPair(complete)
	}
}

// addStream checks a new stream's headers, files it in the pair of its
// requestID, and returns the pair if the stream completes it.
func (s *portForwardSession) addStream(stream *spdystream.Stream) (*streamPair, error) {
	port, streamType, err := checkPortForwardStream(stream.Headers())
	if err != nil {
		return nil, err
	}
	requestID := requestIDOf(stream, streamType)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		return nil, fmt.Errorf("stream for request %s came after the session ended", requestID)
	}
	p, ok := s.pairs[requestID]
	if !ok {
		p = &streamPair{requestID: requestID, port: port}
		p.timer = time.AfterFunc(s.opts.StreamCreationTimeout, func() { s.timeOut(p) })
		s.pairs[requestID] = p
	}
	switch {
	case streamType == StreamTypeError && p.error == nil:
		p.error = stream
	case streamType == StreamTypeData && p.data == nil:
		p.data = stream
	default:
		msg := fmt.Sprintf("error processing stream for request %s: %s stream already assigned", requestID, streamType)
		if p.error != nil {
			fmt.Fprint(p.error, msg)
		}
		return nil, errors.New(msg)
	}
	s.streams[stream] = struct{}{}
	if p.error == nil || p.data == nil {
		return nil, nil
	}
	p.timer.Stop()
	delete(s.pairs, requestID)
	return p, nil
}

// timeOut gives up on a pair whose second stream did not come in time.
func (s *portForwardSession) timeOut(p *streamPair) {
	s.mu.Lock()
	if s.pairs[p.requestID] != p {
		s.mu.Unlock()
		return
	}
	delete(s.pairs, p.requestID)
	delete(s.streams, p.error)
	delete(s.streams, p.data)
	s.mu.Unlock()
	msg := fmt.Sprintf("timed out waiting for streams of request %s", p.requestID)
	s.opts.Logger.Debug("port-forward pair incomplete", "pod", s.opts.Pod, "err", msg)
	// Only one of the two streams came; upstream writes the reason on the
	// error stream when it is that one.
	if p.error != nil {
		fmt.Fprint(p.error, msg)
		_ = p.error.Close()
	}
	if p.data != nil {
		_ = p.data.Reset()
	}
}

// forwardPair carries one forwarded connection and reports its failure on
// the pair's error stream. Closing both streams afterwards tells kubectl
// the connection is over (and, with nothing on the error stream, that it
// went well).
func (s *portForwardSession) forwardPair(p *streamPair) {
	defer s.forget(p)
	s.opts.Logger.Debug("port-forward connection", "pod", s.opts.Pod, "port", p.port, "request", p.requestID)
	err := s.forward(s.ctx, p.port, p.data)
	if err != nil {
		s.opts.Logger.Debug("port-forward connection failed", "pod", s.opts.Pod, "port", p.port, "err", err)
		fmt.Fprint(p.error, s.opts.forwardError(p.port, err))
		// Nobody will read what the client sent on the data stream: reset
		// it, or its frames would hold up the session's frame loop.
		_ = p.error.Close()
		_ = p.data.Reset()
		return
	}
	_ = p.data.Close()
	_ = p.error.Close()
}

// forget drops a finished pair's streams from the session's set.
func (s *portForwardSession) forget(p *streamPair) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.streams, p.error)
	delete(s.streams, p.data)
}

// checkPortForwardStream validates the headers of a new stream as upstream
// does: a port from 1 to 65535 and a streamType of data or error.
func checkPortForwardStream(h http.Header) (port int32, streamType string, err error) {
	portString := h.Get(HeaderPort)
	if portString == "" {
		return 0, "", fmt.Errorf("%q header is required", HeaderPort)
	}
	n, err := strconv.ParseUint(portString, 10, 16)
	if err != nil {
		return 0, "", fmt.Errorf("unable to parse %q as a port: %w", portString, err)
	}
	if n < 1 {
		return 0, "", fmt.Errorf("port %q must be > 0", portString)
	}
	streamType = h.Get(HeaderStreamType)
	switch streamType {
	case "":
		return 0, "", fmt.Errorf("%q header is required", HeaderStreamType)
	case StreamTypeData, StreamTypeError:
	default:
		return 0, "", fmt.Errorf("invalid stream type %q", streamType)
	}
	return int32(n), streamType, nil
}

// requestIDOf is the key that pairs a stream with its partner: the
// requestID header, or, for clients older than Kubernetes 1.6 that do not
// send one, a key derived from the stream's ID. Such a client opens the
// error stream and then the data stream, so their IDs are consecutive odd
// numbers (1 and 3, 5 and 7); the error stream's ID names the pair. Like
// upstream's, this guess fails when an old client opens two connections at
// the same moment.
func requestIDOf(stream *spdystream.Stream, streamType string) string {
	if id := stream.Headers().Get(HeaderPortForwardRequestID); id != "" {
		return id
	}
	id := stream.Identifier()
	if streamType == StreamTypeData {
		id -= 2
	}
	return "stream-" + strconv.FormatUint(uint64(id), 10)
}
