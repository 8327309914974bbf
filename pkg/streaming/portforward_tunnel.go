package streaming

// This file is port-forward's WebSocket tunnel, the form kubectl ≥ 1.31
// tries first: a GET with Upgrade: websocket and the subprotocol
// SPDY/3.1+portforward.k8s.io, whose binary messages then carry exactly
// the SPDY session of portforward_spdy.go. WebSocket gets through proxies
// and load balancers that drop SPDY; SPDY keeps its streams.
//
// Upstream, the apiserver ends the tunnel (staging/src/k8s.io/apiserver/
// pkg/util/proxy/streamtunnel.go) and speaks plain SPDY to the kubelet.
// kplane's apiserver passes the WebSocket through unchanged, and the
// kubelet ends the tunnel itself: it answers the WebSocket upgrade with
// the tunnelled protocol and runs its SPDY server on the WebSocket, seen
// as a net.Conn (wsconn.go). A client that is refused here (kubectl
// 1.31+ on an upgrade failure) falls back to SPDY.

import (
	"net/http"
	"slices"
	"strings"

	"github.com/gorilla/websocket"
	"github.com/moby/spdystream"
)

// servePortForwardTunnel upgrades r to a WebSocket tunnelling SPDY and
// serves the port-forward session over it.
func servePortForwardTunnel(w http.ResponseWriter, r *http.Request, forward ForwardFunc, opts PortForwardOptions) {
	var spdyProtocols []string
	for _, p := range websocket.Subprotocols(r) {
		if strings.HasPrefix(p, TunnelingProtocolPrefix) {
			spdyProtocols = append(spdyProtocols, strings.TrimPrefix(p, TunnelingProtocolPrefix))
		}
	}
	if !slices.Contains(spdyProtocols, PortForwardProtocolV1) {
		w.Header().Set(HeaderAcceptedProtocolVersions, TunnelingProtocolPrefix+PortForwardProtocolV1)
		http.Error(w, "unable to upgrade: unable to negotiate protocol: client supports "+strings.Join(spdyProtocols, ", ")+
			" inside the tunnel, server accepts "+PortForwardProtocolV1, http.StatusForbidden)
		return
	}
	upgrader := websocket.Upgrader{
		Subprotocols: []string{TunnelingProtocolPrefix + PortForwardProtocolV1},
		// The kubelet's clients are authenticated by certificate; a
		// browser's Origin means nothing here, as upstream's tunnel says.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	ws, err := upgrader.Upgrade(w, r, nil) // answers the client itself on failure
	if err != nil {
		opts.Logger.Debug("port-forward tunnel upgrade failed", "pod", opts.Pod, "err", err)
		return
	}
	session := newPortForwardSession(forward, opts)
	conn, err := spdystream.NewConnection(NewWebSocketConn(ws), true)
	if err != nil {
		ws.Close()
		opts.Logger.Debug("port-forward tunnel: start SPDY", "pod", opts.Pod, "err", err)
		return
	}
	go conn.Serve(session.onStream)
	session.run(r.Context(), conn)
}
