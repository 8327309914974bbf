// Package patch is the three kinds of PATCH body the Kubernetes API
// accepts, chosen by the request's Content-Type:
//
//   - application/json-patch+json: an RFC 6902 JSON Patch, a list of
//     operations (add, remove, replace, move, copy, test) on JSON pointers;
//   - application/merge-patch+json: an RFC 7386 JSON Merge Patch, a partial
//     object whose members replace the original's and whose nulls delete;
//   - application/strategic-merge-patch+json: Kubernetes' own strategic
//     merge patch, a merge patch that also knows, from the patchStrategy and
//     patchMergeKey struct tags, which lists to merge element by element
//     (containers by name, ports by containerPort) instead of replacing.
//     It is what kubectl apply, label, annotate, scale and patch send.
//
// Apply applies any of the three to an object: the apiserver calls it for
// every PATCH request, ctl for --dry-run=client and to read old revisions.
// CreateThreeWayMergePatch computes the strategic merge patch `ctl apply`
// sends. The first two kinds use github.com/evanphx/json-patch, as upstream
// does (jsonpatch.go). The strategic merge patch is kplane's own, smaller
// rewrite of upstream's k8s.io/apimachinery/pkg/util/strategicpatch, both
// halves in this package: strategic.go has what they share,
// strategic_apply.go applies a patch, strategic_diff.go and
// strategic_threeway.go compute one.
package patch

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"strings"
)

// The patch content types, as Kubernetes names them.
const (
	JSONPatchType           = "application/json-patch+json"
	MergePatchType          = "application/merge-patch+json"
	StrategicMergePatchType = "application/strategic-merge-patch+json"
)

// SupportedTypes lists the content types Apply understands, in the order
// the apiserver advertises them (e.g. in the OpenAPI document).
var SupportedTypes = []string{JSONPatchType, MergePatchType, StrategicMergePatchType}

// Error is a patch that cannot be applied because of the patch itself: it
// is malformed, a JSON Patch test failed, a path is missing. Code is the
// HTTP status upstream answers with, so the apiserver can pass it on:
// 400 Bad Request for a patch that cannot be parsed or uses a directive
// wrongly, 422 Unprocessable Entity for a well-formed patch that does not
// apply to this object, 413 Request Entity Too Large for a JSON Patch with
// too many operations.
type Error struct {
	Code    int
	Message string
	err     error
}

// Error returns the message, worded like upstream's where practical.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the underlying library error, if any (for instance
// jsonpatch.ErrTestFailed for a failed test operation).
func (e *Error) Unwrap() error { return e.err }

func badRequest(format string, args ...any) *Error {
	return &Error{Code: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

func unprocessable(format string, args ...any) *Error {
	return &Error{Code: http.StatusUnprocessableEntity, Message: fmt.Sprintf(format, args...)}
}

// UnsupportedTypeError is returned for a Content-Type that is not one of
// SupportedTypes. The apiserver answers it with 415 Unsupported Media Type.
type UnsupportedTypeError struct {
	PatchType string
}

// Error lists the accepted types, as upstream's message does.
func (e *UnsupportedTypeError) Error() string {
	return fmt.Sprintf("the body of the request was in an unknown format (%s) - accepted media types include: %s",
		e.PatchType, strings.Join(SupportedTypes, ", "))
}

// IsUnsupportedType reports whether err says the patch type is unknown.
func IsUnsupportedType(err error) bool {
	var unsupported *UnsupportedTypeError
	return errors.As(err, &unsupported)
}

// Apply applies patch to original, a JSON object, and returns the patched
// JSON. patchType is the request's Content-Type (parameters such as
// charset are ignored). t is the Go type of the object (api.Pod,
// api.Deployment…; a pointer type is fine): the strategic merge patch reads
// its patch tags, the other two ignore it.
//
// Errors caused by the patch are *Error; an unknown patch type is an
// *UnsupportedTypeError; anything else (an original that is not valid
// JSON) is a plain error, i.e. a server fault.
func Apply(patchType string, original []byte, patch []byte, t reflect.Type) ([]byte, error) {
	mediaType, _, err := mime.ParseMediaType(patchType)
	if err != nil {
		return nil, &UnsupportedTypeError{PatchType: patchType}
	}
	switch mediaType {
	case JSONPatchType:
		return applyJSONPatch(original, patch)
	case MergePatchType:
		return applyMergePatch(original, patch)
	case StrategicMergePatchType:
		return applyStrategicMergePatch(original, patch, t)
	default:
		return nil, &UnsupportedTypeError{PatchType: mediaType}
	}
}
