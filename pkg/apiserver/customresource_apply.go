package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/fieldmanager"
	"kplane/pkg/api/schema"
	"kplane/pkg/apiextensions/structural"
	"kplane/pkg/apiserver/decode"
	"kplane/pkg/apiserver/response"
)

// Server-side apply and field ownership, for custom and (since the same
// flow serves them) built-in kinds.
// An apply (PATCH with application/apply-patch+yaml) merges the applied
// configuration by the kind's shape (a CRD's structural schema, or a
// built-in Go type's tags: fieldmanager.TypedShape), owns exactly the
// fields it sets, and is refused with upstream's 409 when it would change
// a field another manager owns, unless ?force=true. Every write to a
// custom object records its writer's fields in metadata.managedFields (an
// Update entry); a built-in object's writes do so once it has
// managedFields (see recordManagedFields). The merge and the bookkeeping
// are package fieldmanager's; this file decodes the request and runs them
// inside the usual write path, so pruning, defaulting, admission and
// validation apply as on every write.

// applyPatchType is the Content-Type of a server-side apply.
const applyPatchType = "application/apply-patch+yaml"

// maxFieldManagerLength is upstream's limit on a manager's name.
const maxFieldManagerLength = 128

// serveApply handles an apply to an object (or its status), creating the
// object when it does not exist yet.
func (s *Server) serveApply(w http.ResponseWriter, r *http.Request, info *requestInfo, mode updateMode) {
	res := info.res
	query := queryOf(r)
	manager := query.string("fieldManager")
	if manager == "" {
		response.WriteError(w, apierrors.NewInvalid("PatchOptions", "meta.k8s.io", "",
			apierrors.FieldErrorList{apierrors.Required("fieldManager", "is required for apply patch")}))
		return
	}
	dryRun, err := isDryRun(r)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	body, err := readBody(r)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	config, warnings, err := decodeApplyConfiguration(r, res, info, body)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	resetForMode(res, mode, config)
	request := fieldmanager.Request{Manager: manager, APIVersion: res.groupVersion(), Force: query.bool("force"),
		Subresource: subresourceOf(mode), Now: s.now(), Shape: applyShapeOf(res),
		Owns: ownsForSubresource(res, subresourceOf(mode))}
	apply := func(live map[string]any, managed []api.ManagedFieldsEntry) (api.Object, error) {
		managers, err := fieldmanager.Decode(managed)
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("read managedFields: %w", err))
		}
		merged, managers, err := fieldmanager.Apply(live, config, managers, request)
		var conflicts *fieldmanager.Conflicts
		if errors.As(err, &conflicts) {
			return nil, conflicts.StatusError()
		}
		if err != nil {
			return nil, err
		}
		encoded, err := json.Marshal(merged)
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("encode the applied object: %w", err))
		}
		obj, _, err := decodeObject(r, res, encoded)
		if err != nil {
			return nil, err
		}
		obj.GetObjectMeta().ManagedFields = managers.Encode()
		return obj, nil
	}
	updated, err := s.guaranteedUpdate(r.Context(), res, info.namespace, info.name, mode, dryRun,
		func(current *storedObject) (api.Object, error) {
			live, err := objectMap(current.obj)
			if err != nil {
				return nil, err
			}
			return apply(live, current.obj.GetObjectMeta().ManagedFields)
		})
	if apierrors.IsNotFound(err) && mode == updateMain {
		obj, err := apply(nil, nil)
		if err != nil {
			response.WriteError(w, err)
			return
		}
		created, err := s.create(r.Context(), res, obj, dryRun)
		if err != nil {
			response.WriteError(w, err)
			return
		}
		addWarnings(w, warnings)
		s.writeObject(w, r, http.StatusCreated, res, created)
		return
	}
	if err != nil {
		response.WriteError(w, err)
		return
	}
	addWarnings(w, warnings)
	s.writeObject(w, r, http.StatusOK, res, updated)
}

// decodeApplyConfiguration reads an applied configuration: YAML or JSON
// naming the resource's apiVersion and kind, with fields the schema does
// not know pruned (and reported as the request's fieldValidation says),
// and no managedFields, as upstream requires.
func decodeApplyConfiguration(r *http.Request, res *resource, info *requestInfo, body []byte) (map[string]any, []string, error) {
	jsonBody, err := decode.ToJSON(body, "application/json")
	if err != nil {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding YAML: %v", err))
	}
	config, err := api.DecodeObjectMap(jsonBody)
	if err != nil {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding YAML: the applied configuration is not an object: %s", strings.TrimSpace(string(body))))
	}
	obj, warnings, err := decodeObject(r, res, jsonBody)
	if err != nil {
		return nil, nil, err
	}
	meta := obj.GetObjectMeta()
	if meta.ManagedFields != nil {
		return nil, nil, apierrors.NewBadRequest("metadata.managedFields must be nil")
	}
	if meta.Name != "" && meta.Name != info.name {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", meta.Name, info.name))
	}
	if err := checkNamespace(res, obj, info.namespace); err != nil {
		return nil, nil, err
	}
	// Keep what the client sent, but the schema's unknown fields.
	if custom, ok := obj.(*api.CustomObject); ok {
		for k := range config {
			if k != "apiVersion" && k != "kind" && k != "metadata" {
				delete(config, k)
			}
		}
		for k, v := range custom.Content {
			config[k] = v
		}
	} else {
		pruneUnknownFields(config, schema.Of(res.goType()))
	}
	metadata, _ := config["metadata"].(map[string]any)
	if metadata == nil {
		metadata = map[string]any{}
		config["metadata"] = metadata
	}
	metadata["name"] = info.name
	if info.namespace != "" {
		metadata["namespace"] = info.namespace
	}
	return config, warnings, nil
}

