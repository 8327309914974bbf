package client

import (
	"net/http"
	"strings"
	"testing"

	apierrors "kplane/pkg/api/errors"
)

func TestStatusError(t *testing.T) {
	tests := []struct {
		name        string
		code        int
		body        string
		is          func(error) bool
		wantReason  string
		wantMessage string
	}{
		{name: "Status body is decoded as sent", code: 409,
			body:       `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"a\" already exists","reason":"AlreadyExists","details":{"name":"a","kind":"pods"},"code":409}`,
			is:         apierrors.IsAlreadyExists,
			wantReason: apierrors.ReasonAlreadyExists, wantMessage: `pods "a" already exists`},
		{name: "Conflict keeps its reason", code: 409,
			body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Operation cannot be fulfilled","reason":"Conflict","code":409}`,
			is:   apierrors.IsConflict, wantReason: apierrors.ReasonConflict},
		{name: "Gone from a compacted watch", code: 410,
			body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version","reason":"Expired","code":410}`,
			is:   apierrors.IsGone, wantReason: apierrors.ReasonExpired},
		{name: "Status without code takes the HTTP code", code: 404,
			body: `{"kind":"Status","status":"Failure","reason":"NotFound"}`,
			is:   apierrors.IsNotFound, wantReason: apierrors.ReasonNotFound},
		{name: "Status without reason gets the code's", code: 422,
			body: `{"kind":"Status","status":"Failure","message":"bad","code":422}`,
			is:   apierrors.IsInvalid, wantReason: apierrors.ReasonInvalid},
		{name: "plain text 404", code: 404, body: "404 page not found",
			is: apierrors.IsNotFound, wantReason: apierrors.ReasonNotFound, wantMessage: "the server could not find the requested resource: 404 page not found (GET /api/v1/pods/x)"},
		{name: "HTML from a proxy", code: 502, body: "<html>" + strings.Repeat("x", 300) + "</html>",
			is: func(err error) bool { return apierrors.CodeOf(err) == 502 }, wantReason: apierrors.ReasonInternalError,
			wantMessage: "the server responded with the status code 502 but did not return more information (GET /api/v1/pods/x)"},
		{name: "empty 401", code: 401, body: "",
			is: apierrors.IsUnauthorized, wantReason: apierrors.ReasonUnauthorized},
		{name: "429 without body", code: 429, body: "",
			is: apierrors.IsTooManyRequests, wantReason: apierrors.ReasonTooManyRequests},
		{name: "a Success Status on an error code is not trusted", code: 500,
			body: `{"kind":"Status","status":"Success"}`,
			is:   func(err error) bool { return apierrors.CodeOf(err) == 500 }, wantReason: apierrors.ReasonInternalError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := statusError(tt.code, []byte(tt.body), http.MethodGet, "/api/v1/pods/x")
			if !tt.is(err) {
				t.Errorf("predicate false for %v (reason %q, code %d)", err, err.ErrStatus.Reason, err.ErrStatus.Code)
			}
			if err.ErrStatus.Reason != tt.wantReason {
				t.Errorf("reason = %q, want %q", err.ErrStatus.Reason, tt.wantReason)
			}
			if tt.wantMessage != "" && err.Error() != tt.wantMessage {
				t.Errorf("message = %q, want %q", err.Error(), tt.wantMessage)
			}
		})
	}
}

func TestWarningText(t *testing.T) {
	tests := []struct{ header, want string }{
		{`299 - "unknown field \"spec.foo\""`, `unknown field "spec.foo"`},
		{`299 - "plain"`, "plain"},
		{`199 agent "other shape"`, `199 agent "other shape"`},
		{`299 - "unterminated`, `299 - "unterminated`},
	}
	for _, tt := range tests {
		if got := warningText(tt.header); got != tt.want {
			t.Errorf("warningText(%q) = %q, want %q", tt.header, got, tt.want)
		}
	}
}
