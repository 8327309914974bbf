package apiserver

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	apierrors "kplane/pkg/api/errors"
)

// queryParams is a request's query string, read the way upstream's
// parameter codec reads it into ListOptions, DeleteOptions, PodLogOptions
// and the other option structs (apimachinery's
// runtime.Convert_Slice_string_To_bool, …_To_int64, …_To_Pointer_int64):
//
//   - A parameter that is absent keeps its default: false, nil, "".
//   - A boolean is false for "false" and "0" in any letter case and true for
//     anything else — "True" (what the Python client sends), "1", "yes", and
//     even an empty value (`?watch`), which upstream documents as true.
//   - An integer is base 10 and fits in an int64; anything else, the empty
//     value included, fails the request with a 400 BadRequest, never a
//     silent default.
//   - A single-valued parameter given twice takes its first value; a list
//     parameter (dryRun) takes every value in order.
//
// Every handler reads its query through this type, so a parameter means
// the same thing on every path.
type queryParams url.Values

// queryOf returns r's query parameters.
func queryOf(r *http.Request) queryParams {
	return queryParams(r.URL.Query())
}

// has reports whether the parameter is present, with or without a value.
func (q queryParams) has(name string) bool {
	return len(q[name]) > 0
}

// string is the parameter's first value, or "" when it is absent.
func (q queryParams) string(name string) string {
	if values := q[name]; len(values) > 0 {
		return values[0]
	}
	return ""
}

// list is every value of a repeated parameter, in request order.
func (q queryParams) list(name string) []string {
	return q[name]
}

// bool is the parameter as a boolean: absent, "false" and "0" (any case)
// are false, everything else true.
func (q queryParams) bool(name string) bool {
	return q.has(name) && parseQueryBool(q[name][0])
}

// optionalBool is the parameter as a boolean, or nil when it is absent (the
// *bool options: orphanDependents, sendInitialEvents).
func (q queryParams) optionalBool(name string) *bool {
	if !q.has(name) {
		return nil
	}
	b := parseQueryBool(q[name][0])
	return &b
}

// optionalInt64 is the parameter as an integer, or nil when it is absent.
// A value that is not a base-10 int64 is a 400 BadRequest naming the
// parameter and carrying strconv's error, which is upstream's whole message.
func (q queryParams) optionalInt64(name string) (*int64, error) {
	if !q.has(name) {
		return nil, nil
	}
	v := q[name][0]
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid value %q for %s: %v", v, name, err))
	}
	return &n, nil
}

// int64 is the parameter as an integer, 0 when it is absent; malformed
// values fail as in optionalInt64.
func (q queryParams) int64(name string) (int64, error) {
	n, err := q.optionalInt64(name)
	if err != nil || n == nil {
		return 0, err
	}
	return *n, nil
}

// parseQueryBool is apimachinery's rule for one boolean query value.
func parseQueryBool(v string) bool {
	switch strings.ToLower(v) {
	case "false", "0":
		return false
	}
	return true
}

// validateListOptions checks the combinations of list and watch parameters
// that upstream's ListOptions validation rejects, all reported together in
// one 422 Invalid ListOptions Status. A list may pin its read with
// resourceVersionMatch only alongside a resourceVersion and without a
// continue token, and never asks for initial events; a watch takes
// resourceVersionMatch=NotOlderThan only as part of a sendInitialEvents
// request (client-go's WatchList), which in turn requires it.
func validateListOptions(q queryParams, watch bool) error {
	var errs apierrors.FieldErrorList
	match, rv := q.string("resourceVersionMatch"), q.string("resourceVersion")
	continues := q.string("continue") != ""
	sendInitialEvents := q.optionalBool("sendInitialEvents")
	if watch {
		if sendInitialEvents != nil && match != "NotOlderThan" {
			errs = append(errs, apierrors.Forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
		}
		if match != "" {
			if sendInitialEvents == nil {
				errs = append(errs, apierrors.Forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
			}
			if match != "NotOlderThan" {
				errs = append(errs, apierrors.NotSupported("resourceVersionMatch", match, []string{"NotOlderThan"}))
			}
			if continues {
				errs = append(errs, apierrors.Forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
			}
		}
	} else {
		if match != "" {
			if rv == "" {
				errs = append(errs, apierrors.Forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"))
			}
			if continues {
				errs = append(errs, apierrors.Forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
			}
			if match != "Exact" && match != "NotOlderThan" {
				errs = append(errs, apierrors.NotSupported("resourceVersionMatch", match, []string{"Exact", "NotOlderThan", ""}))
			}
			if match == "Exact" && rv == "0" {
				errs = append(errs, apierrors.Forbidden("resourceVersionMatch", `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))
			}
		}
		if sendInitialEvents != nil {
			errs = append(errs, apierrors.Forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid("ListOptions", "meta.k8s.io", "", errs)
	}
	return nil
}
