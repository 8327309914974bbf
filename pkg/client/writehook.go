package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// WriteInfo describes one write the apiserver accepted: what Config.OnWrite
// receives after every successful create, update, patch or delete (of an
// object, a collection or a subresource such as status, binding, scale or
// eviction). It is how a component's debug journal learns which writes the
// component made and which resourceVersion each produced, without this
// package knowing about journals.
type WriteInfo struct {
	// Verb is the Kubernetes verb: create, update, patch, delete or
	// deletecollection.
	Verb string
	// Resource is the resource with its group, as Kubernetes prints it:
	// "pods", "deployments.apps".
	Resource string
	// Subresource is "status", "binding", "scale", "eviction", … or "".
	Subresource string
	// Namespace and Name name the object ("" namespace if cluster-scoped;
	// "" name for a deletecollection). For a create they come from the
	// answer, so a generated name is the one the server chose.
	Namespace, Name string
	// UID, ResourceVersion and Owners (the uids of its ownerReferences)
	// are read from the object the server answered with; they are empty
	// when it answered something else (a Status for a binding or a
	// deletion, a List for a deletecollection).
	UID, ResourceVersion string
	Owners               []string
	// Actor is what WithActor put into the request's context (the
	// controller that made the write), or "".
	Actor string
	// Took is how long the request took, retries included, so a recorder
	// can date the write when it was sent rather than when it returned.
	Took time.Duration
	// Response is the body the server answered with. It is shared: read
	// it, never change it.
	Response []byte
}

// Key is the object's "namespace/name" ("name" if cluster-scoped), the
// key informers and workqueues use.
func (w WriteInfo) Key() string {
	if w.Namespace == "" {
		return w.Name
	}
	return w.Namespace + "/" + w.Name
}

// actorKey keeps this package's context values apart.
type actorKey struct{}

// WithActor returns ctx naming actor (a controller, "deployment") as the
// maker of the writes sent with it; Config.OnWrite finds it in
// WriteInfo.Actor.
func WithActor(ctx context.Context, actor string) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

// ActorFrom returns the actor WithActor put into ctx, or "".
func ActorFrom(ctx context.Context) string {
	actor, _ := ctx.Value(actorKey{}).(string)
	return actor
}

// reportWrite calls the write hook for a request the server accepted. GETs
// and dry runs changed nothing and are not reported.
func (c *Client) reportWrite(ctx context.Context, r *request, resp *response, took time.Duration) {
	if r.method == http.MethodGet || r.method == http.MethodHead || r.query.Get("dryRun") != "" {
		return
	}
	info, ok := parseWritePath(r.method, r.path)
	if !ok {
		return
	}
	info.Actor = ActorFrom(ctx)
	info.Took = took
	info.Response = resp.body
	var answer struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name, Namespace, UID, ResourceVersion string
			OwnerReferences                       []struct {
				UID string `json:"uid"`
			} `json:"ownerReferences"`
		} `json:"metadata"`
	}
	// An answer that is not an object (a Status, a List) keeps only what
	// the path said.
	if json.Unmarshal(resp.body, &answer) == nil && answer.Kind != "Status" && !strings.HasSuffix(answer.Kind, "List") {
		meta := answer.Metadata
		if meta.Name != "" {
			info.Name, info.Namespace = meta.Name, meta.Namespace
		}
		info.UID, info.ResourceVersion = meta.UID, meta.ResourceVersion
		for _, ref := range meta.OwnerReferences {
			info.Owners = append(info.Owners, ref.UID)
		}
	}
	c.onWrite(info)
}

// parseWritePath reads a REST path back into resource, namespace, name and
// subresource — resourcePath's inverse:
//
//	/api/v1/namespaces/default/pods/web-0/binding
//	/apis/apps/v1/namespaces/default/deployments
//	/api/v1/namespaces/kube-system/status   (the Namespace itself)
func parseWritePath(method, path string) (WriteInfo, bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var group string
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		segs = segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		group, segs = segs[1], segs[3:]
	default:
		return WriteInfo{}, false
	}
	var info WriteInfo
	// namespaces/<ns>/<resource>… is a namespaced path, unless what follows
	// the namespace's name is one of the Namespace's own subresources.
	if len(segs) >= 3 && segs[0] == "namespaces" && segs[2] != "status" && segs[2] != "finalize" {
		info.Namespace, segs = unescape(segs[1]), segs[2:]
	}
	info.Resource = segs[0]
	if group != "" {
		info.Resource += "." + group
	}
	if len(segs) > 1 {
		info.Name = unescape(segs[1])
	}
	if len(segs) > 2 {
		info.Subresource = segs[2]
	}
	switch method {
	case http.MethodPost:
		info.Verb = "create"
	case http.MethodPut:
		info.Verb = "update"
	case http.MethodPatch:
		info.Verb = "patch"
	case http.MethodDelete:
		info.Verb = "delete"
		if info.Name == "" {
			info.Verb = "deletecollection"
		}
	default:
		return WriteInfo{}, false
	}
	return info, true
}

func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}
