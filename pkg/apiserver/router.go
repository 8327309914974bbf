package apiserver

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"

	"github.com/go-chi/chi/v5"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/authorization/authorizer"
	"kplane/pkg/serviceaccount"
)

// router wires the URL space: health and version, discovery, OpenAPI, and
// the resource paths under /api/v1 and /apis/<group>/<version>, which all go
// through serveResource.
func (s *Server) router() http.Handler {
	r := chi.NewRouter()
	// The handler chain (authz.go lists its steps). Health and version
	// answer without a token, as upstream lets anonymous clients probe
	// them. After authorization, a group/version another server
	// registered (an APIService with a service) goes to that server
	// (aggregator_proxy.go).
	r.Use(recoverPanics, prettyJSON, s.limitBody, s.parseRequestInfo, s.timeoutRequests, s.auditInit, s.authenticate, s.auditRequests,
		s.impersonate, s.limitInFlight, s.authorize, s.aggregator.proxyAggregated)

	s.routeHealth(r)
	r.Method(http.MethodGet, "/metrics", s.metrics.handler())
	r.Handle("/debug/*", s.debugHandler())

	// Version and discovery answer with or without a trailing slash, as
	// upstream's go-restful web services and the aggregator's "/apis/"
	// handlers do (the Python client asks for /version/). Health checks,
	// /metrics and /openapi/v3 are exact paths upstream, so /healthz/ and
	// /openapi/v3/ stay 404 here too.
	for _, route := range []struct {
		path    string
		handler http.HandlerFunc
	}{
		{"/version", s.serveVersion},
		{"/api", s.serveLegacyVersions},
		{"/apis", s.serveGroups},
		{"/api/v1", s.serveResourceList},
		{"/apis/{group}", s.serveGroup},
		{"/apis/{group}/{version}", s.serveResourceList},
	} {
		r.Get(route.path, route.handler)
		r.Get(route.path+"/", route.handler)
	}
	r.Get("/openapi/v2", s.serveOpenAPIV2)
	r.Get("/openapi/v3", s.serveOpenAPIIndex)
	r.Get("/openapi/v3/*", s.serveOpenAPIDocument)
	s.routeAccessReviews(r)
	s.routeComponentStatuses(r)

	r.Post("/apis/authentication.k8s.io/{version}/selfsubjectreviews", s.serveSelfSubjectReview)
	r.Post("/apis/authentication.k8s.io/v1/tokenreviews", s.serveTokenReview)
	r.Get(serviceaccount.OpenIDConfigurationPath, s.serveOpenIDConfiguration)
	r.Get(serviceaccount.JWKSPath, s.serveJWKS)

	r.HandleFunc("/api/v1/*", s.serveResource)
	r.HandleFunc("/apis/{group}/{version}/*", s.serveResource)

	r.NotFound(func(w http.ResponseWriter, _ *http.Request) { response.WriteError(w, response.NotFoundPath()) })
	r.MethodNotAllowed(serveMethodNotAllowed)
	return r
}

// serveMethodNotAllowed answers a method the path does not take with
// upstream's 405 Status.
func serveMethodNotAllowed(w http.ResponseWriter, r *http.Request) {
	response.WriteError(w, &apierrors.StatusError{ErrStatus: api.Status{Code: http.StatusMethodNotAllowed,
		Reason: apierrors.ReasonMethodNotAllowed, Message: fmt.Sprintf("the server does not allow this method on the requested resource (%s %s)", r.Method, r.URL.Path)}})
}

// recoverPanics turns a handler panic into a 500 Status; the stack goes to
// the log, never to the client.
func recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				slog.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
				response.WriteError(w, apierrors.NewInternalError(fmt.Errorf("%v", p)))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// limitBody caps request bodies; reading past the cap fails and the handler
// answers 413.
func (s *Server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > s.opts.MaxRequestBodyBytes {
			response.WriteError(w, apierrors.NewRequestEntityTooLarge(fmt.Sprintf("limit is %d", s.opts.MaxRequestBodyBytes)))
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxRequestBodyBytes)
		}
		next.ServeHTTP(w, r)
	})
}

