package apiserver

import "net/http"

// SetInFlightHook makes every request that holds an in-flight slot call
// hook just before it is served, so that a test can hold requests in
// flight (a gate) or make them outlast --request-timeout.
func (s *Server) SetInFlightHook(hook func(*http.Request)) { s.inFlightHook.Store(&hook) }
