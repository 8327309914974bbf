package ui

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"kplane/pkg/debug"
	"kplane/pkg/fault"
)

// Server is the web view: the page's assets, the stream of changes and
// the object API, behind an Authenticator, fed by informers.
type Server struct {
	opts Options
	hub  *Hub
	auth *Authenticator
	feed *objectFeed
	// queueHistory is the Workqueues panel's reading of the journals
	// (panel_queues.go).
	queueHistory *debug.QueueHistoryReader
	// faultKillEnv, when set, replaces the real world for the kill-leader
	// fault (panel_faults.go's tests).
	faultKillEnv *fault.KillEnv
}

// New returns a Server for opts, which must validate.
func New(opts Options) (*Server, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	hub := NewHub()
	return &Server{
		opts: opts,
		hub:  hub,
		auth: NewAuthenticator(opts.AdminToken),
		feed: newObjectFeed(opts.Client, hub, opts.Logger),

		queueHistory: debug.NewQueueHistoryReader(queuesPerQueue),
	}, nil
}

// Handler routes the server's paths:
//
//	/login?token=T          one-time login link → session cookie
//	/api/stream             server-sent events: snapshot, upsert, delete (Events left out)
//	/api/objects/{uid}      an object's YAML and the diff of its last change
//	/api/events/{uid}       the Events about an object (events_api.go)
//	/api/debug/leases       every leader-election Lease and its candidates (panel_leases.go)
//	/api/debug/queues       every workqueue and its last keys' passages (panel_queues.go)
//	/api/debug/labs         GET: the labs and the progress (panel_labs.go);
//	                        POST …/labs/{start,check,hint,reset}: `ctl lab`'s verbs;
//	                        GET …/labs/{lab}/files/{file}: a lab's YAML
//	/api/debug/faults/…     the fault buttons: ctl fault's actions (panel_faults.go)
//	/api/debug/clock        the cluster clock; POST …/advance moves it (panel_clock.go)
//	/api/debug/why/{uid}    an object's decision records (ctl why), panel_why.go
//	/api/debug/trace/{uid}  an object's trace (ctl trace), panel_trace.go
//	/api/debug/etcd/…       etcd's keys and a key's history (panel_etcd.go)
//	/api/debug/timeline     Events and writes in order (ctl timeline); …/state: an
//	                        object as of one write, from etcd (panel_timeline.go)
//	/                       the page (embedded assets)
//
// Everything but /login needs credentials.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", s.auth.ServeLogin)
	mux.Handle("GET /api/stream", s.auth.Require(http.HandlerFunc(s.serveStream)))
	mux.Handle("GET /api/objects/{uid}", s.auth.Require(http.HandlerFunc(s.serveObject)))
	mux.Handle("GET /api/events/{uid}", s.auth.Require(http.HandlerFunc(s.serveObjectEvents)))
	mux.Handle("GET /api/debug/leases", s.auth.Require(http.HandlerFunc(s.serveLeases)))
	mux.Handle("GET /api/debug/queues", s.auth.Require(http.HandlerFunc(s.serveQueues)))
	mux.Handle("GET /api/debug/labs", s.auth.Require(http.HandlerFunc(s.serveLabs)))
	mux.Handle("POST /api/debug/labs/{action}", s.auth.Require(requireSameOrigin(http.HandlerFunc(s.serveLabAction))))
	mux.Handle("GET /api/debug/labs/{lab}/files/{file}", s.auth.Require(http.HandlerFunc(s.serveLabFile)))
	mux.Handle("/api/debug/faults/", s.auth.Require(s.faultsHandler()))
	mux.Handle("GET /api/debug/clock", s.auth.Require(http.HandlerFunc(s.serveClock)))
	mux.Handle("POST /api/debug/clock/advance", s.auth.Require(requireSameOrigin(http.HandlerFunc(s.serveClockAdvance))))
	mux.Handle("GET /api/debug/why/{uid}", s.auth.Require(http.HandlerFunc(s.serveWhy)))
	mux.Handle("GET /api/debug/trace/{uid}", s.auth.Require(http.HandlerFunc(s.serveTrace)))
	mux.Handle("GET /api/debug/etcd/keys", s.auth.Require(http.HandlerFunc(s.serveEtcdKeys)))
	mux.Handle("GET /api/debug/etcd/history", s.auth.Require(http.HandlerFunc(s.serveEtcdHistory)))
	mux.Handle("GET /api/debug/timeline", s.auth.Require(http.HandlerFunc(s.serveTimeline)))
	mux.Handle("GET /api/debug/timeline/state", s.auth.Require(http.HandlerFunc(s.serveObjectState)))
	mux.Handle("/api/", s.auth.Require(http.NotFoundHandler()))
	mux.Handle("/", s.auth.Require(assetHandler()))
	return mux
}

// LoginURL returns a new one-time login link for a server reached at
// baseURL (http://127.0.0.1:PORT).
func (s *Server) LoginURL(baseURL string) string {
	return baseURL + "/login?token=" + s.auth.NewLoginToken()
}

// Listen opens the server's loopback listener.
func (s *Server) Listen() (net.Listener, error) {
	l, err := net.Listen("tcp", s.opts.ListenAddress())
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", s.opts.ListenAddress(), err)
	}
	return l, nil
}

// Serve runs the informers and serves on l until ctx ends, then closes
// the open streams and returns.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	feedDone := make(chan error, 1)
	go func() { feedDone <- s.feed.Run(ctx) }()

	httpServer := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	served := make(chan error, 1)
	go func() { served <- httpServer.Serve(l) }()

	var err error
	feedStopped := false
	select {
	case <-ctx.Done():
	case err = <-served:
	case err = <-feedDone:
		feedStopped = true
	}
	cancel()
	shutdownCtx, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	_ = httpServer.Shutdown(shutdownCtx)
	if !feedStopped {
		<-feedDone // the informers have stopped
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("ui: %w", err)
	}
	return nil
}