// serveResource dispatches a resource request to the handler for its verb.
func (s *Server) serveResource(w http.ResponseWriter, r *http.Request) {
	info := s.parseRequest(r)
	if info == nil {
		response.WriteError(w, response.NotFoundPath())
		return
	}
	if authz := authorizer.RequestInfoFrom(r.Context()); authz != nil && authz.Verb != "" && authz.Verb != info.verb {
		// The request was authorized as one verb and would be served as
		// another: the two readings of the URL (authorizer.ParseRequestInfo
		// and parseRequest) must agree, and a request they disagree on is
		// not served.
		internalError(w, r, fmt.Errorf("request authorized as %s but read as %s", authz.Verb, info.verb))
		return
	}
	if info.res.namespaced && info.name != "" && info.namespace == "" && info.verb != "list" && info.verb != "watch" {
		// /api/v1/pods/x: namespaced objects are only addressed in a namespace.
		response.WriteError(w, response.NotFoundPath())
		return
	}
	if info.verb != "get" && info.verb != "list" && info.verb != "watch" {
		// The write path records which API verb it stores for.
		r = r.WithContext(s.withRequestInfo(r.Context(), info))
	}
	s.metrics.instrument(w, info, func(w http.ResponseWriter) {
		if s.faults.inject(w, r, info) {
			return // failed on purpose by `ctl fault api-error`
		}
		s.dispatch(w, r, info)
	})
}

// dispatch sends a parsed request to the handler for its subresource and verb.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	if info.res.custom != nil && info.subresource != "scale" {
		if err := checkCustomResourceAccept(r); err != nil {
			response.WriteError(w, err)
			return
		}
	}
	switch info.subresource {
	case "":
		s.serveObjectVerb(w, r, info)
	case "status":
		if !info.res.hasStatus {
			response.WriteError(w, response.NotFoundPath())
			return
		}
		s.serveStatus(w, r, info)
	case "approval":
		s.serveCSRApproval(w, r, info)
	case "scale":
		if info.res.scale == nil {
			response.WriteError(w, response.NotFoundPath())
			return
		}
		s.serveScale(w, r, info)
	case "binding":
		if info.res.plural != "pods" || r.Method != http.MethodPost {
			response.WriteError(w, response.NotFoundPath())
			return
		}
		s.serveBinding(w, r, info)
	case "token":
		if info.res.plural != "serviceaccounts" || info.name == "" {
			response.WriteError(w, response.NotFoundPath())
			return
		}
		s.serveTokenRequest(w, r, info)
	case "finalize":
		if info.res.plural != "namespaces" || r.Method != http.MethodPut {
			response.WriteError(w, response.NotFoundPath())
			return
		}
		s.serveNamespaceFinalize(w, r, info)
	case "proxy":
		if info.proxyPath == "" {
			response.WriteError(w, response.NotFoundPath())
			return
		}
		s.serveNodeProxy(w, r, info)
	case "log", "eviction", "exec", "attach", "portforward":
		if info.res.plural != "pods" {
			response.WriteError(w, response.NotFoundPath())
			return
		}
		switch info.subresource {
		case "log":
			s.servePodLog(w, r, info)
		case "exec", "attach", "portforward":
			s.servePodStream(w, r, info)
		default:
			s.serveEviction(w, r, info)
		}
	default:
		response.WriteError(w, response.NotFoundPath())
	}
}

func (s *Server) serveObjectVerb(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	switch info.verb {
	case "get":
		s.serveGet(w, r, info)
	case "list":
		s.serveList(w, r, info)
	case "watch":
		s.serveWatch(w, r, info)
	case "create":
		if info.name != "" {
			response.WriteError(w, apierrors.NewMethodNotSupported(info.res.qualified(), "create"))
			return
		}
		s.serveCreate(w, r, info)
	case "update":
		if info.name == "" {
			response.WriteError(w, apierrors.NewMethodNotSupported(info.res.qualified(), "update"))
			return
		}
		s.serveUpdate(w, r, info)
	case "patch":
		if info.name == "" {
			response.WriteError(w, apierrors.NewMethodNotSupported(info.res.qualified(), "patch"))
			return
		}
		s.servePatch(w, r, info)
	case "delete":
		s.serveDelete(w, r, info)
	case "deletecollection":
		s.serveDeleteCollection(w, r, info)
	default:
		response.WriteError(w, apierrors.NewMethodNotSupported(info.res.qualified(), r.Method))
	}
}
