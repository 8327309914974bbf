package apiserver

// This file caps how many requests the apiserver serves at once, as
// upstream's max-in-flight filter does
// (staging/src/k8s.io/apiserver/pkg/server/filters/maxinflight.go). Reads
// (get, list, watch) and writes (every other verb) have separate caps,
// --max-requests-inflight (400) and --max-mutating-requests-inflight (200),
// so that a flood of reads cannot starve writes or the other way round. A
// request beyond its cap is not queued: it is answered at once with 429
// and Retry-After: 1, before it reaches authorization or any handler, so a
// refused write leaves nothing behind. Clients (client-go, kubectl) wait
// and retry.
//
// Three kinds of request never take a slot, as upstream:
//   - long-running ones (watches, proxies, exec/attach/port-forward, logs):
//     they would hold a slot for minutes;
//   - members of system:masters once the cap is reached: the
//     administrator (and the apiserver's own loopback client upstream)
//     always gets an answer;
//   - every request, when the cap is 0 (disabled).

import (
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
)

// inFlightRetryAfter is what a refused request is told to wait; upstream
// always says 1.
const inFlightRetryAfter = "1"

// tooManyRequestsMessage is upstream's 429 body, plain text (upstream
// writes it with http.Error, not as a Status).
const tooManyRequestsMessage = "Too many requests, please try again later."

// Request kinds, as upstream labels apiserver_current_inflight_requests.
const (
	requestKindReadOnly = "readOnly"
	requestKindMutating = "mutating"
)

// inFlightSlots is one cap: a request holds a slot while it is served.
// A nil *inFlightSlots is an unlimited cap.
type inFlightSlots struct {
	// slots has one buffered element per request being served; its
	// capacity is the cap. Taking a slot never blocks.
	slots chan struct{}
	// inFlight and dropped are this cap's children of
	// apiserver_current_inflight_requests and
	// apiserver_dropped_requests_total (request_kind readOnly or
	// mutating), looked up once rather than per request.
	inFlight prometheus.Gauge
	dropped  prometheus.Counter
}

// newInFlightSlots returns a cap of limit requests of kind, or nil (no
// cap) when limit is 0.
func newInFlightSlots(limit int, kind string, m *metrics) *inFlightSlots {
	if limit <= 0 {
		return nil
	}
	return &inFlightSlots{slots: make(chan struct{}, limit),
		inFlight: m.inFlight.WithLabelValues(kind), dropped: m.droppedRequests.WithLabelValues(kind)}
}

// tryAcquire takes a slot if one is free.
func (c *inFlightSlots) tryAcquire() bool {
	select {
	case c.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

// release gives a slot back.
func (c *inFlightSlots) release() { <-c.slots }

// readOnlyVerbs are the verbs counted against --max-requests-inflight;
// every other verb (create, update, patch, delete, deletecollection, and a
// non-resource POST) counts against --max-mutating-requests-inflight.
var readOnlyVerbs = map[string]bool{"get": true, "list": true, "watch": true}

// longRunningVerbs and longRunningSubresources are upstream's
// BasicLongRunningRequestCheck as kube-apiserver configures it.
var (
	longRunningVerbs        = map[string]bool{"watch": true, "proxy": true}
	longRunningSubresources = map[string]bool{"attach": true, "exec": true, "proxy": true, "log": true, "portforward": true}
)

// isLongRunning says whether a request may stay open for minutes (a
// watch, a proxy, a stream); such requests are exempt from the in-flight
// caps and from --request-timeout. Besides upstream's rule, kplane's debug
// API streams its journal with ?follow=true (`ctl trace --follow`), which
// is long-running too.
func isLongRunning(r *http.Request, info *authorizer.RequestInfo) bool {
	if info == nil {
		return false
	}
	if longRunningVerbs[info.Verb] || (info.ResourceRequest && longRunningSubresources[info.Subresource]) {
		return true
	}
	return !info.ResourceRequest && strings.HasPrefix(info.Path, "/debug/") && r.URL.Query().Get("follow") == "true"
}

// limitInFlight caps the requests served at once
// (--max-requests-inflight, --max-mutating-requests-inflight) and answers
// 429 beyond the cap.
func (s *Server) limitInFlight(next http.Handler) http.Handler {
	readOnly := newInFlightSlots(s.opts.MaxRequestsInFlight, requestKindReadOnly, s.metrics)
	mutating := newInFlightSlots(s.opts.MaxMutatingRequestsInFlight, requestKindMutating, s.metrics)
	if readOnly == nil && mutating == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := authorizer.RequestInfoFrom(r.Context())
		if isLongRunning(r, info) {
			next.ServeHTTP(w, r)
			return
		}
		slots := mutating
		if info != nil && readOnlyVerbs[info.Verb] {
			slots = readOnly
		}
		if slots == nil {
			next.ServeHTTP(w, r)
			return
		}
		if !slots.tryAcquire() {
			if user, ok := auth.UserFrom(r.Context()); ok && user.InGroup(auth.MastersGroup) {
				// Upstream: "A system:master is so powerful that they
				// should always get an answer."
				next.ServeHTTP(w, r)
				return
			}
			slots.dropped.Inc()
			w.Header().Set("Retry-After", inFlightRetryAfter)
			http.Error(w, tooManyRequestsMessage, http.StatusTooManyRequests)
			return
		}
		slots.inFlight.Inc()
		defer func() {
			slots.inFlight.Dec()
			slots.release()
		}()
		if hook := s.inFlightHook.Load(); hook != nil {
			(*hook)(r)
		}
		next.ServeHTTP(w, r)
	})
}

// inFlightHook is called by a request that holds an in-flight slot just
// before it is served; tests set it (export_test.go) to hold requests in
// flight. Nil in a running cluster.
type inFlightHook = atomic.Pointer[func(*http.Request)]
