package server

// This file serves /exec and /attach, the kubelet's end of `kubectl exec`
// and `kubectl attach`.

import "net/http"

// serveExec handles /exec/{namespace}/{pod}/{container}?command=…
func (s *Server) serveExec(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "kplane's kubelet does not serve exec yet", http.StatusNotImplemented)
}

// serveAttach handles /attach/{namespace}/{pod}/{container}.
func (s *Server) serveAttach(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "kplane's kubelet does not serve attach yet", http.StatusNotImplemented)
}
