package apiserver

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/decode"
	"kplane/pkg/apiserver/protobuf"
	"kplane/pkg/audit"
)

// readBody reads a request body; past the size limit it is 413, never a 500.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, apierrors.NewRequestEntityTooLarge(fmt.Sprintf("limit is %d", tooLarge.Limit))
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("read request body: %v", err))
	}
	if len(body) == 0 {
		return nil, apierrors.NewBadRequest("the body of the request was empty")
	}
	return body, nil
}

// fieldValidation is the request's unknown-field policy: Strict (reject),
// Warn (drop with a Warning header; the default) or Ignore.
func fieldValidation(r *http.Request) (string, error) {
	switch v := queryOf(r).string("fieldValidation"); v {
	case "":
		return "Warn", nil
	case "Strict", "Warn", "Ignore":
		return v, nil
	default:
		return "", apierrors.NewBadRequest(fmt.Sprintf("fieldValidation parameter unsupported: %q; supported values: Ignore, Warn, Strict", v))
	}
}

// decodeObject decodes JSON into a new object of res, checking that the
// body's kind and apiVersion belong at this URL and applying the
// request's unknown-field policy. It returns the warnings to send.
func decodeObject(r *http.Request, res *resource, jsonBody []byte) (api.Object, []string, error) {
	policy, err := fieldValidation(r)
	if err != nil {
		return nil, nil, err
	}
	if res.custom != nil {
		return decodeCustomObject(res, jsonBody, policy)
	}
	cannotHandle := func(err error) error {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", res.kind, res.version, res.kind, err))
	}
	// Decode leniently first, so a body of the wrong kind is reported as
	// such rather than as a list of the fields this kind lacks.
	obj := res.newObject()
	warnings, err := decode.Into(jsonBody, obj, false)
	if err != nil {
		return nil, nil, cannotHandle(err)
	}
	tm := obj.GetTypeMeta()
	if err := checkTypeMeta(res, tm.APIVersion, tm.Kind); err != nil {
		return nil, nil, err
	}
	switch {
	case policy == "Strict" && len(warnings) > 0:
		return nil, nil, cannotHandle(&decode.StrictDecodingError{Errors: warnings})
	case policy == "Ignore":
		warnings = nil
	}
	return obj, warnings, nil
}

// checkTypeMeta rejects a body whose apiVersion or kind (when given) is not
// the one this URL serves.
func checkTypeMeta(res *resource, apiVersion, kind string) error {
	if apiVersion != "" && apiVersion != res.groupVersion() {
		return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", apiVersion, res.groupVersion()))
	}
	if kind != "" && kind != res.kind {
		return apierrors.NewBadRequest(fmt.Sprintf("the kind in the data (%s) does not match the expected kind (%s) for %s", kind, res.kind, res.qualified()))
	}
	return nil
}

// decodeProtobuf decodes a Kubernetes protobuf body, which client-go's typed
// clients (kubectl create, run, drain, …) send, into a new object of res.
// Protobuf skips fields it does not know without naming them, so unlike JSON
// there are no unknown-field warnings; upstream does the same.
func decodeProtobuf(r *http.Request, res *resource, body []byte) (api.Object, error) {
	if _, err := fieldValidation(r); err != nil {
		return nil, err
	}
	cannotHandle := func(err error) error {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", res.kind, res.version, res.kind, err))
	}
	apiVersion, kind, err := protobuf.DecodeTypeMeta(body)
	if err != nil {
		return nil, cannotHandle(err)
	}
	if err := checkTypeMeta(res, apiVersion, kind); err != nil {
		return nil, err
	}
	obj := res.newObject()
	if err := protobuf.Decode(body, obj); err != nil {
		return nil, cannotHandle(err)
	}
	return obj, nil
}

// decodeBody reads and decodes a create or update body (JSON, YAML or
// Kubernetes protobuf), and gives the object to the audit log, which names
// the object from it (and, at the Request level, records it) rather than
// decoding the body a second time.
func decodeBody(r *http.Request, res *resource) (api.Object, []string, error) {
	obj, warnings, err := decodeRequestObject(r, res)
	if err != nil {
		return nil, nil, err
	}
	audit.LogRequestObject(r.Context(), obj)
	return obj, warnings, nil
}