// applyShapeOf is how res's objects merge in an apply.
func applyShapeOf(res *resource) fieldmanager.Shape {
	if res.custom != nil {
		return structural.ApplyShape(res.custom.schema)
	}
	return fieldmanager.TypedShape(res.goType())
}

// pruneUnknownFields drops from decoded JSON v the fields type t does not
// have, as decoding into the Go type drops them: an apply must not own
// what the object cannot hold.
func pruneUnknownFields(v any, t *schema.Type) {
	if t == nil {
		return
	}
	switch t.Kind {
	case schema.Object:
		object, ok := v.(map[string]any)
		if !ok {
			return
		}
		for name, value := range object {
			field := t.Field(name)
			if field == nil {
				delete(object, name)
				continue
			}
			pruneUnknownFields(value, field.Type)
		}
	case schema.Map:
		if object, ok := v.(map[string]any); ok {
			for _, value := range object {
				pruneUnknownFields(value, t.Elem)
			}
		}
	case schema.List:
		if items, ok := v.([]any); ok {
			for _, item := range items {
				pruneUnknownFields(item, t.Elem)
			}
		}
	}
}

// resetForMode drops from an applied configuration what a write through
// mode does not change, as upstream's strategies reset it before the
// merge: with a status subresource, status on the main resource, and all
// but status (and the object's name) on /status.
func resetForMode(res *resource, mode updateMode, config map[string]any) {
	if !res.hasStatus {
		return
	}
	if mode != updateStatus {
		delete(config, "status")
		return
	}
	for k := range config {
		if k != "apiVersion" && k != "kind" && k != "metadata" && k != "status" {
			delete(config, k)
		}
	}
	if metadata, ok := config["metadata"].(map[string]any); ok {
		config["metadata"] = map[string]any{"name": metadata["name"], "namespace": metadata["namespace"]}
	}
}

// subresourceOf names the subresource a write in mode goes through, as
// managedFields records it.
func subresourceOf(mode updateMode) string {
	if mode == updateStatus {
		return "status"
	}
	return ""
}

// ownsForSubresource is which fields a write through subresource may own:
// with a status subresource, upstream resets status on writes to the main
// resource and everything else on writes to /status. A write to /scale
// changes only the replicas it maps to.
func ownsForSubresource(res *resource, subresource string) func(fieldmanager.Path) bool {
	isStatus := func(p fieldmanager.Path) bool { return len(p) > 0 && p[0] == "f:status" }
	switch {
	case subresource == "status":
		return isStatus
	case subresource == "" && res.hasStatus:
		return func(p fieldmanager.Path) bool { return !isStatus(p) }
	}
	return nil
}

// recordManagedFields gives an object's non-apply write (create, update,
// patch, through the object or a subresource) to its writer in
// managedFields, as upstream's field manager records every write. The
// writer is the fieldManager parameter, or the first part of the client's
// user agent. A write that sends managedFields of its own replaces them,
// as upstream lets it. A built-in object's writes are recorded only once
// it has managedFields (it was applied, or a client sent some): the
// common write of an object nobody applies stays as cheap as before, and
// an applier still meets the later writers of its fields as conflicts.
func (s *Server) recordManagedFields(r *http.Request, res *resource, subresource string, old, obj api.Object) error {
	if res.custom == nil && len(obj.GetObjectMeta().ManagedFields) == 0 &&
		(old == nil || len(old.GetObjectMeta().ManagedFields) == 0) {
		return nil
	}
	manager := queryOf(r).string("fieldManager")
	if manager == "" {
		manager, _, _ = strings.Cut(r.UserAgent(), "/")
	}
	if len(manager) > maxFieldManagerLength {
		manager = manager[:maxFieldManagerLength]
	}
	updated, err := objectMap(obj)
	if err != nil {
		return err
	}
	managed := obj.GetObjectMeta().ManagedFields
	var previous map[string]any
	if old != nil {
		if previous, err = objectMap(old); err != nil {
			return err
		}
		if len(managed) == 0 {
			managed = old.GetObjectMeta().ManagedFields
		}
	}
	managers, err := fieldmanager.Decode(managed)
	if err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("metadata.managedFields: %v", err))
	}
	request := fieldmanager.Request{Manager: manager, Subresource: subresource, APIVersion: res.groupVersion(), Now: s.now(),
		Shape: applyShapeOf(res), Owns: ownsForSubresource(res, subresource)}
	obj.GetObjectMeta().ManagedFields = fieldmanager.Update(previous, updated, managers, request).Encode()
	return nil
}

// objectMap is an object as decoded JSON, without its managedFields.
func objectMap(obj api.Object) (map[string]any, error) {
	encoded, err := json.Marshal(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("encode the object: %w", err))
	}
	// Whole numbers stay int64, as in CustomObject: a float64 would round
	// an integer above 2^53 on its way through the merge.
	out, err := api.DecodeObjectMap(encoded)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("decode the object: %w", err))
	}
	if metadata, ok := out["metadata"].(map[string]any); ok {
		delete(metadata, "managedFields")
	}
	return out, nil
}
