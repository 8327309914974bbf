package main

// This file gives the Website controller kplane's debug API, the one every
// built-in component serves (pkg/debug), so that the teaching verbs see
// it like any other controller:
//
//   - `ctl queues` shows its workqueue "website" (depth, dirty, processing);
//   - `ctl trace website/NAME` shows its informers' stages, its queue, each
//     sync and the writes it made, next to the apiserver's etcd writes and
//     watch fan-out;
//   - `ctl why website/NAME` prints the last decision of its sync.
//
// ctl finds a component's debug API in the cluster's data directory: each
// component writes DATA_DIR/debug/<component>.json with its address and
// PID once it listens. With --debug-data-dir the controller does the same,
// as "website-controller".

import (
	"fmt"
	"log/slog"

	"kplane/pkg/client"
	"kplane/pkg/debug"
)

// debugComponent is the controller's name in its debug records and its
// endpoint file: the COMPONENT column of `ctl queues` and `ctl trace`.
const debugComponent = "website-controller"

// debugAPI is the controller's debug journal, which serve puts on a
// loopback server.
type debugAPI struct {
	// journal is where the informers, the workqueue, the workers and the
	// client's writes record what they do (nil: the debug API is off, and
	// every hook costs one nil check).
	journal *debug.Journal
}

// newDebugAPI returns the debug API the options ask for: none without
// DebugDataDir, else a journal of debug.DefaultRingSize records (what `ctl
// up` gives every component) and a server bound to DebugAddress.
func newDebugAPI(opts RunOptions) *debugAPI {
	if opts.DebugDataDir == "" {
		return &debugAPI{}
	}
	return &debugAPI{journal: debug.NewJournal(debugComponent, debug.DefaultRingSize, nil)}
}

// serve starts serving the API on loopback, admitting the cluster's
// administrators only (their tokens are checked by the apiserver, through
// c), and announces it in the data directory where ctl looks; identity is
// the controller's leader-election identity ("" without --leader-elect).
// The stop it returns stops the server. Without a journal it does nothing.
func (d *debugAPI) serve(opts RunOptions, c *client.Client, identity string, logger *slog.Logger) (stop func(), err error) {
	if d.journal == nil {
		return func() {}, nil
	}
	mux := debug.ComponentMux(d.journal, debug.TokenReviewAuthenticator(c), nil)
	server, err := debug.Listen("--debug-address", opts.DebugAddress, mux)
	if err != nil {
		return nil, fmt.Errorf("debug API: %w", err)
	}
	stop = server.Serve(logger)
	file := debug.EndpointFile(opts.DebugDataDir, debugComponent)
	if err := debug.Announce(file, debugComponent, server.URL(), identity); err != nil {
		stop()
		return nil, fmt.Errorf("debug API: %w", err)
	}
	logger.Info("serving the debug API", "url", server.URL(), "announced", file)
	return stop, nil
}
