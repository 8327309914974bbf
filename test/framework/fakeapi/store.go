package fakeapi

// This file is what the server does with a request that passed the
// reactors: the apiserver's semantics, reduced to what controllers rely on.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/api/patch"
	"kplane/pkg/client"
)

// serve answers req with a status code and a JSON body, and records in
// action.Result what a write stored.
func (s *Server) serve(req request, action *Action) (int, []byte, error) {
	res, _ := s.resourceNamed(req.resource)
	errResource := apierrors.Resource{Group: res.Group, Resource: res.Resource}
	key := storeKey(req.resource, req.namespace, req.name)
	stored := s.objects[key]

	switch req.verb {
	case VerbGet:
		if stored == nil {
			return 0, nil, apierrors.NewNotFound(errResource, req.name)
		}
		return respond(http.StatusOK, stored)
	case VerbList:
		return s.list(req, res)
	case VerbWatch:
		return 0, nil, apierrors.NewMethodNotSupported(errResource,
			"watch (fakeapi serves no watches: a unit test fills the informers' caches itself)")
	case VerbDeleteCollection:
		return s.deleteCollection(req, res)
	}

	if req.verb == VerbCreate && req.subresource != "" {
		// pods/binding, pods/eviction: accepted, nothing stored here.
		return respond(http.StatusCreated, map[string]any{"kind": "Status", "apiVersion": "v1", "status": api.StatusSuccess})
	}
	var obj map[string]any
	if req.verb == VerbCreate || req.verb == VerbUpdate {
		if err := json.Unmarshal(action.Body, &obj); err != nil {
			return 0, nil, apierrors.NewBadRequest(fmt.Sprintf("decode %s: %v", req.resource, err))
		}
	}

	switch req.verb {
	case VerbCreate:
		return s.create(req, res, obj, action)
	case VerbUpdate:
		if stored == nil {
			return 0, nil, apierrors.NewNotFound(errResource, req.name)
		}
		if rv := metaString(obj, "resourceVersion"); rv != "" && rv != metaString(stored, "resourceVersion") {
			return 0, nil, apierrors.NewConflict(errResource, req.name,
				"the object has been modified; please apply your changes to the latest version and try again")
		}
		return s.write(req, res, mergeSubresource(stored, obj, req.subresource), action)
	case VerbPatch:
		if stored == nil {
			return 0, nil, apierrors.NewNotFound(errResource, req.name)
		}
		patched, err := applyPatch(action.PatchType, stored, action.Body, req.resource, s.newObject(req.resource))
		if err != nil {
			return 0, nil, err
		}
		return s.write(req, res, mergeSubresource(stored, patched, req.subresource), action)
	case VerbDelete:
		if stored == nil {
			return 0, nil, apierrors.NewNotFound(errResource, req.name)
		}
		var opts api.DeleteOptions
		if len(action.Body) > 0 {
			if err := json.Unmarshal(action.Body, &opts); err != nil {
				return 0, nil, apierrors.NewBadRequest(fmt.Sprintf("decode DeleteOptions: %v", err))
			}
		}
		if err := preconditionsHold(opts.Preconditions, stored, errResource, req.name); err != nil {
			return 0, nil, err
		}
		addPropagationFinalizer(stored, opts)
		return s.delete(req, res, key, stored, opts.GracePeriodSeconds, action)
	}
	return 0, nil, apierrors.NewMethodNotSupported(errResource, req.verb)
}

// create stores a new object: a name from generateName, a uid, a
// resourceVersion and a creationTimestamp, as the apiserver assigns them.
func (s *Server) create(req request, res client.Resource, obj map[string]any, action *Action) (int, []byte, error) {
	meta := metadata(obj)
	if meta["name"] == nil || meta["name"] == "" {
		generateName, _ := meta["generateName"].(string)
		if generateName == "" {
			return 0, nil, apierrors.NewBadRequest("name or generateName is required")
		}
		s.generated++
		meta["name"] = fmt.Sprintf("%s%05d", generateName, s.generated)
	}
	name := meta["name"].(string)
	if res.Namespaced {
		meta["namespace"] = req.namespace
	}
	if s.objects[storeKey(req.resource, req.namespace, name)] != nil {
		return 0, nil, apierrors.NewAlreadyExists(apierrors.Resource{Group: res.Group, Resource: res.Resource}, name)
	}
	meta["uid"] = "uid-" + name
	meta["creationTimestamp"] = s.clock.Now().UTC().Truncate(time.Second).Format(time.RFC3339)
	req.name = name
	code, body, err := s.write(req, res, obj, action)
	if err == nil {
		code = http.StatusCreated
	}
	return code, body, err
}

