package apiserver

import "net/http"

// impersonate acts on the Impersonate-User, Impersonate-Group,
// Impersonate-Uid and Impersonate-Extra-* headers (kubectl --as,
// --as-group). Not built yet: the headers are ignored.
func (s *Server) impersonate(next http.Handler) http.Handler { return next }
