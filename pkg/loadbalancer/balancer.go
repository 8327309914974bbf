package loadbalancer

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
)

// Balancer accepts TCP connections on one address and proxies each to a
// healthy backend, round-robin. Start it with Listen, then Serve.
type Balancer struct {
	opts     Options
	log      *slog.Logger
	listener net.Listener
	backends []*backend
	// next is the round-robin cursor: the index the next pick starts at.
	next atomic.Uint64
	// proxies counts the goroutines copying bytes, so Serve returns only
	// once they are done.
	proxies sync.WaitGroup
}

// Listen validates o and binds its listen address.
func Listen(o Options) (*Balancer, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", o.Listen, err)
	}
	b := &Balancer{opts: o, log: o.Logger, listener: ln}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	for _, address := range o.Backends {
		b.backends = append(b.backends, newBackend(address))
	}
	return b, nil
}

// Addr is the address the balancer listens on.
func (b *Balancer) Addr() net.Addr { return b.listener.Addr() }

// Serve accepts connections and runs the health checks until ctx ends (or
// accepting fails), then closes the listener and every proxied connection
// and returns.
func (b *Balancer) Serve(ctx context.Context) error {
	// Cancelled on return too, so a failed Accept also stops the checks and
	// the proxies.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	checks := b.startHealthChecks(ctx)
	stop := context.AfterFunc(ctx, func() { b.listener.Close() })
	defer stop()
	var err error
	for {
		conn, acceptErr := b.listener.Accept()
		if acceptErr != nil {
			if ctx.Err() == nil {
				err = fmt.Errorf("accept on %s: %w", b.opts.Listen, acceptErr)
				b.listener.Close()
			}
			break
		}
		b.proxies.Add(1)
		go b.proxy(ctx, conn)
	}
	// Each proxy closes its connections when ctx ends.
	cancel()
	checks.Wait()
	b.proxies.Wait()
	return err
}

// proxy joins client to a backend and copies bytes both ways until either
// side closes. With no backend reachable the client's connection is closed:
// to a TLS client that looks like a reset, and it retries.
func (b *Balancer) proxy(ctx context.Context, client net.Conn) {
	defer b.proxies.Done()
	be, server := b.dialBackend(ctx)
	if server == nil {
		client.Close()
		if ctx.Err() != nil {
			return // the balancer is stopping
		}
		b.log.Warn("no healthy backend; connection closed", "client", client.RemoteAddr().String())
		return
	}
	pc := &proxiedConn{client: client, server: server}
	if !be.add(pc) {
		pc.close()
		return
	}
	defer be.remove(pc)
	// Stopping the balancer closes the connection, which ends the copies
	// below. Registering it here, after add, leaves no gap: a connection
	// added after ctx ended is closed at once.
	defer context.AfterFunc(ctx, pc.close)()
	done := make(chan struct{}, 2)
	copyHalf := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		// Pass the end of one direction on (a TCP half-close), so a
		// server's response after the client finished sending still
		// arrives.
		if tcp, ok := dst.(*net.TCPConn); ok {
			_ = tcp.CloseWrite()
		} else {
			dst.Close()
		}
		done <- struct{}{}
	}
	go copyHalf(server, client)
	go copyHalf(client, server)
	<-done
	<-done
	pc.close()
}

// dialBackend dials the healthy backends in round-robin order, starting
// after the one picked last, and returns the first that answers. A backend
// whose dial fails is marked down at once, without waiting for its health
// checks; if every backend is down, each is tried anyway, because a check
// may just not have seen it come back yet.
func (b *Balancer) dialBackend(ctx context.Context) (*backend, net.Conn) {
	n := len(b.backends)
	start := int(b.next.Add(1)-1) % n
	for _, wantUp := range []bool{true, false} {
		for i := range n {
			be := b.backends[(start+i)%n]
			if be.isUp() != wantUp {
				continue
			}
			dialer := net.Dialer{Timeout: b.opts.DialTimeout}
			conn, err := dialer.DialContext(ctx, "tcp", be.address)
			if err == nil {
				if !wantUp {
					// It answers: let clients use it before the checks agree.
					be.observeUp()
					b.log.Info("backend up: it accepted a connection", "backend", be.address)
				}
				return be, conn
			}
			if ctx.Err() != nil {
				// The balancer is stopping; the backend is not to blame.
				return nil, nil
			}
			if be.markDown() {
				b.log.Warn("backend down: dial failed", "backend", be.address, "err", err)
			}
		}
	}
	return nil, nil
}

// observeUp brings a backend up because a connection to it succeeded.
func (b *backend) observeUp() {
	b.mu.Lock()
	b.up, b.bad = true, 0
	b.mu.Unlock()
}

// BackendStatus is one backend as the balancer sees it now.
type BackendStatus struct {
	Address     string
	Up          bool
	Connections int
}

// Backends reports every backend's state, in the configured order.
func (b *Balancer) Backends() []BackendStatus {
	var out []BackendStatus
	for _, be := range b.backends {
		out = append(out, BackendStatus{Address: be.address, Up: be.isUp(), Connections: be.connections()})
	}
	return out
}
