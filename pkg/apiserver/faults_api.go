package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/debug"
)

// registerFaultRoutes adds `ctl fault api-error`'s route to the
// apiserver's debug API, served behind its authentication.
func (s *Server) registerFaultRoutes() {
	j := s.opts.Journal
	j.Handle("GET "+debug.PathFaultAPIError, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		debug.WriteJSON(w, s.faults.active())
	}))
	j.Handle("POST "+debug.PathFaultAPIError, http.HandlerFunc(s.serveAddFault))
	j.Handle("DELETE "+debug.PathFaultAPIError, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		cleared := s.faults.clear()
		if len(cleared) > 0 {
			j.Add(debug.Record{Type: debug.TypeEvent, Stage: "api-error",
				Message: fmt.Sprintf("cleared %d api-error fault rules; held requests are served", len(cleared))})
		}
		debug.WriteJSON(w, cleared)
	}))
}

// serveAddFault installs the rule in the request's body.
func (s *Server) serveAddFault(w http.ResponseWriter, r *http.Request) {
	var rule debug.APIErrorRule
	if err := json.NewDecoder(r.Body).Decode(&rule); err != nil {
		response.WriteError(w, apierrors.NewBadRequest("decode the api-error rule: "+err.Error()))
		return
	}
	if err := s.checkFaultResource(rule.Resource); err != nil {
		response.WriteError(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	installed, err := s.faults.add(rule)
	if err != nil {
		response.WriteError(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	s.opts.Journal.Add(debug.Record{Type: debug.TypeEvent, Stage: "api-error", Resource: installed.Resource,
		Message: fmt.Sprintf("installed api-error fault rule %d: %s %s → %d, delay %v, for %v",
			installed.ID, installed.Verb, installed.Resource, installed.Code, installed.Delay, installed.For)})
	debug.WriteJSON(w, installed)
}

// checkFaultResource says, as kubectl would, when a rule names a resource
// or subresource the apiserver does not serve, so a typo does not install
// a rule that never matches.
func (s *Server) checkFaultResource(name string) error {
	plural, group, subresource, err := parseFaultResource(name)
	if err != nil {
		return err
	}
	var subresources []string // of every resource the name may mean
	served := false
	for _, r := range s.reg.all {
		if r.plural == plural && (group == "" || r.group == group) {
			served = true
			subresources = append(subresources, r.subresources()...)
		}
	}
	if !served {
		return fmt.Errorf("the server doesn't have a resource type %q (name it by its plural, as RBAC does: replicasets, pods/status)", name)
	}
	if subresource != "" && !slices.Contains(subresources, subresource) {
		if len(subresources) == 0 {
			return fmt.Errorf("subresource %q: %s has no subresources", subresource, plural)
		}
		return fmt.Errorf("subresource %q: the server serves %v of %s", subresource, subresources, plural)
	}
	return nil
}
