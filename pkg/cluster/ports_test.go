package cluster

import (
	"net"
	"strconv"
	"testing"
)

// TestFreeLoopbackPortIsBelowTheEphemeralRange: the picked port is free
// for TCP and UDP and outside the range the kernel hands to port-0
// listeners, so no such listener can take it before the component binds.
func TestFreeLoopbackPortIsBelowTheEphemeralRange(t *testing.T) {
	port, err := freeLoopbackPort()
	if err != nil {
		t.Fatal(err)
	}
	if port >= ephemeralLow() || port <= 1024 {
		t.Fatalf("port %d is not between 1024 and the ephemeral range (from %d)", port, ephemeralLow())
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("the picked port is not free: %v", err)
	}
	defer ln.Close()
	if portFree(port) {
		t.Errorf("portFree(%d) = true while a listener holds it", port)
	}
}

// TestFreeLoopbackPortNeverRepeats: ports handed out are not bound until
// their components start, so the launcher must remember them; a thousand
// picks in one process are all different.
func TestFreeLoopbackPortNeverRepeats(t *testing.T) {
	seen := map[int]bool{}
	for range 1000 {
		port, err := freeLoopbackPort()
		if err != nil {
			t.Fatal(err)
		}
		if seen[port] {
			t.Fatalf("port %d handed out twice", port)
		}
		seen[port] = true
	}
}