// write stores obj under req with the next resourceVersion. An object
// marked for deletion whose last finalizer is gone is deleted instead.
func (s *Server) write(req request, res client.Resource, obj map[string]any, action *Action) (int, []byte, error) {
	setTypeMeta(obj, res)
	s.resourceVersion++
	metadata(obj)["resourceVersion"] = strconv.Itoa(s.resourceVersion)
	key := storeKey(req.resource, req.namespace, req.name)
	if metadata(obj)["deletionTimestamp"] != nil && len(finalizers(obj)) == 0 && !waitsForKubelet(obj) {
		delete(s.objects, key)
	} else {
		s.objects[key] = obj
	}
	code, body, err := respond(http.StatusOK, obj)
	action.Result = body
	return code, body, err
}

// delete removes the object, or only marks it deleted when something must
// still happen first: finalizers to be removed, or a pod on a node whose
// kubelet must stop it (graceful deletion).
func (s *Server) delete(req request, res client.Resource, key string, stored map[string]any, gracePeriod *int64, action *Action) (int, []byte, error) {
	if len(finalizers(stored)) == 0 && !(req.resource == "pods" && podIsBound(stored) && (gracePeriod == nil || *gracePeriod > 0)) {
		delete(s.objects, key)
		return respond(http.StatusOK, map[string]any{"kind": "Status", "apiVersion": "v1", "status": api.StatusSuccess})
	}
	meta := metadata(stored)
	if meta["deletionTimestamp"] == nil {
		grace := int64(0)
		if req.resource == "pods" && podIsBound(stored) {
			grace = 30
			if gracePeriod != nil {
				grace = *gracePeriod
			}
		}
		meta["deletionTimestamp"] = s.clock.Now().Add(time.Duration(grace) * time.Second).UTC().Truncate(time.Second).Format(time.RFC3339)
		meta["deletionGracePeriodSeconds"] = grace
	}
	return s.write(req, res, stored, action)
}

// addPropagationFinalizer adds the finalizer a delete's propagation policy
// asks for, as the apiserver does before it decides between removing and
// marking: Orphan (or orphanDependents) adds "orphan", so the garbage
// collector strips the dependents' ownerReferences first; Foreground adds
// "foregroundDeletion", so the owner waits for its dependents.
// Background, the default, adds nothing.
func addPropagationFinalizer(stored map[string]any, opts api.DeleteOptions) {
	finalizer := ""
	switch {
	case opts.PropagationPolicy != nil && *opts.PropagationPolicy == api.DeletePropagationOrphan,
		opts.PropagationPolicy == nil && opts.OrphanDependents != nil && *opts.OrphanDependents:
		finalizer = api.FinalizerOrphanDependents
	case opts.PropagationPolicy != nil && *opts.PropagationPolicy == api.DeletePropagationForeground:
		finalizer = api.FinalizerDeleteDependents
	default:
		return
	}
	meta := metadata(stored)
	list, _ := meta["finalizers"].([]any)
	if !slices.Contains(list, any(finalizer)) {
		meta["finalizers"] = append(list, finalizer)
	}
}

// deleteCollection deletes every object of the resource in the request's
// namespace (all namespaces for a cluster-wide path) that its label
// selector matches.
func (s *Server) deleteCollection(req request, res client.Resource) (int, []byte, error) {
	selector, err := labels.Parse(req.labelSelector)
	if err != nil {
		return 0, nil, apierrors.NewBadRequest(err.Error())
	}
	for _, key := range s.keysOf(req, selector) {
		stored := s.objects[key]
		one := req
		one.name, one.namespace = metaString(stored, "name"), metaString(stored, "namespace")
		if _, _, err := s.delete(one, res, key, stored, nil, &Action{}); err != nil {
			return 0, nil, err
		}
	}
	return respond(http.StatusOK, map[string]any{"kind": "Status", "apiVersion": "v1", "status": api.StatusSuccess})
}

// list returns the resource's objects in the request's namespace that its
// label selector matches, sorted by namespace and name.
func (s *Server) list(req request, res client.Resource) (int, []byte, error) {
	selector, err := labels.Parse(req.labelSelector)
	if err != nil {
		return 0, nil, apierrors.NewBadRequest(err.Error())
	}
	items := []any{}
	for _, key := range s.keysOf(req, selector) {
		items = append(items, s.objects[key])
	}
	return respond(http.StatusOK, map[string]any{
		"kind": res.Kind + "List", "apiVersion": res.GroupVersion(),
		"metadata": map[string]any{"resourceVersion": strconv.Itoa(s.resourceVersion)},
		"items":    items,
	})
}

