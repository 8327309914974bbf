package apiserver

import (
	"errors"
	"fmt"
	"mime"
	"net/http"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/patch"
	"kplane/pkg/apiserver/decode"
	"kplane/pkg/apiserver/response"
)

// serveCreate handles POST on a collection.
func (s *Server) serveCreate(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	res := info.res
	if res.namespaced && info.namespace == "" {
		response.WriteError(w, response.NotFoundPath())
		return
	}
	dryRun, err := isDryRun(r)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	obj, warnings, err := decodeBody(r, res)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	if err := checkNamespace(res, obj, info.namespace); err != nil {
		response.WriteError(w, err)
		return
	}
	if err := s.recordManagedFields(r, res, "", nil, obj); err != nil {
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
}

// checkNamespace fills in or checks the object's namespace against the URL's.
func checkNamespace(res *resource, obj api.Object, namespace string) error {
	meta := obj.GetObjectMeta()
	if !res.namespaced {
		meta.Namespace = ""
		return nil
	}
	if meta.Namespace == "" {
		meta.Namespace = namespace
	}
	if meta.Namespace != namespace {
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// serveUpdate handles PUT on an object (or its status).
func (s *Server) serveUpdate(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	s.serveReplace(w, r, info, updateMain)
}

// serveReplace replaces an object, or its status, with the request body.
func (s *Server) serveReplace(w http.ResponseWriter, r *http.Request, info *requestInfo, mode updateMode) {
	res := info.res
	dryRun, err := isDryRun(r)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	obj, warnings, err := decodeBody(r, res)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	if err := checkNamespace(res, obj, info.namespace); err != nil {
		response.WriteError(w, err)
		return
	}
	meta := obj.GetObjectMeta()
	if meta.Name == "" {
		meta.Name = info.name
	}
	if meta.Name != info.name {
		response.WriteError(w, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", meta.Name, info.name)))
		return
	}
	updated, err := s.guaranteedUpdate(r.Context(), res, info.namespace, info.name, mode, dryRun,
		// Each attempt gets its own copy of the body: an attempt fills in
		// the stored object's resourceVersion and UID, and a retry after a
		// conflict (say, from a watch-cache copy that lagged) must start
		// from what the client sent, as upstream's DeepCopyObject does.
		func(current *storedObject) (api.Object, error) {
			next := api.DeepCopy(obj)
			return next, s.recordManagedFields(r, res, subresourceOf(mode), current.obj, next)
		})
	if apierrors.IsNotFound(err) && res.allowCreateOnUpdate && mode == updateMain {
		if err := s.recordManagedFields(r, res, subresourceOf(mode), nil, obj); err != nil {
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

// patchType reads the patch flavour from the Content-Type.
func patchType(r *http.Request) (string, error) {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return "", apierrors.NewUnsupportedMediaType(r.Header.Get("Content-Type"))
	}
	switch mediaType {
	case patch.JSONPatchType, patch.MergePatchType, patch.StrategicMergePatchType:
		return mediaType, nil
	case applyPatchType:
		return mediaType, nil
	}
	return "", apierrors.NewUnsupportedMediaType(mediaType)
}

// servePatch handles PATCH on an object (or its status).
func (s *Server) servePatch(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	s.servePatchMode(w, r, info, updateMain)
}

// servePatchMode applies a patch to the current object and writes the result
// through the same update path as a PUT; when another writer wins the race
// the patch is applied again to the newer object.
func (s *Server) servePatchMode(w http.ResponseWriter, r *http.Request, info *requestInfo, mode updateMode) {
	res := info.res
	pt, err := patchType(r)
	if err != nil && res.custom != nil {
		err = errStrategicMergeCustom() // upstream lists the custom resource's patch types
	}
	if err != nil {
		response.WriteError(w, err)
		return
	}
	if res.custom != nil && pt == patch.StrategicMergePatchType {
		response.WriteError(w, errStrategicMergeCustom())
		return
	}
	if pt != applyPatchType && queryOf(r).has("force") {
		response.WriteError(w, apierrors.NewInvalid("PatchOptions", "meta.k8s.io", "",
			apierrors.FieldErrorList{apierrors.Forbidden("force", "may not be specified for non-apply patch")}))
		return
	}
	if pt == applyPatchType {
		s.serveApply(w, r, info, mode)
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
	var warnings []string
	updated, err := s.guaranteedUpdate(r.Context(), res, info.namespace, info.name, mode, dryRun,
		func(current *storedObject) (api.Object, error) {
			patched, err := applyPatch(res, pt, current.raw, body)
			if err != nil {
				return nil, err
			}
			obj, warns, err := decodeObject(r, res, patched)
			if err != nil {
				return nil, err
			}
			warnings = warns
			return obj, s.recordManagedFields(r, res, subresourceOf(mode), current.obj, obj)
		})
	if err != nil {
		response.WriteError(w, err)
		return
	}
	addWarnings(w, warnings)
	s.writeObject(w, r, http.StatusOK, res, updated)
}

// applyPatch applies a patch body to an object's JSON, mapping patch errors
// onto Status errors.
func applyPatch(res *resource, pt string, original, body []byte) ([]byte, error) {
	jsonBody := body
	if pt != patch.JSONPatchType {
		converted, err := decode.ToJSON(body, "application/json")
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid patch: %v", err))
		}
		jsonBody = converted
	}
	patched, err := patch.Apply(pt, original, jsonBody, res.goType())
	if err != nil {
		return nil, patchError(err)
	}
	return patched, nil
}

// patchError maps a patch failure onto the Status upstream answers with.
func patchError(err error) error {
	var pe *patch.Error
	if !errors.As(err, &pe) {
		return err
	}
	reason := apierrors.ReasonBadRequest
	switch pe.Code {
	case http.StatusUnprocessableEntity:
		reason = apierrors.ReasonInvalid
	case http.StatusRequestEntityTooLarge:
		reason = apierrors.ReasonRequestEntityTooLarge
	}
	return &apierrors.StatusError{ErrStatus: api.Status{Code: int32(pe.Code), Reason: reason, Message: pe.Message}}
}