// decodeRequestObject is decodeBody without the audit log.
func decodeRequestObject(r *http.Request, res *resource) (api.Object, []string, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, nil, err
	}
	if ct := r.Header.Get("Content-Type"); res.custom != nil && (protobuf.IsProtobuf(ct) || strings.Contains(ct, "cbor")) {
		// Custom resources have no protobuf form, upstream neither.
		return nil, nil, errCustomResourceBodyMediaType()
	}
	if protobuf.IsProtobuf(r.Header.Get("Content-Type")) {
		obj, err := decodeProtobuf(r, res, body)
		return obj, nil, err
	}
	if ct := r.Header.Get("Content-Type"); strings.Contains(ct, "protobuf") || strings.Contains(ct, "cbor") {
		return nil, nil, apierrors.NewUnsupportedMediaType(ct)
	}
	jsonBody, err := decode.ToJSON(body, r.Header.Get("Content-Type"))
	if err != nil {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", res.kind, res.version, res.kind, err))
	}
	return decodeObject(r, res, jsonBody)
}

// decodeKind reads the body of a request that takes one kind of object the
// URL does not store — a review, a TokenRequest, an Eviction — into obj:
// JSON, YAML, or the Kubernetes protobuf client-go's typed clients
// (kubectl among them) send. The body's apiVersion, when given, must be
// one of groupVersions (the first is the one the URL serves, which the
// errors name), and its kind, when given, kind. Unknown fields are
// dropped, as upstream does for these create-only requests.
func decodeKind(r *http.Request, obj api.Object, kind string, groupVersions ...string) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	served := groupVersions[0]
	_, version, found := strings.Cut(served, "/")
	if !found {
		version = served
	}
	cannotHandle := func(err error) error {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", kind, version, kind, err))
	}
	if protobuf.IsProtobuf(r.Header.Get("Content-Type")) {
		// Decode fills the TypeMeta from the protobuf envelope.
		if err := protobuf.Decode(body, obj); err != nil {
			return cannotHandle(err)
		}
	} else {
		jsonBody, err := decode.ToJSON(body, r.Header.Get("Content-Type"))
		if err != nil {
			return cannotHandle(err)
		}
		if _, err := decode.Into(jsonBody, obj, false); err != nil {
			return cannotHandle(err)
		}
	}
	meta := obj.GetTypeMeta()
	if meta.APIVersion != "" && !slices.Contains(groupVersions, meta.APIVersion) {
		return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", meta.APIVersion, served))
	}
	if meta.Kind != "" && meta.Kind != kind {
		return apierrors.NewBadRequest(fmt.Sprintf("the kind in the data (%s) does not match the expected kind (%s)", meta.Kind, kind))
	}
	return nil
}

// isDryRun reports whether the request asked for dryRun=All. Any other
// value makes the request's options Invalid (422), as upstream validates
// CreateOptions, UpdateOptions and PatchOptions.
func isDryRun(r *http.Request) (bool, error) {
	values := queryOf(r).list("dryRun")
	if err := validateDryRun(optionsKind(r.Method), values); err != nil {
		return false, err
	}
	return len(values) > 0, nil
}

// validateDryRun accepts only "All", the one dry-run mode upstream has.
func validateDryRun(optionsKind string, values []string) error {
	for _, v := range values {
		if v != "All" {
			return apierrors.NewInvalid(optionsKind, "meta.k8s.io", "", apierrors.FieldErrorList{
				apierrors.NotSupported("dryRun", values, []string{"All"})})
		}
	}
	return nil
}

// optionsKind names the meta/v1 options a write with this method carries.
func optionsKind(method string) string {
	switch method {
	case http.MethodPut:
		return "UpdateOptions"
	case http.MethodPatch:
		return "PatchOptions"
	case http.MethodDelete:
		return "DeleteOptions"
	}
	return "CreateOptions"
}
