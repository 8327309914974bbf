package apiserver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"kplane/pkg/api/openapi"
	"kplane/pkg/apiserver/response"
)

// OpenAPI v3. /openapi/v3 lists one document per group-version
// (/openapi/v3/apis/apps/v1), each holding two things clients read:
//
//   - paths: for each kind, its item path with GET, PUT and PATCH
//     operations tagged with x-kubernetes-group-version-kind. kubectl
//     explain finds a resource's kind there; kubectl apply, create and patch
//     learn from the PATCH operation's fieldValidation parameter that the
//     server checks unknown fields itself (they then send
//     ?fieldValidation=Strict), and from its request body's content types
//     that it accepts strategic merge patches.
//   - components.schemas: the schema of each kind and of every type its
//     fields reach (pkg/api/openapi builds them from the Go types). kubectl
//     explain prints them; kubectl apply takes each list's patch strategy
//     and merge key from them when it computes a strategic merge patch.
//
// The documents depend only on the registered kinds, so they are built
// once, on first request, and served with an immutable cache header and a
// hash in their URL, as upstream does.

// openAPIDocs holds the serialized documents, built once.
type openAPIDocs struct {
	once  sync.Once
	index []byte
	docs  map[string][]byte // "apis/apps/v1" → document
	v2    swaggerDoc        // /openapi/v2 (openapi_v2.go)
}

// buildOpenAPI builds every group-version document and the index that
// points at them, the first time it is called.
func (s *Server) buildOpenAPI() {
	s.openapi.once.Do(func() {
		s.openapi.docs = map[string][]byte{}
		paths := map[string]map[string]string{}
		for _, gv := range s.reg.servedGroupVersions() {
			root := "api/" + gv
			if strings.Contains(gv, "/") {
				root = "apis/" + gv
			}
			body, err := json.Marshal(s.openAPIDocument(gv, root))
			if err != nil {
				// The documents are built from Go values that always
				// marshal; failing here is a programming error.
				panic("openapi: marshal " + root + ": " + err.Error())
			}
			sum := sha256.Sum256(body)
			s.openapi.docs[root] = body
			paths[root] = map[string]string{"serverRelativeURL": "/openapi/v3/" + root + "?hash=" + strings.ToUpper(hex.EncodeToString(sum[:16]))}
		}
		s.openapi.index, _ = json.Marshal(map[string]any{"paths": paths})
	})
}

// openAPIDocument is the document of one group-version: the paths of its
// kinds and the component schemas they need.
func (s *Server) openAPIDocument(gv, root string) map[string]any {
	paths := map[string]any{}
	var kinds []openapi.Kind
	for _, res := range s.reg.discoverable() {
		if res.groupVersion() != gv {
			continue
		}
		if res.createOnly {
			paths[createOnlyPath(res)] = map[string]any{"post": createOperation(res)}
		} else {
			item := "/" + root + "/" + res.plural + "/{name}"
			if res.namespaced {
				item = "/" + root + "/namespaces/{namespace}/" + res.plural + "/{name}"
			}
			paths[item] = itemPathOperations(res)
		}
		kinds = append(kinds, openapi.Kind{
			GroupVersionKind: openapi.GroupVersionKind{Group: res.group, Version: res.version, Kind: res.kind},
			GoType:           res.goType(),
		})
	}
	return map[string]any{
		"openapi":    "3.0.0",
		"info":       map[string]string{"title": "Kubernetes", "version": "v1.32.0"},
		"paths":      paths,
		"components": map[string]any{"schemas": openapi.ComponentSchemas(kinds)},
	}
}

// patchContentTypes are the PATCH bodies the server accepts. kubectl apply
// computes its patch from the kind's schema only when the strategic merge
// patch type is listed here.
var patchContentTypes = []string{
	"application/json-patch+json",
	"application/merge-patch+json",
	"application/strategic-merge-patch+json",
}

// writeQueryParameters are the query parameters of PUT and PATCH, by name
// and description. kubectl learns from fieldValidation's presence on a
// kind's PATCH that the server checks unknown fields itself.
var writeQueryParameters = []struct{ name, description string }{
	{"dryRun", "When present, indicates that modifications should not be persisted."},
	{"fieldManager", "A name associated with the actor or entity that is making these changes."},
	{"fieldValidation", "How the server handles unknown or duplicate fields: Ignore, Warn (the default) or Strict."},
}

// itemPathOperations are the GET, PUT and PATCH operations of a kind's item
// path, each tagged with the kind, as kubectl looks them up.
func itemPathOperations(res *resource) map[string]any {
	gvk := map[string]string{"group": res.group, "version": res.version, "kind": res.kind}
	kindSchema := map[string]string{"$ref": openapi.Ref(openapi.SchemaName(res.goType()))}
	ok := map[string]any{"200": map[string]any{
		"description": "OK",
		"content":     map[string]any{"application/json": map[string]any{"schema": kindSchema}},
	}}
	param := func(name, desc string) map[string]any {
		return map[string]any{"name": name, "in": "query", "description": desc, "schema": map[string]string{"type": "string"}, "uniqueItems": true}
	}
	write := func(action string, contentTypes []string, bodySchema any) map[string]any {
		content := map[string]any{}
		for _, ct := range contentTypes {
			content[ct] = map[string]any{"schema": bodySchema}
		}
		var params []any
		for _, p := range writeQueryParameters {
			params = append(params, param(p.name, p.description))
		}
		return map[string]any{
			"operationId":                     action + res.kind,
			"x-kubernetes-action":             action,
			"x-kubernetes-group-version-kind": gvk,
			"parameters":                      params,
			"requestBody":                     map[string]any{"content": content, "required": true},
			"responses":                       ok,
		}
	}
	return map[string]any{
		"get": map[string]any{
			"operationId":                     "read" + res.kind,
			"x-kubernetes-action":             "get",
			"x-kubernetes-group-version-kind": gvk,
			"responses":                       ok,
		},
		"put":   write("put", []string{"application/json"}, kindSchema),
		"patch": write("patch", patchContentTypes, map[string]string{"type": "object"}),
	}
}

// createOperation is the POST of a create-only resource (a review): the
// kind in, the kind with its status out.
func createOperation(res *resource) map[string]any {
	kindSchema := map[string]string{"$ref": openapi.Ref(openapi.SchemaName(res.goType()))}
	return map[string]any{
		"operationId":                     "create" + res.kind,
		"x-kubernetes-action":             "post",
		"x-kubernetes-group-version-kind": map[string]string{"group": res.group, "version": res.version, "kind": res.kind},
		"requestBody":                     map[string]any{"content": map[string]any{"application/json": map[string]any{"schema": kindSchema}}, "required": true},
		"responses": map[string]any{"201": map[string]any{
			"description": "Created",
			"content":     map[string]any{"application/json": map[string]any{"schema": kindSchema}},
		}},
	}
}

func (s *Server) serveOpenAPIIndex(w http.ResponseWriter, _ *http.Request) {
	s.buildOpenAPI()
	response.WriteRaw(w, http.StatusOK, response.ContentTypeJSON, s.openapi.index)
}

func (s *Server) serveOpenAPIDocument(w http.ResponseWriter, r *http.Request) {
	s.buildOpenAPI()
	doc, ok := s.openapi.docs[strings.TrimPrefix(r.URL.Path, "/openapi/v3/")]
	if !ok {
		response.WriteError(w, response.NotFoundPath())
		return
	}
	w.Header().Set("Cache-Control", "public, immutable")
	response.WriteRaw(w, http.StatusOK, response.ContentTypeJSON, doc)
}
