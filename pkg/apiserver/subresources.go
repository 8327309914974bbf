package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/validation"
	"kplane/pkg/apiserver/decode"
	"kplane/pkg/apiserver/response"
)

// serveStatus handles /status: GET reads the whole object, PUT and PATCH
// change only its status.
func (s *Server) serveStatus(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	switch r.Method {
	case http.MethodGet:
		s.serveGet(w, r, info)
	case http.MethodPut:
		s.serveReplace(w, r, info, updateStatus)
	case http.MethodPatch:
		s.servePatchMode(w, r, info, updateStatus)
	default:
		response.WriteError(w, apierrors.NewMethodNotSupported(info.res.qualified(), r.Method))
	}
}

// scaleOf builds the autoscaling/v1 Scale view of a workload.
func scaleOf(res *resource, so *storedObject) *api.Scale {
	spec, status, selector := res.scale.get(so.obj)
	meta := so.obj.GetObjectMeta()
	selectorText := selectorString(selector)
	if res.scale.selectorText != nil {
		selectorText = res.scale.selectorText(so.obj)
	}
	return &api.Scale{
		TypeMeta: api.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		ObjectMeta: api.ObjectMeta{Name: meta.Name, Namespace: meta.Namespace, UID: meta.UID,
			ResourceVersion: meta.ResourceVersion, CreationTimestamp: meta.CreationTimestamp},
		Spec:   api.ScaleSpec{Replicas: spec},
		Status: api.ScaleStatus{Replicas: status, Selector: selectorText},
	}
}

// serveScale handles /scale: the replica count of a Deployment, ReplicaSet,
// StatefulSet or ReplicationController as a Scale object. `kubectl scale`
// PATCHes it; the HPA reads and writes it.
func (s *Server) serveScale(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	res := info.res
	if r.Method == http.MethodGet {
		so, err := s.getStored(r.Context(), res, info.namespace, info.name)
		if err != nil {
			response.WriteError(w, err)
			return
		}
		response.WriteJSON(w, http.StatusOK, scaleOf(res, so))
		return
	}
	if r.Method != http.MethodPut && r.Method != http.MethodPatch {
		response.WriteError(w, apierrors.NewMethodNotSupported(res.qualified(), r.Method))
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
	var pt string
	if r.Method == http.MethodPatch {
		if pt, err = patchType(r); err != nil {
			response.WriteError(w, err)
			return
		}
	} else if body, err = decode.ToJSON(body, r.Header.Get("Content-Type")); err != nil {
		response.WriteError(w, apierrors.NewBadRequest(fmt.Sprintf("Scale in version \"v1\" cannot be handled as a Scale: %v", err)))
		return
	}
	updated, err := s.guaranteedUpdate(r.Context(), res, info.namespace, info.name, updateMain, dryRun,
		func(current *storedObject) (api.Object, error) {
			scaleJSON := body
			if pt != "" {
				currentScale, _ := json.Marshal(scaleOf(res, current))
				patched, err := applyPatch(scaleResource, pt, currentScale, body)
				if err != nil {
					return nil, err
				}
				scaleJSON = patched
			}
			var scale api.Scale
			if _, err := decode.Into(scaleJSON, &scale, false); err != nil {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("Scale in version \"v1\" cannot be handled as a Scale: %v", err))
			}
			// Validated before the resourceVersion is compared, as upstream's
			// scale subresources do.
			if errs := validation.ValidateScale(&scale); len(errs) > 0 {
				return nil, apierrors.NewInvalid("Scale", "autoscaling", info.name, errs)
			}
			if scale.ResourceVersion != "" && scale.ResourceVersion != current.obj.GetObjectMeta().ResourceVersion {
				return nil, apierrors.NewConflict(res.qualified(), info.name, "the object has been modified; please apply your changes to the latest version and try again")
			}
			obj, err := copyOf(res, current)
			if err != nil {
				return nil, err
			}
			obj.GetObjectMeta().ResourceVersion = ""
			res.scale.set(obj, scale.Spec.Replicas)
			return obj, s.recordManagedFields(r, res, "scale", current.obj, obj)
		})
	if err != nil {
		response.WriteError(w, err)
		return
	}
	response.WriteJSON(w, http.StatusOK, scaleOf(res, updated))
}

