package ui

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"kplane/pkg/cluster"
	"kplane/pkg/debug"
	"kplane/pkg/fault"
)

// The faults panel: a button per `ctl fault` action, each running the same
// code as the command (pkg/fault) and answering the same text, "what
// happened and what to watch for". The routes are POSTs behind the session
// and a same-origin check (same_origin.go); GET api-error lists the active
// rules. Nothing here is live: each answer is the result of one click.
//
//	POST /api/debug/faults/compact
//	GET  /api/debug/faults/api-error
//	POST /api/debug/faults/api-error        {"resource","verb","code","delay","for"}
//	POST /api/debug/faults/api-error/clear
//	POST /api/debug/faults/drop-watch?component=C
//	POST /api/debug/faults/pause-kubelet?node=N
//	POST /api/debug/faults/resume-kubelet?node=N
//	POST /api/debug/faults/kill-leader?component=C&signal=TERM|KILL

// faultAnswer is what a fault route answers: the command's text and its
// structured result.
type faultAnswer struct {
	// Text is what `ctl fault …` prints for the same action.
	Text string `json:"text"`
	// Result is the component's answer (a CompactResult, an APIErrorRule…).
	Result any `json:"result,omitempty"`
}

// apiErrorRequest is the page's api-error form; durations are Go
// durations ("30s"), as ctl's flags take them.
type apiErrorRequest struct {
	Resource string `json:"resource"`
	Verb     string `json:"verb"`
	Code     int    `json:"code"`
	Delay    string `json:"delay"`
	For      string `json:"for"`
}

// faultsHandler routes the faults panel's paths, each behind the
// same-origin check.
func (s *Server) faultsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /api/debug/faults/compact", requireSameOrigin(http.HandlerFunc(s.serveFaultCompact)))
	mux.HandleFunc("GET /api/debug/faults/api-error", s.serveFaultAPIErrorList)
	mux.Handle("POST /api/debug/faults/api-error", requireSameOrigin(http.HandlerFunc(s.serveFaultAPIError)))
	mux.Handle("POST /api/debug/faults/api-error/clear", requireSameOrigin(http.HandlerFunc(s.serveFaultAPIErrorClear)))
	mux.Handle("POST /api/debug/faults/drop-watch", requireSameOrigin(http.HandlerFunc(s.serveFaultDropWatch)))
	mux.Handle("POST /api/debug/faults/pause-kubelet", requireSameOrigin(s.serveFaultKubelet(true)))
	mux.Handle("POST /api/debug/faults/resume-kubelet", requireSameOrigin(s.serveFaultKubelet(false)))
	mux.Handle("POST /api/debug/faults/kill-leader", requireSameOrigin(http.HandlerFunc(s.serveFaultKillLeader)))
	mux.Handle("/api/debug/faults/", http.NotFoundHandler())
	return mux
}

// serveFaultCompact compacts etcd to now (fault.Compact, `ctl fault compact`).
func (s *Server) serveFaultCompact(w http.ResponseWriter, r *http.Request) {
	result, text, err := fault.Compact(r.Context(), s.opts.Client)
	if err != nil {
		debug.WriteStatus(w, http.StatusBadGateway, "InternalError", "compact etcd: "+err.Error())
		return
	}
	writeFaultAnswer(w, faultAnswer{Text: text, Result: result})
}

// apiServerEndpoint reaches the apiserver's debug API, or answers why not.
func (s *Server) apiServerEndpoint(w http.ResponseWriter) (*debug.Client, debug.Endpoint, bool) {
	dc, endpoints, err := s.debugAPI()
	if err != nil {
		serveDebugUnavailable(w, err)
		return nil, debug.Endpoint{}, false
	}
	ep, err := fault.EndpointNamed(endpoints, cluster.APIServerComponent, s.opts.DataDir)
	if err != nil {
		serveDebugUnavailable(w, err)
		return nil, debug.Endpoint{}, false
	}
	return dc, ep, true
}

// serveFaultAPIErrorList answers the active api-error rules.
func (s *Server) serveFaultAPIErrorList(w http.ResponseWriter, r *http.Request) {
	dc, ep, ok := s.apiServerEndpoint(w)
	if !ok {
		return
	}
	rules, err := fault.ListAPIErrors(r.Context(), dc, ep)
	if err != nil {
		debug.WriteStatus(w, http.StatusBadGateway, "InternalError", "list the api-error rules: "+err.Error())
		return
	}
	if rules == nil {
		rules = []debug.APIErrorRule{}
	}
	writeFaultAnswer(w, faultAnswer{Result: rules})
}

