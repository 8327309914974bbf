package apiserver

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/fields"
	"kplane/pkg/api/labels"
	"kplane/pkg/authorization/authorizer"
)

// FuzzQueryParams reads arbitrary query strings the way a list or watch
// reads them and checks what each reading promises:
//
//   - booleans: bool and optionalBool agree, and ?watch means the same to
//     the handlers (queryParams) as to the authorizer (WatchRequested);
//   - integers (limit, timeoutSeconds): a value is a base-10 int64 that
//     reads back to itself, or a 400 BadRequest naming the parameter;
//   - resourceVersion: a non-negative revision or an error, never a panic;
//   - ListOptions validation: only resourceVersionMatch and
//     sendInitialEvents can make it fail, and then with a 422 Invalid;
//   - selectors: a 400, or label and field selectors whose canonical text
//     parses back to the same selector;
//   - continue: a 400, or a token with a positive revision that encodes
//     back to a token decoding to the same thing.
func FuzzQueryParams(f *testing.F) {
	for _, seed := range []string{
		"", "watch", "watch=True&allowWatchBookmarks=1", "watch=0&watch=1", "watch=FALSE",
		"limit=500&continue=eyJydiI6MTIsInN0YXJ0IjoiL3JlZ2lzdHJ5L3BvZHMvZGVmYXVsdC9hIn0",
		"limit=-1", "limit=", "limit=0x10", "limit=9223372036854775808", "timeoutSeconds=+7",
		"resourceVersion=0&resourceVersionMatch=NotOlderThan", "resourceVersionMatch=Exact",
		"resourceVersion=0&resourceVersionMatch=Exact", "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&watch=1",
		"labelSelector=app%3Dweb%2Ctier+notin+(db)", "fieldSelector=metadata.name%3Dx%2Cstatus.phase!%3DRunning",
		"fieldSelector=spec.nodeName%3D", "labelSelector=a+in+(", "continue=bm90IGpzb24", "continue=e30",
		"resourceVersion=-5", "a=%zz&watch=1", "watch=1;limit=2",
	} {
		f.Add(seed)
	}
	pods := newRegistry(builtinResources()).lookup("", "v1", "pods")
	f.Fuzz(func(t *testing.T, rawQuery string) {
		values, _ := url.ParseQuery(rawQuery) // what r.URL.Query() keeps of it
		q := queryParams(values)

		for _, name := range []string{"watch", "allowWatchBookmarks", "sendInitialEvents"} {
			optional := q.optionalBool(name)
			if q.bool(name) != (optional != nil && *optional) || (optional != nil) != q.has(name) {
				t.Fatalf("%q: bool(%s) = %v, optionalBool = %v", rawQuery, name, q.bool(name), optional)
			}
		}
		if authorizer.WatchRequested(values) != q.bool("watch") {
			t.Fatalf("%q: the authorizer reads watch=%v, the handlers %v", rawQuery, authorizer.WatchRequested(values), q.bool("watch"))
		}

		for _, name := range []string{"limit", "timeoutSeconds"} {
			n, err := q.optionalInt64(name)
			switch {
			case err != nil:
				if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), name) {
					t.Fatalf("%q: %s fails with %v, want a BadRequest naming it", rawQuery, name, err)
				}
			case n == nil:
				if q.has(name) {
					t.Fatalf("%q: %s is present but reads as absent", rawQuery, name)
				}
			default:
				if back, err := strconv.ParseInt(strconv.FormatInt(*n, 10), 10, 64); err != nil || back != *n {
					t.Fatalf("%q: %s = %d does not read back (%d, %v)", rawQuery, name, *n, back, err)
				}
				if want, _ := strconv.ParseInt(q.string(name), 10, 64); want != *n {
					t.Fatalf("%q: %s = %d, but its first value is %q", rawQuery, name, *n, q.string(name))
				}
			}
		}

		if rv, err := parseResourceVersion(q.string("resourceVersion")); err == nil && rv < 0 {
			t.Fatalf("%q: resourceVersion reads as %d", rawQuery, rv)
		}

		for _, watch := range []bool{false, true} {
			err := validateListOptions(q, watch)
			if err == nil {
				continue
			}
			if !apierrors.IsInvalid(err) {
				t.Fatalf("%q (watch %v): %v, want a 422 Invalid", rawQuery, watch, err)
			}
			if !q.has("resourceVersionMatch") && !q.has("sendInitialEvents") {
				t.Fatalf("%q (watch %v): refused without resourceVersionMatch or sendInitialEvents: %v", rawQuery, watch, err)
			}
		}

		r := &http.Request{URL: &url.URL{Path: "/api/v1/pods", RawQuery: rawQuery}}
		sel, err := parseSelectors(r, pods)
		if err != nil {
			if !apierrors.IsBadRequest(err) {
				t.Fatalf("%q: selectors fail with %v, want a BadRequest", rawQuery, err)
			}
		} else {
			if again, err := labels.Parse(sel.labels.String()); err != nil || again.String() != sel.labels.String() {
				t.Fatalf("%q: label selector %q does not parse back (%v)", rawQuery, sel.labels.String(), err)
			}
			if again, err := fields.Parse(sel.fields.String()); err != nil || again.String() != sel.fields.String() {
				t.Fatalf("%q: field selector %q does not parse back (%v)", rawQuery, sel.fields.String(), err)
			}
		}

		if token := q.string("continue"); token != "" {
			decoded, err := decodeContinue(token)
			if err != nil {
				if !apierrors.IsBadRequest(err) {
					t.Fatalf("%q: continue fails with %v, want a BadRequest", rawQuery, err)
				}
				return
			}
			if decoded.Revision <= 0 {
				t.Fatalf("%q: continue accepted with revision %d", rawQuery, decoded.Revision)
			}
			again, err := decodeContinue(encodeContinue(decoded.Revision, decoded.StartKey))
			if err != nil || again != decoded {
				t.Fatalf("%q: continue %+v re-encodes to %+v (%v)", rawQuery, decoded, again, err)
			}
		}
	})
}
