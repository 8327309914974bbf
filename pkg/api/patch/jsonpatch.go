package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// MaxJSONPatchOperations is the most operations one JSON Patch may hold;
// upstream's apiserver rejects longer ones with 413 so that a single
// request cannot keep it busy for long.
const MaxJSONPatchOperations = 10000

// MaxCopyBytes bounds how much a JSON Patch's copy operations may add to
// the document in total. Without it, a few dozen `copy` operations that
// each double the document would exhaust memory. 3 MiB is upstream's
// default (JSONPatchMaxCopyBytes, the same as its request body limit).
const MaxCopyBytes = 3 << 20

// applyJSONPatch applies an RFC 6902 patch. As upstream: a patch that does
// not parse is 400, one that parses but does not apply (a failed test, a
// missing path) is 422.
func applyJSONPatch(original, patch []byte) ([]byte, error) {
	if err := checkSyntax(patch); err != nil {
		return nil, &Error{Code: http.StatusBadRequest, Message: err.Error(), err: err}
	}
	operations, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return nil, &Error{Code: http.StatusBadRequest, Message: err.Error(), err: err}
	}
	if len(operations) > MaxJSONPatchOperations {
		return nil, &Error{
			Code:    http.StatusRequestEntityTooLarge,
			Message: fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", MaxJSONPatchOperations, len(operations)),
		}
	}
	options := jsonpatch.NewApplyOptions()
	options.AccumulatedCopySizeLimit = MaxCopyBytes
	patched, err := guard(func() ([]byte, error) { return operations.ApplyWithOptions(original, options) })
	var patchErr *Error
	switch {
	case errors.As(err, &patchErr):
		return nil, patchErr
	case err != nil:
		return nil, &Error{Code: http.StatusUnprocessableEntity, Message: err.Error(), err: err}
	}
	return patched, nil
}

// applyMergePatch applies an RFC 7386 merge patch. The RFC lets a patch
// that is not an object replace the whole document; for an API object that
// can only produce something that is not an object, so kplane refuses such
// a patch up front with 400 instead of failing later on decoding.
func applyMergePatch(original, patch []byte) ([]byte, error) {
	if err := checkSyntax(patch); err != nil {
		return nil, &Error{Code: http.StatusBadRequest, Message: err.Error(), err: err}
	}
	if trimmed := bytes.TrimLeft(patch, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, badRequest("a merge patch must be a JSON object")
	}
	patched, err := guard(func() ([]byte, error) { return jsonpatch.MergePatch(original, patch) })
	var patchErr *Error
	switch {
	case errors.As(err, &patchErr):
		return nil, patchErr
	case errors.Is(err, jsonpatch.ErrBadJSONPatch):
		return nil, &Error{Code: http.StatusBadRequest, Message: err.Error(), err: err}
	case err != nil:
		return nil, fmt.Errorf("apply merge patch: %w", err)
	}
	return patched, nil
}

// checkSyntax returns encoding/json's own error for a body that is not JSON
// ("unexpected end of JSON input"), which reads better than the patch
// library's "invalid state detected".
func checkSyntax(body []byte) error {
	if json.Valid(body) {
		return nil
	}
	var discard json.RawMessage
	return json.Unmarshal(body, &discard)
}

// guard runs a call into the patch library and turns a panic into an
// error. Fuzzing found input that crashes json-patch v5.9.11 (a "test"
// operation on the whole document without a value); a request must never
// take the apiserver down, whatever the library does with it.
func guard(apply func() ([]byte, error)) (patched []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			patched, err = nil, unprocessable("the patch could not be applied: %v", r)
		}
	}()
	return apply()
}