// serveFaultAPIError installs an api-error rule (`ctl fault api-error`).
func (s *Server) serveFaultAPIError(w http.ResponseWriter, r *http.Request) {
	var req apiErrorRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&req); err != nil {
		debug.WriteStatus(w, http.StatusBadRequest, "BadRequest", "decode the api-error rule: "+err.Error())
		return
	}
	rule := debug.APIErrorRule{Resource: req.Resource, Verb: req.Verb, Code: req.Code}
	for _, d := range []struct {
		name, text string
		into       *time.Duration
	}{{"delay", req.Delay, &rule.Delay}, {"for", req.For, &rule.For}} {
		if d.text == "" {
			continue
		}
		v, err := time.ParseDuration(d.text)
		if err != nil {
			debug.WriteStatus(w, http.StatusBadRequest, "BadRequest", fmt.Sprintf("%s %q: want a Go duration such as 30s", d.name, d.text))
			return
		}
		*d.into = v
	}
	if rule.Resource == "" || rule.Verb == "" || rule.For == 0 {
		debug.WriteStatus(w, http.StatusBadRequest, "BadRequest", "a rule needs a resource, a verb and a duration (and a code, a delay or both)")
		return
	}
	dc, ep, ok := s.apiServerEndpoint(w)
	if !ok {
		return
	}
	installed, text, err := fault.InstallAPIError(r.Context(), dc, ep, rule)
	if err != nil {
		debug.WriteStatus(w, http.StatusBadRequest, "BadRequest", "install the api-error rule: "+err.Error())
		return
	}
	writeFaultAnswer(w, faultAnswer{Text: text, Result: installed})
}

// serveFaultAPIErrorClear removes every api-error rule.
func (s *Server) serveFaultAPIErrorClear(w http.ResponseWriter, r *http.Request) {
	dc, ep, ok := s.apiServerEndpoint(w)
	if !ok {
		return
	}
	cleared, text, err := fault.ClearAPIErrors(r.Context(), dc, ep)
	if err != nil {
		debug.WriteStatus(w, http.StatusBadGateway, "InternalError", "clear the api-error rules: "+err.Error())
		return
	}
	writeFaultAnswer(w, faultAnswer{Text: text, Result: cleared})
}

// serveFaultDropWatch ends a component's watches (`ctl fault drop-watch`).
func (s *Server) serveFaultDropWatch(w http.ResponseWriter, r *http.Request) {
	component := r.URL.Query().Get("component")
	dc, endpoints, err := s.debugAPI()
	if err != nil {
		serveDebugUnavailable(w, err)
		return
	}
	ep, err := fault.EndpointNamed(endpoints, component, s.opts.DataDir)
	if err != nil {
		debug.WriteStatus(w, http.StatusNotFound, "NotFound", err.Error())
		return
	}
	result, text, err := fault.DropWatch(r.Context(), dc, ep)
	if err != nil {
		debug.WriteStatus(w, http.StatusBadGateway, "InternalError", "drop the watches: "+err.Error())
		return
	}
	writeFaultAnswer(w, faultAnswer{Text: text, Result: result})
}

// serveFaultKubelet pauses or resumes a node's heartbeat
// (`ctl fault pause-kubelet`, `resume-kubelet`).
func (s *Server) serveFaultKubelet(pause bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		node := r.URL.Query().Get("node")
		dc, endpoints, err := s.debugAPI()
		if err != nil {
			serveDebugUnavailable(w, err)
			return
		}
		ep, err := fault.KubeletEndpoint(endpoints, node, s.opts.DataDir)
		if err != nil {
			debug.WriteStatus(w, http.StatusNotFound, "NotFound", err.Error())
			return
		}
		text, err := fault.PauseKubelet(r.Context(), dc, ep, node, pause)
		if err != nil {
			debug.WriteStatus(w, http.StatusBadGateway, "InternalError", err.Error())
			return
		}
		writeFaultAnswer(w, faultAnswer{Text: text})
	})
}

// writeFaultAnswer writes answer as JSON.
func writeFaultAnswer(w http.ResponseWriter, answer faultAnswer) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(answer)
}

// killEnv is what the kill-leader route does to the world; tests replace
// it (nil: fault.NewKillEnv with the server's client).
func (s *Server) killEnv() fault.KillEnv {
	if s.faultKillEnv != nil {
		return *s.faultKillEnv
	}
	return fault.NewKillEnv(s.opts.Client)
}

// serveFaultKillLeader signals the process leading the controller-manager
// or the scheduler (`ctl fault kill C [--signal KILL]`), found by its
// election Lease's holder among the processes ctl up recorded.
func (s *Server) serveFaultKillLeader(w http.ResponseWriter, r *http.Request) {
	component := r.URL.Query().Get("component")
	if fault.ElectionLeases[component] == "" {
		debug.WriteStatus(w, http.StatusBadRequest, "BadRequest",
			fmt.Sprintf("component %q has no leader election: give controller-manager or scheduler", component))
		return
	}
	signal := r.URL.Query().Get("signal")
	if signal == "" {
		signal = "TERM"
	}
	sig, err := fault.ParseSignal(signal)
	if err != nil {
		debug.WriteStatus(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	if s.opts.DataDir == "" {
		debug.WriteStatus(w, http.StatusServiceUnavailable, "ServiceUnavailable",
			"the web view was started without the cluster's data directory (ctl ui --data-dir), where ctl up records its processes")
		return
	}
	result, text, err := fault.KillComponent(r.Context(), s.killEnv(), fault.Kill{DataDir: s.opts.DataDir, Component: component, Signal: sig, Leader: true})
	if err != nil {
		debug.WriteStatus(w, http.StatusConflict, "Conflict", "kill the leader: "+err.Error())
		return
	}
	writeFaultAnswer(w, faultAnswer{Text: text, Result: result})
}
