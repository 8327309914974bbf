package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc"
	"go.etcd.io/etcd/server/v3/proxy/grpcproxy/adapter"
)

// MaxRequestBytes is the largest request etcd accepts: etcd's default
// --max-request-bytes of 1.5 MiB, which the embedded etcd keeps. The limit
// counts the whole request (key, value and a little framing), so an object
// whose JSON is close to it may still be refused with ErrTooLarge; the
// apiserver can answer 413 early for anything larger. An external etcd may be
// configured with another limit.
const MaxRequestBytes = int(embed.DefaultMaxRequestBytes)

// embeddedMemberName names the single etcd member. It is part of the member's
// identity stored in the data dir, so it must not change between restarts.
const embeddedMemberName = "kplane"

// Embedded is an etcd server running inside the current process, with a
// client connected to it. It is how a single apiserver runs with no etcd to
// install: a one-member cluster whose data lives in the apiserver's data dir.
type Embedded struct {
	etcd      *embed.Etcd
	client    *clientv3.Client
	store     *EtcdStore
	clientURL string
	closed    chan struct{} // closed by Close; ends in-process watches

	closeOnce sync.Once
	closeErr  error
}

// StartEmbedded starts a one-member etcd with its data in <dataDir>/etcd and
// its log in <dataDir>/etcd.log, and returns once it serves requests.
//
// It listens only on 127.0.0.1, on client and peer ports the kernel picks, so
// any number can run side by side; ClientURL tells where the client port is.
// Starting again on the same dataDir finds the data and revisions as they
// were. Like upstream etcd, it never compacts by itself (see RunCompactor).
func StartEmbedded(ctx context.Context, dataDir string) (*Embedded, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("start embedded etcd: %w", err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("start embedded etcd: %w", err)
	}
	e, err := startEtcd(ctx, embeddedConfig(dataDir))
	if err != nil {
		return nil, err
	}
	e.store.inProcess = newInProcessWatch(e.etcd.Server, e.closed)
	return e, nil
}

// startEtcd starts an etcd server with cfg, waits until it serves requests
// and connects a client to its first client listener.
func startEtcd(ctx context.Context, cfg *embed.Config) (*Embedded, error) {
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("start embedded etcd in %s: %w", cfg.Dir, err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("start embedded etcd in %s: %w", cfg.Dir, err)
	case <-ctx.Done():
		e.Close()
		return nil, fmt.Errorf("start embedded etcd in %s: %w", cfg.Dir, ctx.Err())
	}

	// The listener knows the port the kernel picked; the configured URL
	// may only say ":0". Other processes (etcdctl, benchmarks) use it.
	clientURL := (&url.URL{Scheme: "http", Host: e.Clients[0].Addr().String()}).String()
	client, err := newEtcdClient([]string{clientURL})
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("connect to embedded etcd at %s: %w", clientURL, err)
	}
	// The apiserver's reads and writes (the KV service) call the server in
	// its own process: etcd's adapter hands each request to the server's
	// gRPC service function directly, as etcd's own v3client does, instead
	// of encoding it as protobuf, framing it in HTTP/2 over a loopback
	// socket and decoding it again on the other side, and the same for
	// every answer. That round trip was about a quarter of the apiserver's
	// CPU under W3's creates (docs/performance.md, "Issue 18: writes"). The
	// server keeps its own checks (request size, quota, revisions); only
	// the transport is skipped. Leases and the cluster API stay on the gRPC
	// connection; watches go in-process too, but only for the single-member
	// etcd of StartEmbedded (see inProcessWatch).
	client.KV = clientv3.NewKVFromKVClient(adapter.KvServerToKvClient(v3rpc.NewQuotaKVServer(e.Server)), client)
	return &Embedded{
		etcd:      e,
		client:    client,
		store:     NewEtcdStore(client),
		clientURL: clientURL,
		closed:    make(chan struct{}),
	}, nil
}

// embeddedConfig is etcd's default configuration with the changes a
// private, single-member etcd needs.
func embeddedConfig(dataDir string) *embed.Config {
	cfg := embed.NewConfig()
	cfg.Name = embeddedMemberName
	cfg.Dir = filepath.Join(dataDir, "etcd")

	// Port 0 on loopback: the kernel picks a free port at listen time, so
	// there is no race with other processes for a port chosen beforehand.
	// The advertised URLs keep ":0"; with a single member no peer ever
	// dials the peer URL, and clients use ClientURL instead of the
	// advertised one.
	loopback := url.URL{Scheme: "http", Host: "127.0.0.1:0"}
	cfg.ListenClientUrls = []url.URL{loopback}
	cfg.AdvertiseClientUrls = []url.URL{loopback}
	cfg.ListenPeerUrls = []url.URL{loopback}
	cfg.AdvertisePeerUrls = []url.URL{loopback}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)

	// The JSON gateway and the /metrics and /health HTTP handlers on the
	// client port are not needed: kplane talks gRPC and has its own
	// metrics.
	cfg.EnableGRPCGateway = false

	// etcd logs a lot at info level; keep warnings and errors in a file
	// next to the data, where a student can read them.
	cfg.LogLevel = "warn"
	cfg.LogOutputs = []string{filepath.Join(dataDir, "etcd.log")}

	// Spelled out although they are the defaults, because they are facts
	// the rest of kplane relies on: etcd refuses requests over 1.5 MiB, and
	// embedded etcd never compacts unless told to (the apiserver asks every
	// 5 minutes, as upstream's does).
	cfg.MaxRequestBytes = uint(MaxRequestBytes)
	cfg.AutoCompactionRetention = "0" // never compact by itself

	// A lone member still waits for a raft election timeout before it
	// makes itself leader and serves requests. etcd's 100 ms tick and 1 s
	// election timeout (randomised, less one tick etcd skips at boot) make
	// that 0.1–1.1 s; 20 ms and 100 ms make it 20–120 ms. No peer exists
	// to be disturbed by the faster heartbeat, and the idle cost of the
	// extra ticks measured well under 1% of a core.
	cfg.TickMs = 20
	cfg.ElectionMs = 100
	return cfg
}

// Store returns a store on the embedded etcd.
func (e *Embedded) Store() *EtcdStore { return e.store }

// Client returns the client connected to the embedded etcd.
func (e *Embedded) Client() *clientv3.Client { return e.client }

// ClientURL returns the URL etcd serves clients on, such as
// "http://127.0.0.1:41235"; etcdctl --endpoints accepts it.
func (e *Embedded) ClientURL() string { return e.clientURL }

// Close disconnects the client and stops the server, waiting until the data
// is flushed. The data stays in the data dir for the next start. Calling Close
// again does nothing and returns the first call's result.
func (e *Embedded) Close() error {
	e.closeOnce.Do(func() {
		close(e.closed) // ends the in-process watches, as closing the client ends gRPC ones
		if err := e.client.Close(); err != nil && !errors.Is(err, context.Canceled) {
			e.closeErr = fmt.Errorf("close embedded etcd client: %w", err)
		}
		e.etcd.Close()
	})
	return e.closeErr
}

// Err reports a fatal error of the etcd server after it started, such as
// losing its data dir; the server has stopped serving when one arrives.
func (e *Embedded) Err() <-chan error { return e.etcd.Err() }
