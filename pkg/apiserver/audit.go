package apiserver

// This file writes the audit log (--audit-policy-file, --audit-log-path),
// as upstream's audit filters do (staging/src/k8s.io/apiserver/pkg/
// endpoints/filters/audit.go, audit_init.go and
// failed_authentication_audit.go). Two steps of the handler chain share
// the work:
//
//   - auditInit, before authentication, gives the request its audit ID
//     (the client's Audit-ID header, or a new UUID), sends it back as the
//     Audit-Id response header and notes when the request arrived. If
//     authentication then refuses the request, it writes the one Event
//     upstream writes for that: stage ResponseStarted, no user, code 401.
//   - auditRequests, after authentication, asks the policy how much to
//     record for this user and request, and writes the Event at each
//     stage: RequestReceived before the request is served,
//     ResponseStarted when a long-running request (a watch) sends its
//     headers, ResponseComplete when the answer is sent, Panic if the
//     handler panicked. Steps further in (impersonation, authorization)
//     add to the Event through the audit.Record in the context.
//
// Without a policy and a log path both steps are left out of the chain:
// auditing costs nothing when it is off.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"kplane/pkg/api"
	"kplane/pkg/apiserver/decode"
	"kplane/pkg/apiserver/protobuf"
	"kplane/pkg/audit"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
)

// auditIDHeader carries a request's audit ID, in the request (a client or
// proxy may choose it) and in the response.
const auditIDHeader = "Audit-ID"

// maxAuditedBody is the largest request or response body an Event
// records (at the Request and RequestResponse levels); a larger one is
// left out of the Event rather than held in memory. It is the request
// body cap upstream also uses.
const maxAuditedBody = 3 << 20

// auditor is the apiserver's audit configuration: the policy and where
// Events go. Nil when auditing is off.
type auditor struct {
	policy *audit.Policy
	// backend writes the Events; it is closed at shutdown.
	backend *audit.LogBackend
}

// newAuditor loads --audit-policy-file and opens --audit-log-path; both
// must be set for auditing to be on, as upstream.
func newAuditor(opts Options, log *slog.Logger) (*auditor, error) {
	if opts.AuditPolicyFile == "" || opts.AuditLogPath == "" {
		return nil, nil
	}
	policy, err := audit.LoadPolicy(opts.AuditPolicyFile, log)
	if err != nil {
		return nil, err
	}
	backend, err := audit.NewLogBackend(audit.LogOptions{Path: opts.AuditLogPath, MaxAge: opts.AuditLogMaxAge,
		MaxBackups: opts.AuditLogMaxBackups, MaxSize: opts.AuditLogMaxSize}, log)
	if err != nil {
		return nil, err
	}
	return &auditor{policy: policy, backend: backend}, nil
}

// auditStart is what auditInit learned about a request, for auditRequests.
type auditStart struct {
	id       string
	received time.Time
	// reached is set once the request passed authentication and
	// auditRequests took it over.
	reached bool
}

type auditStartKey struct{}

// auditInit names the request for the audit log and audits a failed
// authentication (see the file comment).
func (s *Server) auditInit(next http.Handler) http.Handler {
	if s.audit == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := &auditStart{id: r.Header.Get(auditIDHeader), received: time.Now()}
		if start.id == "" {
			start.id = uuid.NewString()
		}
		w.Header().Set(auditIDHeader, start.id)
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		r = r.WithContext(context.WithValue(r.Context(), auditStartKey{}, start))
		next.ServeHTTP(rec, r)
		if !start.reached && rec.code == http.StatusUnauthorized {
			s.auditFailedAuthentication(r, start)
		}
	})
}

// auditFailedAuthentication writes the Event of a request authentication
// refused: no user, stage ResponseStarted, and which credentials were
// tried, in upstream's words.
func (s *Server) auditFailedAuthentication(r *http.Request, start *auditStart) {
	info := authorizer.RequestInfoFrom(r.Context())
	var attrs authorizer.Attributes
	if info != nil {
		attrs = info.Attributes(auth.User{})
	}
	config := s.audit.policy.Evaluate(attrs)
	if config.Level == audit.LevelNone || config.Omits(audit.StageResponseStarted) {
		return
	}
	ev := audit.NewEvent(r, info, nil, config.Level, start.id, start.received)
	ev.Stage = audit.StageResponseStarted
	ev.StageTimestamp = audit.MicroTime(time.Now())
	ev.ResponseStatus = &api.Status{Code: http.StatusUnauthorized, Message: attemptedAuthentication(r)}
	s.audit.backend.ProcessEvent(ev)
}

