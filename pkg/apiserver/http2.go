package apiserver

import "net/http"

// http2BodySize is the request body that fits in one HTTP/2 frame and one
// stream's receive window: nearly every serialized object is smaller, so
// a create's body arrives without the server waiting to grant more window.
const http2BodySize = 256 << 10

// http2MaxStreams is how many requests one client connection may have in
// flight, the same number Go's HTTP/2 client assumes before the server's
// SETTINGS arrive.
const http2MaxStreams = 100

// http2Settings returns the server's HTTP/2 settings, sized as upstream's
// kube-apiserver sizes them: a frame and a stream window of
// http2BodySize, and a connection window big enough for every allowed
// stream to have a full body in flight at once. Go's defaults (a 16 KiB
// frame, 1 MiB windows shared by 250 streams) make many concurrent
// creates on one connection wait for WINDOW_UPDATE frames.
func http2Settings() *http.HTTP2Config {
	return &http.HTTP2Config{
		MaxConcurrentStreams:          http2MaxStreams,
		MaxReadFrameSize:              http2BodySize,
		MaxReceiveBufferPerStream:     http2BodySize,
		MaxReceiveBufferPerConnection: http2BodySize * http2MaxStreams,
	}
}
