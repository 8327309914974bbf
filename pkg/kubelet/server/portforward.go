package server

// This file serves /portForward, the kubelet's end of `kubectl
// port-forward`.

import "net/http"

// servePortForward handles /portForward/{namespace}/{pod}.
func (s *Server) servePortForward(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "kplane's kubelet does not serve port-forward yet", http.StatusNotImplemented)
}
