package ctl

import (
	"context"
	"encoding/json"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
	"kplane/pkg/ctl/describe"
	"kplane/pkg/restmapper"
)

// relatedFetcher reads, for `ctl describe`, the Events about an object and
// the other objects its description shows, with the same requests kubectl
// makes.
type relatedFetcher struct {
	c         *client.Client
	chunkSize int64
}

// mirrorPodAnnotation holds, on a mirror pod, the UID of the static pod
// its Events are recorded under.
const mirrorPodAnnotation = "kubernetes.io/config.mirror"

// events finds the Events about obj by field selector, as kubectl's
// searchEvents does: by the object's name, namespace, kind and UID. For a
// pod the kind is left out; for a node, whose kubelet records events
// under the node's name rather than its UID, both are looked up.
func (r relatedFetcher) events(ctx context.Context, res restmapper.APIResource, obj map[string]any) ([]api.Event, error) {
	ref := api.ObjectReference{Kind: res.Kind, Name: nameOf(obj), Namespace: namespaceOf(obj), UID: metadataString(obj, "uid")}
	switch {
	case res.Group == "" && res.Kind == "Pod":
		ref.Kind = ""
		meta, _ := obj["metadata"].(map[string]any)
		annotations, _ := meta["annotations"].(map[string]any)
		if uid, ok := annotations[mirrorPodAnnotation].(string); ok {
			ref.UID = uid
		}
	case res.Group == "" && res.Kind == "Node":
		byUID, err := r.searchEvents(ctx, ref)
		if err != nil {
			return byUID, err
		}
		ref.UID = ref.Name
		byName, err := r.searchEvents(ctx, ref)
		return append(byUID, byName...), err
	}
	return r.searchEvents(ctx, ref)
}

// searchEvents lists the Events whose involvedObject matches ref. An empty
// namespace searches every namespace for events of a cluster-scoped
// object.
func (r relatedFetcher) searchEvents(ctx context.Context, ref api.ObjectReference) ([]api.Event, error) {
	selector := "involvedObject.name=" + ref.Name + ",involvedObject.namespace=" + ref.Namespace
	if ref.Kind != "" {
		selector += ",involvedObject.kind=" + ref.Kind
	}
	if ref.UID != "" {
		selector += ",involvedObject.uid=" + ref.UID
	}
	return listAll(ctx, r.c.Events(ref.Namespace), client.ListOptions{FieldSelector: selector, Limit: r.chunkSize})
}

// related fetches the objects the describer of obj's kind shows.
func (r relatedFetcher) related(ctx context.Context, res restmapper.APIResource, obj map[string]any) (describe.Related, error) {
	var rel describe.Related
	namespace := namespaceOf(obj)
	var err error
	switch res.Group + "/" + res.Kind {
	case "apps/ReplicaSet":
		// A ReplicaSet shows a failed pod list in place of its counts.
		if selector, ok := r.selectorOf(obj, "spec", "selector"); ok {
			rel.Pods, rel.PodsErr = listAll(ctx, r.c.Pods(namespace), client.ListOptions{LabelSelector: selector, Limit: r.chunkSize})
		}
	case "apps/StatefulSet", "apps/DaemonSet":
		if selector, ok := r.selectorOf(obj, "spec", "selector"); ok {
			rel.Pods, err = listAll(ctx, r.c.Pods(namespace), client.ListOptions{LabelSelector: selector, Limit: r.chunkSize})
		}
	case "/ReplicationController":
		spec, _ := obj["spec"].(map[string]any)
		selector := labels.SelectorFromSet(stringMapOf(spec["selector"])).String()
		rel.Pods, err = listAll(ctx, r.c.Pods(namespace), client.ListOptions{LabelSelector: selector, Limit: r.chunkSize})
	case "apps/Deployment":
		// As in kubectl, ReplicaSets that cannot be listed just leave the
		// ReplicaSet lines out.
		if selector, ok := r.selectorOf(obj, "spec", "selector"); ok {
			rel.ReplicaSets, _ = listAll(ctx, r.c.ReplicaSets(namespace), client.ListOptions{LabelSelector: selector, Limit: r.chunkSize})
		}
	case "/Service":
		// kubectl 1.32 lists the Service's EndpointSlices in one request
		// (no chunking); a failure just prints "<none>".
		selector := api.LabelServiceName + "=" + nameOf(obj)
		if list, listErr := r.c.EndpointSlices(namespace).List(ctx, client.ListOptions{LabelSelector: selector}); listErr == nil {
			for _, slice := range list.Items {
				rel.EndpointSlices = append(rel.EndpointSlices, *slice)
			}
		}
	case "/Node":
		name := nameOf(obj)
		selector := "spec.nodeName=" + name + ",status.phase!=" + string(api.PodSucceeded) + ",status.phase!=" + string(api.PodFailed)
		rel.Pods, err = listAll(ctx, r.c.Pods(""), client.ListOptions{FieldSelector: selector, Limit: r.chunkSize})
		if apierrors.IsForbidden(err) {
			rel.PodsErr, err = err, nil
		}
		rel.Lease, rel.LeaseErr = r.c.Leases(api.NamespaceNodeLease).Get(ctx, name, client.GetOptions{})
	case "/Namespace":
		name := nameOf(obj)
		quotas, qErr := listAll(ctx, r.c.ResourceQuotas(name), client.ListOptions{Limit: r.chunkSize})
		switch {
		case qErr == nil:
			rel.ResourceQuotas = &quotas
		case !apierrors.IsNotFound(qErr):
			return rel, qErr
		}
		ranges, lErr := listAll(ctx, r.c.LimitRanges(name), client.ListOptions{Limit: r.chunkSize})
		switch {
		case lErr == nil:
			rel.LimitRanges = &ranges
		case !apierrors.IsNotFound(lErr):
			return rel, lErr
		}
	case "/PersistentVolumeClaim":
		rel.Pods, err = listAll(ctx, r.c.Pods(namespace), client.ListOptions{Limit: r.chunkSize})
	case "/ServiceAccount":
		if secrets, listErr := listAll(ctx, r.c.Secrets(namespace), client.ListOptions{Limit: r.chunkSize}); listErr == nil {
			rel.Secrets = &secrets
		}
	}
	return rel, err
}

// selectorOf reads the label selector at path in obj and renders it in
// query syntax; ok is false when there is none.
func (r relatedFetcher) selectorOf(obj map[string]any, path ...string) (string, bool) {
	var v any = obj
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	if v == nil {
		return "", false
	}
	data, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	var ls api.LabelSelector
	if err := json.Unmarshal(data, &ls); err != nil {
		return "", false
	}
	sel, err := labels.FromLabelSelector(&ls)
	if err != nil {
		return "", false
	}
	return sel.String(), true
}

// stringMapOf reads a JSON object of strings.
func stringMapOf(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := make(map[string]string, len(m))
	for k, val := range m {
		out[k], _ = val.(string)
	}
	return out
}

// listAll lists every object matching opts, following continue tokens,
// and returns the objects by value.
func listAll[T any, P interface {
	*T
	api.Object
}](ctx context.Context, tc *client.TypedClient[P], opts client.ListOptions) ([]T, error) {
	var out []T
	for {
		list, err := tc.List(ctx, opts)
		if err != nil {
			return out, err
		}
		for _, item := range list.Items {
			out = append(out, *item)
		}
		if list.Continue == "" {
			return out, nil
		}
		opts.Continue = list.Continue
	}
}
