package apiserver_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"io"
	"strings"
	"testing"
	"time"

	"kplane/test/framework"
)

// TestHTTP2SettingsFitAnObjectInOneFrame reads the SETTINGS frame the
// apiserver sends a new HTTP/2 connection and checks that it allows 100
// streams and takes a 256 KiB body in one frame and one stream window, as
// upstream's kube-apiserver does.
func TestHTTP2SettingsFitAnObjectInOneFrame(t *testing.T) {
	a := framework.StartAPIServer(t)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(a.CACertPEM())
	conn, err := tls.Dial("tcp", strings.TrimPrefix(a.URL(), "https://"),
		&tls.Config{RootCAs: pool, NextProtos: []string{"h2"}})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer conn.Close()
	if p := conn.ConnectionState().NegotiatedProtocol; p != "h2" {
		t.Fatalf("negotiated %q, want h2", p)
	}
	if err := conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	// The client preface, then an empty SETTINGS frame (type 4, stream 0).
	preface := append([]byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), 0, 0, 0, 4, 0, 0, 0, 0, 0)
	if _, err := conn.Write(preface); err != nil {
		t.Fatalf("write preface: %v", err)
	}
	settings := readServerSettings(t, conn)
	want := map[uint16]uint32{
		0x3: 100,       // SETTINGS_MAX_CONCURRENT_STREAMS
		0x4: 256 << 10, // SETTINGS_INITIAL_WINDOW_SIZE
		0x5: 256 << 10, // SETTINGS_MAX_FRAME_SIZE
	}
	for id, v := range want {
		if settings[id] != v {
			t.Errorf("setting %#x = %d, want %d (all: %v)", id, settings[id], v, settings)
		}
	}
}

// readServerSettings reads frames until the server's first SETTINGS frame
// that is not an acknowledgement, and returns its parameters.
func readServerSettings(t *testing.T, r io.Reader) map[uint16]uint32 {
	t.Helper()
	for {
		var header [9]byte
		if _, err := io.ReadFull(r, header[:]); err != nil {
			t.Fatalf("read frame header: %v", err)
		}
		length := int(header[0])<<16 | int(header[1])<<8 | int(header[2])
		payload := make([]byte, length)
		if _, err := io.ReadFull(r, payload); err != nil {
			t.Fatalf("read frame payload: %v", err)
		}
		const settingsFrame, ackFlag = 4, 1
		if header[3] != settingsFrame || header[4]&ackFlag != 0 {
			continue
		}
		out := map[uint16]uint32{}
		for i := 0; i+6 <= len(payload); i += 6 {
			out[binary.BigEndian.Uint16(payload[i:])] = binary.BigEndian.Uint32(payload[i+2:])
		}
		return out
	}
}
