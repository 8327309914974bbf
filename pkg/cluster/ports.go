package cluster

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// The DNS and the kube-proxies listen on ports the launcher picks before
// they start, because the kubelets are told where they are. A port asked of
// the kernel with port 0 and released again is a poor choice for that: until
// the component binds it, any other process's port-0 listener or outgoing
// connection may be handed the same port (the kernel draws those from the
// ephemeral range). So the launcher picks below the ephemeral range, where
// only a process naming the port explicitly could take it, and checks that
// TCP and UDP are both free there (the DNS listens on both). It also never
// hands out the same port twice: a port it picked for one component is
// still free until that component starts, so without that memory two
// components of one plan (or of two clusters a test process starts) could
// draw it both.

// ephemeralRangeFile holds the kernel's ephemeral port range, "low high".
const ephemeralRangeFile = "/proc/sys/net/ipv4/ip_local_port_range"

// defaultEphemeralLow is Linux's default start of the ephemeral range.
const defaultEphemeralLow = 32768

// fixedPortSpan is how many ports below the ephemeral range are drawn from:
// wide, so that clusters started side by side (the e2e tests start many at
// once) rarely draw the same port before either has bound it.
const fixedPortSpan = 30000

// handedOut holds every port freeLoopbackPort has returned in this process.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// freeLoopbackPort returns a port of 127.0.0.1 that is free for TCP and UDP,
// lies below the kernel's ephemeral range, and was not returned before in
// this process.
func freeLoopbackPort() (int, error) {
	high := ephemeralLow() - 1
	low := max(high-fixedPortSpan, 1024)
	if high <= low {
		return 0, fmt.Errorf("pick a free port: the ephemeral range starts at %d, leaving no fixed ports", high+1)
	}
	for range 100 {
		port := low + rand.IntN(high-low+1)
		if claim(port) {
			return port, nil
		}
	}
	return 0, errors.New("pick a free port: 100 random ports below the ephemeral range were all taken")
}

// claim reports whether port is free and never handed out, and if so
// remembers it as handed out.
func claim(port int) bool {
	handedOut.Lock()
	defer handedOut.Unlock()
	if handedOut.ports[port] || !portFree(port) {
		return false
	}
	handedOut.ports[port] = true
	return true
}

// ephemeralLow is the first port of the kernel's ephemeral range.
func ephemeralLow() int {
	b, err := os.ReadFile(ephemeralRangeFile)
	if err != nil {
		return defaultEphemeralLow
	}
	fields := strings.Fields(string(b))
	if len(fields) != 2 {
		return defaultEphemeralLow
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil || low <= 1024 {
		return defaultEphemeralLow
	}
	return low
}

// portFree reports whether 127.0.0.1:port can be bound for TCP and UDP.
func portFree(port int) bool {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return false
	}
	defer ln.Close()
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		return false
	}
	pc.Close()
	return true
}