// attemptedAuthentication says which credentials r offered, as upstream's
// failed-authentication audit message does.
func attemptedAuthentication(r *http.Request) string {
	var methods []string
	if _, _, ok := r.BasicAuth(); ok {
		methods = append(methods, "basic")
	}
	if scheme, _, found := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " "); found && strings.EqualFold(scheme, "bearer") {
		methods = append(methods, "bearer")
	}
	if r.URL.Query().Get("access_token") != "" {
		methods = append(methods, "access_token")
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		methods = append(methods, "x509")
	}
	if len(methods) == 0 {
		return "Authentication failed, no credentials provided"
	}
	return "Authentication failed, attempted: " + strings.Join(methods, ", ")
}

// auditRequests records each request in the audit log (--audit-log-path)
// at the level the audit policy gives it.
func (s *Server) auditRequests(next http.Handler) http.Handler {
	if s.audit == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		start, _ := ctx.Value(auditStartKey{}).(*auditStart)
		if start == nil {
			next.ServeHTTP(w, r)
			return
		}
		start.reached = true
		user, _ := auth.UserFrom(ctx)
		info := authorizer.RequestInfoFrom(ctx)
		var attrs authorizer.Attributes
		if info != nil {
			attrs = info.Attributes(user)
		}
		config := s.audit.policy.Evaluate(attrs)
		if config.Level == audit.LevelNone {
			next.ServeHTTP(w, r)
			return
		}
		ar := &auditedRequest{
			backend:     s.audit.backend,
			config:      config,
			record:      audit.NewRecord(config.Level),
			event:       audit.NewEvent(r, info, &user, config.Level, start.id, start.received),
			longRunning: isLongRunning(r, info),
		}
		ar.emit(audit.StageRequestReceived)
		// A create's or update's handler logs the object it decoded
		// (audit.LogRequestObject); any other body (a patch, a review) is
		// copied as it is read, and only when the level records bodies.
		if config.Level.AtLeast(audit.LevelRequest) && r.Body != nil && r.Body != http.NoBody {
			r.Body = &teeBody{ReadCloser: r.Body, copy: &ar.requestBody}
			ar.contentType = r.Header.Get("Content-Type")
		}
		aw := &auditResponseWriter{ResponseWriter: w, request: ar, code: http.StatusOK}
		defer func() {
			if p := recover(); p != nil {
				ar.panicked(p)
				panic(p)
			}
		}()
		next.ServeHTTP(aw, r.WithContext(audit.WithRecord(ctx, ar.record)))
		ar.complete(aw)
	})
}

// auditedRequest is the audit state of one request being served.
type auditedRequest struct {
	backend     audit.Backend
	config      audit.RequestAuditConfig
	record      *audit.Record
	longRunning bool
	// mu guards event: a watch's response writer may emit
	// ResponseStarted from the watch's goroutine.
	mu    sync.Mutex
	event *audit.Event
	// requestBody is the request's body as the handler read it, at the
	// Request level and above; contentType says how it is encoded.
	requestBody bytes.Buffer
	contentType string
}

// bodyAsJSON is a request body the handler did not log as an object, as
// JSON for the Event: JSON as it is, YAML converted; nil for anything else
// (such as protobuf).
func bodyAsJSON(contentType string, body []byte) []byte {
	if protobuf.IsProtobuf(contentType) {
		return nil
	}
	out, err := decode.ToJSON(body, contentType)
	if err != nil || !json.Valid(out) {
		return nil
	}
	return out
}

// emit writes the Event at stage, unless the policy omits that stage.
func (ar *auditedRequest) emit(stage audit.Stage) {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	ar.emitLocked(stage)
}

func (ar *auditedRequest) emitLocked(stage audit.Stage) {
	if ar.config.Omits(stage) {
		return
	}
	ev := ar.event
	ev.Stage = stage
	ev.StageTimestamp = audit.MicroTime(time.Now())
	ev.Annotations = ar.record.Annotations()
	if user, ok := ar.record.ImpersonatedUser(); ok {
		info := audit.UserInfo(user)
		ev.ImpersonatedUser = &info
	}
	ar.backend.ProcessEvent(ev)
}

// started records the response's code as its headers go out, and for a
// long-running request writes the ResponseStarted stage.
func (ar *auditedRequest) started(code int) {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	ar.event.ResponseStatus = &api.Status{Code: int32(code)}
	if ar.longRunning {
		ar.emitLocked(audit.StageResponseStarted)
	}
}

