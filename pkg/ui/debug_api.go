package ui

import (
	"net/http"

	"kplane/pkg/debug"
)

// The panels on the machinery (leases, workqueues, trace, why, etcd,
// faults) show what ctl's teaching verbs print, read from the same place:
// each component's debug API (pkg/debug), found through the endpoints the
// components announce in the cluster's data dir. Each panel has its own
// file here, panel_<name>.go, with its route(s) under /api/debug/…, and
// its view in web/js/views/<name>.js.

// debugAPI connects to the components of the cluster in the server's data
// dir. It reads the announced endpoints again at every call: a component
// that restarted (a killed leader) listens on a new port.
func (s *Server) debugAPI() (*debug.Client, []debug.Endpoint, error) {
	return debug.Connect(s.opts.DataDir)
}

// serveDebugUnavailable answers a panel's request when the debug APIs
// cannot be reached, with the reason: a page opened on a cluster started
// elsewhere says so rather than showing an empty panel.
func serveDebugUnavailable(w http.ResponseWriter, err error) {
	debug.WriteStatus(w, http.StatusServiceUnavailable, "ServiceUnavailable",
		"the components' debug APIs cannot be reached: "+err.Error())
}
