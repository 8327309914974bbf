package streaming

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/moby/spdystream"
)

// Headers of the upgrade handshake, as upstream's httpstream names them.
const (
	// HeaderProtocolVersion carries the stream protocols a client offers
	// (one value each) and, in the answer, the one the server chose.
	HeaderProtocolVersion = "X-Stream-Protocol-Version"
	// HeaderAcceptedProtocolVersions lists, in a refusal, what the server
	// would have accepted.
	HeaderAcceptedProtocolVersions = "X-Accepted-Stream-Protocol-Versions"
	// HeaderStreamType names what a SPDY stream carries: stdin, stdout,
	// stderr, error, resize, or data (port-forward).
	HeaderStreamType = "streamType"
	// SPDY31 is the Upgrade token of SPDY/3.1.
	SPDY31 = "SPDY/3.1"
)

// IsSPDYUpgrade reports whether r asks to switch to SPDY/3.1.
func IsSPDYUpgrade(r *http.Request) bool {
	return headerHasToken(r.Header, "Connection", "upgrade") && strings.EqualFold(r.Header.Get("Upgrade"), SPDY31)
}

// IsWebSocketUpgrade reports whether r asks to switch to WebSocket.
func IsWebSocketUpgrade(r *http.Request) bool {
	return headerHasToken(r.Header, "Connection", "upgrade") && strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// headerHasToken reports whether one of the comma-separated values of
// header name is token, ignoring case.
func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, part := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}

// Handshake picks the stream protocol of a SPDY session: the first of the
// client's X-Stream-Protocol-Version values (in the client's order of
// preference) that the server supports. It sets the chosen one on w's
// headers. When none matches it answers 403 with the protocols the server
// accepts, as upstream does, and returns an error.
func Handshake(w http.ResponseWriter, r *http.Request, serverProtocols []string) (string, error) {
	offered := r.Header.Values(HeaderProtocolVersion)
	if len(offered) == 0 {
		err := fmt.Errorf("unable to upgrade: %s is required", HeaderProtocolVersion)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return "", err
	}
	for _, p := range offered {
		for _, s := range serverProtocols {
			if p == s {
				w.Header().Add(HeaderProtocolVersion, p)
				return p, nil
			}
		}
	}
	for _, s := range serverProtocols {
		w.Header().Add(HeaderAcceptedProtocolVersions, s)
	}
	err := fmt.Errorf("unable to upgrade: unable to negotiate protocol: client supports %v, server accepts %v", offered, serverProtocols)
	http.Error(w, err.Error(), http.StatusForbidden)
	return "", err
}

// UpgradeSPDY answers 101 Switching Protocols to SPDY/3.1 and returns the
// server side of the SPDY connection, already serving: every stream the
// client opens is passed to onStream, which must accept it with
// stream.SendReply before using it. On failure UpgradeSPDY has answered w
// with the reason.
func UpgradeSPDY(w http.ResponseWriter, r *http.Request, onStream func(*spdystream.Stream)) (*spdystream.Connection, error) {
	if !IsSPDYUpgrade(r) {
		err := fmt.Errorf("unable to upgrade: missing upgrade headers in request: Connection %q, Upgrade %q",
			r.Header.Get("Connection"), r.Header.Get("Upgrade"))
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, err
	}
	w.Header().Add("Connection", "Upgrade")
	w.Header().Add("Upgrade", SPDY31)
	w.WriteHeader(http.StatusSwitchingProtocols)
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, fmt.Errorf("spdy upgrade: hijack the connection: %w", err)
	}
	// Bytes the client sent after its request may already sit in rw's
	// buffer; the SPDY framer must read them first.
	spdyConn, err := spdystream.NewConnection(&bufferedConn{Conn: conn, r: rw.Reader}, true)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("spdy upgrade: %w", err)
	}
	go spdyConn.Serve(onStream)
	return spdyConn, nil
}

// bufferedConn is a net.Conn whose reads drain a bufio.Reader first.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