// scaleResource lets applyPatch treat a Scale like any resource.
var scaleResource = &resource{group: "autoscaling", version: "v1", kind: "Scale", plural: "scale",
	newObject: func() api.Object { return &api.Scale{} }}

// serveBinding handles POST pods/<name>/binding: the scheduler's way of
// assigning a pod to a node. It sets spec.nodeName once; a second binding is
// a Conflict.
func (s *Server) serveBinding(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	body, err := readBody(r)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	jsonBody, err := decode.ToJSON(body, r.Header.Get("Content-Type"))
	if err != nil {
		response.WriteError(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	var binding api.Binding
	if _, err := decode.Into(jsonBody, &binding, false); err != nil {
		response.WriteError(w, apierrors.NewBadRequest(fmt.Sprintf("Binding in version \"v1\" cannot be handled as a Binding: %v", err)))
		return
	}
	// Upstream returns these field errors unwrapped, which its handler then
	// reports as a 500; kplane answers 422 Invalid, as for every other
	// refused body, so that a client can tell a bad binding from a server
	// fault (IsInvalid).
	if errs := validation.ValidatePodBinding(&binding); len(errs) > 0 {
		response.WriteError(w, apierrors.NewInvalid("Binding", "", info.name, errs))
		return
	}
	res := info.res
	_, err = s.guaranteedUpdate(r.Context(), res, info.namespace, info.name, updateAll, false,
		func(current *storedObject) (api.Object, error) {
			// current.obj may be the watch cache's own object, shared by
			// every reader (updateAll's first attempt, see cachedState),
			// so it is never written to: the binding changes only
			// nodeName, the resourceVersion and the conditions, and a
			// shallow copy with its own conditions leaves current.obj
			// intact, without a JSON decode of the pod.
			pod := new(api.Pod)
			*pod = *current.obj.(*api.Pod)
			pod.Status.Conditions = slices.Clone(pod.Status.Conditions)
			if pod.DeletionTimestamp != nil {
				return nil, apierrors.NewConflict(res.qualified(), pod.Name, fmt.Sprintf("pod %s is being deleted, cannot be assigned to a host", pod.Name))
			}
			if pod.Spec.NodeName != "" {
				return nil, apierrors.NewConflict(res.qualified(), pod.Name, fmt.Sprintf("pod %s is already assigned to node %q", pod.Name, pod.Spec.NodeName))
			}
			pod.ResourceVersion = ""
			pod.Spec.NodeName = binding.Target.Name
			setPodCondition(&pod.Status, api.PodCondition{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: s.now()})
			return pod, nil
		})
	if err != nil {
		response.WriteError(w, err)
		return
	}
	response.WriteJSON(w, http.StatusCreated, api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Success", Code: http.StatusCreated})
}

// setPodCondition adds or replaces a condition by type.
func setPodCondition(status *api.PodStatus, c api.PodCondition) {
	for i := range status.Conditions {
		if status.Conditions[i].Type == c.Type {
			status.Conditions[i] = c
			return
		}
	}
	status.Conditions = append(status.Conditions, c)
}

// serveNamespaceFinalize handles PUT namespaces/<name>/finalize, with which
// the namespace controller clears spec.finalizers once the namespace is
// empty; a terminating namespace with no finalizers left is then removed.
func (s *Server) serveNamespaceFinalize(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	obj, _, err := decodeBody(r, info.res)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	finalizers := obj.(*api.Namespace).Spec.Finalizers
	res := info.res
	updated, err := s.guaranteedUpdate(r.Context(), res, "", info.name, updateMain, false,
		func(current *storedObject) (api.Object, error) {
			next, err := copyOf(res, current)
			if err != nil {
				return nil, err
			}
			ns := next.(*api.Namespace)
			if rv := obj.GetObjectMeta().ResourceVersion; rv != "" && rv != ns.ResourceVersion {
				return nil, apierrors.NewConflict(res.qualified(), ns.Name, "the object has been modified; please apply your changes to the latest version and try again")
			}
			ns.ResourceVersion = ""
			ns.Spec.Finalizers = finalizers
			return ns, nil
		})
	if err != nil {
		response.WriteError(w, err)
		return
	}
	s.writeObject(w, r, http.StatusOK, res, updated)
}
