package streaming

import (
	"strconv"
	"strings"
	"testing"

	"github.com/moby/spdystream"
)

// benchmarkPortForward sends a 1 MiB request through one forwarded
// connection per iteration and reads it back from the fake pod's echo
// port, over one session on loopback (MB/s counts the bytes each way
// once).
func benchmarkPortForward(b *testing.B, session *spdystream.Connection) {
	payload := strings.Repeat("x", 1<<20)
	b.SetBytes(int64(len(payload)))
	b.ResetTimer()
	for i := range b.N {
		answer, errText, err := forwardOnce(session, 80, strconv.Itoa(i), payload)
		if err != nil || errText != "" || len(answer) != len(payload) {
			b.Fatalf("connection %d: %v, %q, %d bytes back", i, err, errText, len(answer))
		}
	}
}

// BenchmarkPortForwardSPDY is port-forward as kubectl ≤ 1.30 makes it.
func BenchmarkPortForwardSPDY(b *testing.B) {
	benchmarkPortForward(b, dialSPDY(b, newFakePod().server(b), PortForwardProtocolV1))
}

// BenchmarkPortForwardTunnel is port-forward as kubectl ≥ 1.31 makes it:
// the same SPDY session inside WebSocket messages.
func BenchmarkPortForwardTunnel(b *testing.B) {
	benchmarkPortForward(b, dialTunnel(b, newFakePod().server(b)))
}
