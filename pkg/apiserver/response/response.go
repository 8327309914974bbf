// Package response writes the answers of a Kubernetes-style API server: JSON
// objects, meta/v1 Status errors, and the content negotiation kubectl uses
// to ask for a Table. The apiserver and metrics-server (an aggregated API
// server) both answer this way; the package imports neither.
package response

import (
	"encoding/json"
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// Content types an API server speaks.
const (
	ContentTypeJSON  = "application/json"
	ContentTypeTable = "application/json;as=Table;v=v1;g=meta.k8s.io"
)

// WriteJSON sends v as JSON with the given status code.
func WriteJSON(w http.ResponseWriter, code int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		WriteError(w, apierrors.NewInternalError(err))
		return
	}
	WriteRaw(w, code, ContentTypeJSON, body)
}

// WriteJSONAs sends v as JSON with 200 OK, labelled with contentType (a
// Table is JSON labelled ContentTypeTable).
func WriteJSONAs(w http.ResponseWriter, contentType string, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		WriteError(w, apierrors.NewInternalError(err))
		return
	}
	WriteRaw(w, http.StatusOK, contentType, body)
}

// WriteRaw sends pre-encoded bytes.
func WriteRaw(w http.ResponseWriter, code int, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// WriteError sends err as a meta/v1 Status. Errors that are not already a
// StatusError become a 500 InternalError; they are logged, and the client
// sees the message but never a stack trace.
func WriteError(w http.ResponseWriter, err error) {
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		slog.Error("internal error", "err", err)
		se = apierrors.NewInternalError(err)
	}
	status := se.Status()
	if status.Details != nil && status.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(int64(status.Details.RetryAfterSeconds), 10))
	}
	body, _ := json.Marshal(status)
	WriteRaw(w, int(status.Code), ContentTypeJSON, body)
}

// TableRequested says whether the client asked for a meta.k8s.io Table, as
// kubectl get does: `Accept: application/json;as=Table;v=v1;g=meta.k8s.io, application/json`.
// The first acceptable entry wins.
func TableRequested(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mediaType, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if params["as"] == "Table" && params["g"] == "meta.k8s.io" && (params["v"] == "v1" || params["v"] == "v1beta1") &&
			(mediaType == "application/json" || mediaType == "*/*") {
			return true
		}
		if mediaType == "application/json" || mediaType == "*/*" || mediaType == "application/*" {
			return false
		}
	}
	return false
}

// NotFoundPath is upstream's answer for a path that names nothing.
func NotFoundPath() *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: api.Status{Code: http.StatusNotFound, Reason: apierrors.ReasonNotFound,
		Message: "the server could not find the requested resource", Details: &api.StatusDetails{}}}
}
