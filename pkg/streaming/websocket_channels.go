package streaming

// This file is the framing shared by every WebSocket channel protocol
// kplane serves: exec and attach (remotecommand_websocket.go) and
// port-forward's channels (portforward_websocket.go). A message belongs to
// one numbered channel:
//
//	binary protocols   {channel, data…}
//	base64 protocols   {'0'+channel, base64(data)…}, as a text message
//
// Upstream keeps this framing in one place too: apimachinery's
// httpstream/wsstream/conn.go, which both the kubelet's remotecommand and
// portforward packages use.

import (
	"encoding/base64"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// writeChannel sends data as one message on channel. mu serializes the
// connection's writers (gorilla/websocket allows one at a time); the write
// deadline, clientWriteTimeout, lets a client that stopped reading fail
// the write instead of holding mu, and every writer waiting on it, for
// ever.
func writeChannel(ws *websocket.Conn, mu *sync.Mutex, base64Encoded bool, channel byte, data []byte) error {
	mu.Lock()
	defer mu.Unlock()
	if err := ws.SetWriteDeadline(time.Now().Add(clientWriteTimeout)); err != nil {
		return err
	}
	if base64Encoded {
		msg := make([]byte, 1+base64.StdEncoding.EncodedLen(len(data)))
		msg[0] = '0' + channel
		base64.StdEncoding.Encode(msg[1:], data)
		return ws.WriteMessage(websocket.TextMessage, msg)
	}
	msg := make([]byte, 1+len(data))
	msg[0] = channel
	copy(msg[1:], data)
	return ws.WriteMessage(websocket.BinaryMessage, msg)
}

// decodeChannelMessage splits a message the client sent into its channel
// and payload. ok is false for a message to drop, as upstream drops it: an
// empty one, or a base64 one that does not decode.
func decodeChannelMessage(msg []byte, base64Encoded bool) (channel byte, payload []byte, ok bool) {
	if len(msg) == 0 {
		return 0, nil, false
	}
	channel, payload = msg[0], msg[1:]
	if !base64Encoded {
		return channel, payload, true
	}
	decoded := make([]byte, base64.StdEncoding.DecodedLen(len(payload)))
	n, err := base64.StdEncoding.Decode(decoded, payload)
	if err != nil {
		return 0, nil, false
	}
	return channel - '0', decoded[:n], true
}
