package loadbalancer

import (
	"net"
	"sync"
)

// backend is one server behind the balancer: its health and the
// connections currently proxied to it.
//
// Invariants: up changes only through observe and markDown; when up turns
// false, every connection in conns is closed and conns is emptied, and no
// connection is added while up is false.
type backend struct {
	address string

	mu sync.Mutex
	// up says whether new client connections may go here. A backend
	// starts up: the first failed dial or Fall failed checks take it down.
	up bool
	// good and bad count the health checks in a row that passed or failed.
	good, bad int
	// conns are the proxied connections' two halves, client side and
	// backend side, closed together when the backend goes down.
	conns map[*proxiedConn]struct{}
}

// proxiedConn is one client connection and the backend connection it is
// joined to.
type proxiedConn struct {
	client, server net.Conn
}

// close closes both halves; it is safe to call more than once.
func (p *proxiedConn) close() {
	p.client.Close()
	p.server.Close()
}

func newBackend(address string) *backend {
	return &backend{address: address, up: true, conns: map[*proxiedConn]struct{}{}}
}

// isUp reports whether the backend takes new connections.
func (b *backend) isUp() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.up
}

// observe records one health check's result and reports a state change:
// "up" or "down", or "" when the state stays.
func (b *backend) observe(ok bool, rise, fall int) (change string) {
	b.mu.Lock()
	if ok {
		b.good, b.bad = b.good+1, 0
		if !b.up && b.good >= rise {
			b.up = true
			change = "up"
		}
		b.mu.Unlock()
		return change
	}
	b.good, b.bad = 0, b.bad+1
	if b.up && b.bad >= fall {
		b.up = false
		change = "down"
	}
	dropped := b.takeConnsLocked(change == "down")
	b.mu.Unlock()
	closeAll(dropped)
	return change
}

// markDown takes the backend down at once (a client's dial failed) and
// reports whether it was up.
func (b *backend) markDown() bool {
	b.mu.Lock()
	was := b.up
	b.up, b.good = false, 0
	dropped := b.takeConnsLocked(was)
	b.mu.Unlock()
	closeAll(dropped)
	return was
}

// takeConnsLocked empties conns and returns them when take is set.
func (b *backend) takeConnsLocked(take bool) []*proxiedConn {
	if !take {
		return nil
	}
	var out []*proxiedConn
	for c := range b.conns {
		out = append(out, c)
	}
	clear(b.conns)
	return out
}

// add registers a proxied connection; it fails when the backend went down
// after the dial, and the caller then closes the connection itself.
func (b *backend) add(c *proxiedConn) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.up {
		return false
	}
	b.conns[c] = struct{}{}
	return true
}

// remove forgets a connection that ended by itself.
func (b *backend) remove(c *proxiedConn) {
	b.mu.Lock()
	delete(b.conns, c)
	b.mu.Unlock()
}

// connections counts the connections proxied to the backend now.
func (b *backend) connections() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.conns)
}

func closeAll(conns []*proxiedConn) {
	for _, c := range conns {
		c.close()
	}
}
