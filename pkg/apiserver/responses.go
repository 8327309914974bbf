package apiserver

import (
	"encoding/json"
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"strings"

	apierrors "kplane/pkg/api/errors"
)

// Content types the apiserver speaks.
const (
	contentTypeJSON  = "application/json"
	contentTypeTable = "application/json;as=Table;v=v1;g=meta.k8s.io"
)

// writeJSON sends v as JSON with the given status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		writeError(w, apierrors.NewInternalError(err))
		return
	}
	writeRaw(w, code, contentTypeJSON, body)
}

// writeRaw sends pre-encoded bytes.
func writeRaw(w http.ResponseWriter, code int, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// writeError sends err as a meta/v1 Status. Errors that are not already a
// StatusError become a 500 InternalError; they are logged, and the client
// sees the message but never a stack trace.
func writeError(w http.ResponseWriter, err error) {
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		slog.Error("internal error", "err", err)
		se = apierrors.NewInternalError(err)
	}
	status := se.Status()
	if status.Details != nil && status.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", itoa(int64(status.Details.RetryAfterSeconds)))
	}
	body, _ := json.Marshal(status)
	writeRaw(w, int(status.Code), contentTypeJSON, body)
}

// tableRequest says whether the client asked for a meta.k8s.io Table, as
// kubectl get does: `Accept: application/json;as=Table;v=v1;g=meta.k8s.io, application/json`.
// The first acceptable entry wins.
func tableRequest(r *http.Request) bool {
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

// addWarnings sends each warning as a `Warning: 299 - "text"` header, which
// kubectl prints as "Warning: text".
func addWarnings(w http.ResponseWriter, warnings []string) {
	for _, text := range warnings {
		w.Header().Add("Warning", `299 - "`+strings.ReplaceAll(text, `"`, `\"`)+`"`)
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// writeJSONAs sends v as JSON labelled with a specific content type.
func writeJSONAs(w http.ResponseWriter, contentType string, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		writeError(w, apierrors.NewInternalError(err))
		return
	}
	writeRaw(w, http.StatusOK, contentType, body)
}
