package apiserver

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	apierrors "kplane/pkg/api/errors"
)

// Booleans follow apimachinery's Convert_Slice_string_To_bool: only
// "false" and "0", in any case, are false once the parameter is present.
func TestQueryParamsBool(t *testing.T) {
	tests := []struct {
		query    string
		want     bool
		optional string // optionalBool: "nil", "true" or "false"
	}{
		{query: "", want: false, optional: "nil"},
		{query: "watch=true", want: true, optional: "true"},
		{query: "watch=True", want: true, optional: "true"}, // the Python client
		{query: "watch=TRUE", want: true, optional: "true"},
		{query: "watch=1", want: true, optional: "true"},
		{query: "watch=yes", want: true, optional: "true"},
		{query: "watch", want: true, optional: "true"}, // present without a value
		{query: "watch=", want: true, optional: "true"},
		{query: "watch=false", want: false, optional: "false"},
		{query: "watch=False", want: false, optional: "false"},
		{query: "watch=FALSE", want: false, optional: "false"},
		{query: "watch=0", want: false, optional: "false"},
		{query: "watch=0&watch=1", want: false, optional: "false"}, // the first value counts
		{query: "other=true", want: false, optional: "nil"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q := mustParseQuery(t, tt.query)
			if got := q.bool("watch"); got != tt.want {
				t.Errorf("bool = %v, want %v", got, tt.want)
			}
			got := "nil"
			if b := q.optionalBool("watch"); b != nil {
				got = fmt.Sprint(*b)
			}
			if got != tt.optional {
				t.Errorf("optionalBool = %s, want %s", got, tt.optional)
			}
		})
	}
}

// Integers are base-10 int64s; a malformed one is a BadRequest, never a
// silent default.
func TestQueryParamsInt64(t *testing.T) {
	tests := []struct {
		query   string
		want    string // "nil" or the number
		wantErr string // substring of the BadRequest message
	}{
		{query: "", want: "nil"},
		{query: "limit=500", want: "500"},
		{query: "limit=-3", want: "-3"},
		{query: "limit=0", want: "0"},
		{query: "limit=9223372036854775807", want: "9223372036854775807"},
		{query: "limit=7&limit=abc", want: "7"},
		{query: "limit=abc", wantErr: `invalid value "abc" for limit: strconv.ParseInt: parsing "abc": invalid syntax`},
		{query: "limit=", wantErr: `invalid value "" for limit`},
		{query: "limit=1.5", wantErr: `invalid value "1.5" for limit`},
		{query: "limit=0x10", wantErr: `invalid value "0x10" for limit`},
		{query: "limit=9223372036854775808", wantErr: "value out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			n, err := mustParseQuery(t, tt.query).optionalInt64("limit")
			if tt.wantErr != "" {
				if apierrors.ReasonOf(err) != apierrors.ReasonBadRequest || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v (reason %q), want BadRequest containing %q", err, apierrors.ReasonOf(err), tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			got := "nil"
			if n != nil {
				got = fmt.Sprint(*n)
			}
			if got != tt.want {
				t.Errorf("optionalInt64 = %s, want %s", got, tt.want)
			}
		})
	}
}

// Strings take the first value; lists take every value in order.
func TestQueryParamsStringAndList(t *testing.T) {
	q := mustParseQuery(t, "fieldManager=a&fieldManager=b&dryRun=All&dryRun=All&empty=")
	if got := q.string("fieldManager"); got != "a" {
		t.Errorf("string = %q, want the first value %q", got, "a")
	}
	if got := q.string("missing"); got != "" {
		t.Errorf("string of a missing parameter = %q, want empty", got)
	}
	if got := q.list("dryRun"); strings.Join(got, ",") != "All,All" {
		t.Errorf("list = %q, want [All All]", got)
	}
	if !q.has("empty") || q.has("missing") {
		t.Errorf("has: empty=%v missing=%v, want true false", q.has("empty"), q.has("missing"))
	}
}

func mustParseQuery(t *testing.T, raw string) queryParams {
	t.Helper()
	v, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatalf("parse %q: %v", raw, err)
	}
	return queryParams(v)
}

// ?pretty= is read with strconv.ParseBool, as upstream's serializer reads
// it; without it, curl, Wget and browsers get indented answers.
func TestPrettyRequest(t *testing.T) {
	tests := []struct {
		query, userAgent string
		want             bool
	}{
		{query: "", userAgent: "kubectl/v1.32.0", want: false},
		{query: "", userAgent: "OpenAPI-Generator/22.6.0/python", want: false},
		{query: "", userAgent: "curl/8.5.0", want: true},
		{query: "", userAgent: "Wget/1.21", want: true},
		{query: "", userAgent: "Mozilla/5.0 (X11; Linux x86_64)", want: true},
		{query: "pretty=true", userAgent: "kubectl/v1.32.0", want: true},
		{query: "pretty=1", userAgent: "", want: true},
		{query: "pretty=T", userAgent: "", want: true},
		{query: "pretty=yes", userAgent: "", want: false}, // not a ParseBool value
		{query: "pretty=false", userAgent: "curl/8.5.0", want: false},
		{query: "pretty=", userAgent: "curl/8.5.0", want: true}, // empty: the user agent decides
	}
	for _, tt := range tests {
		t.Run(tt.query+" "+tt.userAgent, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api/v1/pods?"+tt.query, nil)
			r.Header.Set("User-Agent", tt.userAgent)
			if got := prettyRequest(r); got != tt.want {
				t.Errorf("prettyRequest = %v, want %v", got, tt.want)
			}
		})
	}
}