// complete fills in the answer and writes the ResponseComplete stage.
func (ar *auditedRequest) complete(aw *auditResponseWriter) {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	if ar.event.ResponseStatus == nil {
		// The handler wrote nothing: net/http answers 200.
		ar.event.ResponseStatus = &api.Status{Code: http.StatusOK}
	}
	status := ar.event.ResponseStatus
	if status.Code >= 400 {
		// A failure's Status body is recorded at every level, as upstream
		// copies the Status' bounded fields.
		var body api.Status
		if json.Unmarshal(aw.body.Bytes(), &body) == nil && body.Kind == "Status" {
			status.Status, status.Reason, status.Message, status.Details = body.Status, body.Reason, body.Message, body.Details
		}
	}
	if ar.record.CompleteEvent(ar.event) {
		if ar.event.RequestObject != nil && ar.config.OmitManagedFields {
			ar.event.RequestObject = audit.StripManagedFields(ar.event.RequestObject)
		}
	} else if ar.requestBody.Len() > 0 && ar.requestBody.Len() <= maxAuditedBody {
		if body := bodyAsJSON(ar.contentType, ar.requestBody.Bytes()); body != nil {
			ar.event.RequestObject = ar.objectBody(body)
		}
	}
	if ar.config.Level.AtLeast(audit.LevelRequestResponse) && status.Code < 400 && aw.capturing && !aw.overflow && json.Valid(aw.body.Bytes()) {
		ar.event.ResponseObject = ar.objectBody(aw.body.Bytes())
	}
	ar.emitLocked(audit.StageResponseComplete)
}

// objectBody is a copy of a body for the Event, without managedFields if
// the policy says so.
func (ar *auditedRequest) objectBody(body []byte) json.RawMessage {
	raw := json.RawMessage(bytes.Clone(body))
	if ar.config.OmitManagedFields {
		raw = audit.StripManagedFields(raw)
	}
	return raw
}

// panicked writes the Panic stage with upstream's 500 message.
func (ar *auditedRequest) panicked(p any) {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	ar.event.ResponseStatus = &api.Status{Code: http.StatusInternalServerError, Message: fmt.Sprintf("APIServer panic'd: %v", p)}
	ar.emitLocked(audit.StagePanic)
}

// auditResponseWriter notes the code a handler answers with and keeps the
// body when the Event needs it: a failure's Status, or the response object
// at the RequestResponse level (never a long-running stream's).
type auditResponseWriter struct {
	http.ResponseWriter
	request     *auditedRequest
	code        int
	wroteHeader bool
	// capturing: the body is being kept in body; overflow: it was larger
	// than maxAuditedBody, so it is not recorded.
	capturing bool
	overflow  bool
	body      bytes.Buffer
}

// WriteHeader records the code, then sends it.
func (aw *auditResponseWriter) WriteHeader(code int) {
	if !aw.wroteHeader {
		aw.wroteHeader = true
		aw.code = code
		wantBody := code >= 400 || aw.request.config.Level.AtLeast(audit.LevelRequestResponse)
		aw.capturing = wantBody && !aw.request.longRunning && isJSON(aw.Header().Get("Content-Type"))
		aw.request.started(code)
	}
	aw.ResponseWriter.WriteHeader(code)
}

// Write keeps a copy of the body when the Event needs it.
func (aw *auditResponseWriter) Write(p []byte) (int, error) {
	if !aw.wroteHeader {
		aw.WriteHeader(http.StatusOK)
	}
	if aw.capturing && !aw.overflow {
		if aw.body.Len()+len(p) > maxAuditedBody {
			aw.overflow = true
			aw.body = bytes.Buffer{}
		} else {
			aw.body.Write(p)
		}
	}
	return aw.ResponseWriter.Write(p)
}

// Flush lets watch streams flush through.
func (aw *auditResponseWriter) Flush() {
	if f, ok := aw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the writer underneath (exec and
// port-forward hijack the connection).
func (aw *auditResponseWriter) Unwrap() http.ResponseWriter { return aw.ResponseWriter }

// teeBody copies what the handler reads of the request body.
type teeBody struct {
	io.ReadCloser
	copy *bytes.Buffer
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if n > 0 && t.copy.Len() <= maxAuditedBody {
		t.copy.Write(p[:n])
	}
	return n, err
}

// isJSON says whether a Content-Type is JSON (application/json, or a
// +json type such as application/merge-patch+json).
func isJSON(contentType string) bool {
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mediaType == "application/json" || strings.HasSuffix(mediaType, "+json")
}