// keysOf returns the sorted keys of the objects a collection request
// names.
func (s *Server) keysOf(req request, selector labels.Selector) []string {
	prefix := req.resource + "/"
	if req.collectionOfNamespace {
		prefix += req.namespace + "/"
	}
	var keys []string
	for key, obj := range s.objects {
		if !strings.HasPrefix(key, prefix) {
			continue
		}
		labelMap := map[string]string{}
		if l, ok := metadata(obj)["labels"].(map[string]any); ok {
			for k, v := range l {
				labelMap[k], _ = v.(string)
			}
		}
		if selector.Matches(labelMap) {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	return keys
}

// mergeSubresource is what an update or patch of subresource changes in
// stored: the status subresource replaces only the status, the main
// resource everything but the status (which only /status writes), and a
// namespace's finalize only its spec.
func mergeSubresource(stored, written map[string]any, subresource string) map[string]any {
	merged := deepCopy(stored)
	switch subresource {
	case "status":
		merged["status"] = written["status"]
		merged["metadata"] = written["metadata"]
	case "finalize":
		merged["spec"] = written["spec"]
		merged["metadata"] = written["metadata"]
	default:
		status, hadStatus := stored["status"]
		merged = written
		if hadStatus {
			merged["status"] = status
		} else {
			delete(merged, "status")
		}
	}
	return merged
}

// applyPatch applies a JSON, merge or strategic merge patch to stored
// with the apiserver's own patch code.
func applyPatch(patchType string, stored map[string]any, patchBody []byte, resource string, example api.Object) (map[string]any, error) {
	original, err := json.Marshal(stored)
	if err != nil {
		return nil, err
	}
	if example == nil && strings.HasPrefix(patchType, string(client.StrategicMergePatchType)) {
		// A custom resource kept as a map: no Go type to read patch
		// strategies from.
		return nil, errStrategicMergeOfCustom()
	}
	patched, err := patch.Apply(patchType, original, patchBody, reflect.TypeOf(example))
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("patch %s: %v", resource, err))
	}
	var out map[string]any
	if err := json.Unmarshal(patched, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// preconditionsHold checks a delete's uid and resourceVersion
// preconditions against the stored object, as the apiserver does.
func preconditionsHold(p *api.Preconditions, stored map[string]any, res apierrors.Resource, name string) error {
	if p == nil {
		return nil
	}
	if p.UID != nil && *p.UID != metaString(stored, "uid") {
		return apierrors.NewConflict(res, name, fmt.Sprintf(
			"Precondition failed: UID in precondition: %s, UID in object meta: %s", *p.UID, metaString(stored, "uid")))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != metaString(stored, "resourceVersion") {
		return apierrors.NewConflict(res, name, fmt.Sprintf(
			"Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s",
			*p.ResourceVersion, metaString(stored, "resourceVersion")))
	}
	return nil
}

// respond encodes v as the body of a code answer.
func respond(code int, v any) (int, []byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return 0, nil, err
	}
	return code, body, nil
}

// toMap turns a typed object into the decoded JSON the server stores.
func toMap(obj api.Object) (map[string]any, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", obj, err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("decode %T: %w", obj, err)
	}
	return m, nil
}

// deepCopy copies decoded JSON.
func deepCopy(m map[string]any) map[string]any {
	data, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return out
}

// setTypeMeta stamps kind and apiVersion, as the apiserver's answers carry them.
func setTypeMeta(obj map[string]any, res client.Resource) {
	obj["kind"], obj["apiVersion"] = res.Kind, res.GroupVersion()
}

// metadata returns obj's metadata, creating it if absent.
func metadata(obj map[string]any) map[string]any {
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	return meta
}

// metaString reads a string field of obj's metadata.
func metaString(obj map[string]any, field string) string {
	s, _ := metadata(obj)[field].(string)
	return s
}

// finalizers returns what still holds obj once it is marked for deletion:
// its metadata.finalizers and, for a namespace, its spec.finalizers too
// ("kubernetes", which the namespace controller removes through
// /finalize once the namespace is empty), as the apiserver counts them.
func finalizers(obj map[string]any) []any {
	f, _ := metadata(obj)["finalizers"].([]any)
	if obj["kind"] == "Namespace" {
		spec, _ := obj["spec"].(map[string]any)
		specFinalizers, _ := spec["finalizers"].([]any)
		f = append(slices.Clone(f), specFinalizers...)
	}
	return f
}

// podIsBound reports whether a pod (as decoded JSON) is bound to a node.
func podIsBound(obj map[string]any) bool {
	spec, _ := obj["spec"].(map[string]any)
	node, _ := spec["nodeName"].(string)
	return node != ""
}

// waitsForKubelet reports whether obj is a pod in its grace period: bound
// to a node whose kubelet has not yet confirmed with a zero-grace delete.
func waitsForKubelet(obj map[string]any) bool {
	if obj["kind"] != "Pod" || !podIsBound(obj) {
		return false
	}
	switch grace := metadata(obj)["deletionGracePeriodSeconds"].(type) {
	case float64: // as decoded from JSON
		return grace > 0
	case int64: // as delete set it
		return grace > 0
	}
	return false
}
