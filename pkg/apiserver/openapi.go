package apiserver

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

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
//     whether it accepts strategic merge patches (a custom kind does not).
//   - components.schemas: the schema of each kind and of every type its
//     fields reach (pkg/api/openapi builds them from the Go types). kubectl
//     explain prints them; kubectl apply takes each list's patch strategy
//     and merge key from them when it computes a strategic merge patch.
//
// The built-in kinds' documents depend only on the registry, so they are
// built once, on first request. A CustomResourceDefinition adds a document
// for each group-version it serves (openapi_customresources.go), rebuilt
// when the CRDs change. Each document's URL in the index carries a hash of
// its content; asked with that hash, it is served with an immutable cache
// header, and asked with an older one, the client is redirected to the
// current one, as upstream does.

// openAPIDocs holds the built-in kinds' documents, built once.
type openAPIDocs struct {
	once sync.Once
	// index is the index's "paths": root → {"serverRelativeURL": …}.
	index map[string]any
	// indexJSON is index encoded as the /openapi/v3 answer.
	indexJSON []byte
	docs      map[string]openAPIDocument // "apis/apps/v1" → document
	v2        swaggerDoc                 // /openapi/v2 (openapi_v2.go)
	// v2parts are what v2 is made of, kept to merge CRDs' parts into.
	v2partsOnce sync.Once
	v2parts     swaggerParts
}

// openAPIDocument is one group-version document, encoded, with the hash
// that names its content in the index's URL and in its ETag.
type openAPIDocument struct {
	body []byte
	hash string
}

// newOpenAPIDocument encodes doc, the document of root, and hashes it.
func newOpenAPIDocument(root string, doc map[string]any) openAPIDocument {
	body, err := json.Marshal(doc)
	if err != nil {
		// The documents are built from Go values that always
		// marshal; failing here is a programming error.
		panic("openapi: marshal " + root + ": " + err.Error())
	}
	sum := sha256.Sum256(body)
	return openAPIDocument{body: body, hash: strings.ToUpper(hex.EncodeToString(sum[:16]))}
}

// url is where the index points a client for the document of root.
func (d openAPIDocument) url(root string) string {
	return "/openapi/v3/" + root + "?hash=" + d.hash
}

// openAPIRoot is the document path of a group-version: "api/v1" for the
// core group, "apis/<group>/<version>" for the others.
func openAPIRoot(gv string) string {
	if strings.Contains(gv, "/") {
		return "apis/" + gv
	}
	return "api/" + gv
}

// buildOpenAPI builds every built-in group-version document and the index
// that points at them, the first time it is called.
func (s *Server) buildOpenAPI() {
	s.openapi.once.Do(func() {
		s.openapi.docs = map[string]openAPIDocument{}
		s.openapi.index = map[string]any{}
		byGV := map[string][]*resource{}
		for _, res := range s.reg.discoverable() {
			byGV[res.groupVersion()] = append(byGV[res.groupVersion()], res)
		}
		for _, gv := range s.reg.servedGroupVersions() {
			root := openAPIRoot(gv)
			doc := newOpenAPIDocument(root, openAPIDocumentOf(root, byGV[gv]))
			s.openapi.docs[root] = doc
			s.openapi.index[root] = map[string]string{"serverRelativeURL": doc.url(root)}
		}
		s.openapi.indexJSON = openAPIIndexJSON(s.openapi.index)
	})
}

// openAPIIndexJSON encodes the /openapi/v3 answer listing paths.
func openAPIIndexJSON(paths map[string]any) []byte {
	body, err := json.Marshal(map[string]any{"paths": paths})
	if err != nil {
		panic("openapi: marshal index: " + err.Error())
	}
	return body
}

// openAPIDocumentOf is the document of one group-version: the paths of
// its kinds (resources) and the component schemas they need — built from
// the Go types for built-in kinds, from the CRD's schema for custom ones.
func openAPIDocumentOf(root string, resources []*resource) map[string]any {
	paths := map[string]any{}
	var kinds []openapi.Kind
	schemas := map[string]*openapi.Schema{}
	for _, res := range resources {
		if res.createOnly {
			paths[createOnlyPath(res)] = map[string]any{"post": createOperation(res)}
		} else {
			paths[itemPath("/"+root, res)] = itemPathOperations(res)
		}
		if res.custom != nil {
			maps.Copy(schemas, openapi.CustomResourceSchemas(res.custom.crd, res.version))
			continue
		}
		kinds = append(kinds, openapi.Kind{
			GroupVersionKind: openapi.GroupVersionKind{Group: res.group, Version: res.version, Kind: res.kind},
			GoType:           res.goType(),
		})
	}
	if len(kinds) > 0 {
		maps.Copy(schemas, openapi.ComponentSchemas(kinds))
	}
	return map[string]any{
		"openapi":    "3.0.0",
		"info":       map[string]string{"title": "Kubernetes", "version": "v1.32.0"},
		"paths":      paths,
		"components": map[string]any{"schemas": schemas},
	}
}

// itemPath is the path of one object of res under root ("/apis/apps/v1").
func itemPath(root string, res *resource) string {
	if res.namespaced {
		return root + "/namespaces/{namespace}/" + res.plural + "/{name}"
	}
	return root + "/" + res.plural + "/{name}"
}

// kindSchemaName is the component name of res's kind:
// io.k8s.api.apps.v1.Deployment for a built-in, com.example.stable.v1.CronTab
// for a custom resource.
func kindSchemaName(res *resource) string {
	if res.custom != nil {
		return openapi.CustomResourceSchemaName(res.group, res.version, res.kind)
	}
	return openapi.SchemaName(res.goType())
}

// patchContentTypesOf are the PATCH bodies res accepts. A custom resource
// has no Go struct whose tags say how its lists merge, so, as upstream,
// it takes no strategic merge patch: kubectl apply, edit and patch then
// send a JSON merge patch.
func patchContentTypesOf(res *resource) []string {
	if res.custom != nil {
		return customPatchContentTypes
	}
	return patchContentTypes
}

// customPatchContentTypes are the PATCH bodies a custom resource accepts:
// server-side apply (customresource_apply.go), but no strategic merge patch.
var customPatchContentTypes = []string{
	"application/json-patch+json",
	"application/merge-patch+json",
	"application/apply-patch+yaml",
}

// patchContentTypes are the PATCH bodies a built-in kind accepts, server-
// side apply (customresource_apply.go) among them, as upstream lists them. kubectl apply
// computes its patch from the kind's schema only when the strategic merge
// patch type is listed here.
var patchContentTypes = []string{
	"application/json-patch+json",
	"application/merge-patch+json",
	"application/strategic-merge-patch+json",
	"application/apply-patch+yaml",
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
// path (GET alone for a probed one), each tagged with the kind, as kubectl
// looks them up.
func itemPathOperations(res *resource) map[string]any {
	gvk := map[string]string{"group": res.group, "version": res.version, "kind": res.kind}
	kindSchema := map[string]string{"$ref": openapi.Ref(kindSchemaName(res))}
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
	ops := map[string]any{
		"get": map[string]any{
			"operationId":                     "read" + res.kind,
			"x-kubernetes-action":             "get",
			"x-kubernetes-group-version-kind": gvk,
			"responses":                       ok,
		},
		"put":   write("put", []string{"application/json"}, kindSchema),
		"patch": write("patch", patchContentTypesOf(res), map[string]string{"type": "object"}),
	}
	if res.probed {
		delete(ops, "put")
		delete(ops, "patch")
	}
	return ops
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

// serveOpenAPIIndex answers /openapi/v3: the URL of every group-version
// document, built-in and custom.
func (s *Server) serveOpenAPIIndex(w http.ResponseWriter, _ *http.Request) {
	response.WriteRaw(w, http.StatusOK, response.ContentTypeJSON, s.openAPIIndex())
}

// serveOpenAPIDocument answers /openapi/v3/<root>, as upstream's handler:
// the ETag is the document's hash and If-None-Match is honoured; asked with
// the current ?hash= it may be cached for good, asked with another it
// redirects to the current URL (the document changed since the client read
// the index).
func (s *Server) serveOpenAPIDocument(w http.ResponseWriter, r *http.Request) {
	root := strings.TrimPrefix(r.URL.Path, "/openapi/v3/")
	doc, ok := s.openAPIDocumentAt(root)
	if !ok {
		response.WriteError(w, response.NotFoundPath())
		return
	}
	w.Header().Set("ETag", strconv.Quote(doc.hash))
	if hash := r.URL.Query().Get("hash"); hash != "" {
		if hash != doc.hash {
			http.Redirect(w, r, doc.url(root), http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Cache-Control", "public, immutable")
		// A year from now: upstream's "never expires".
		w.Header().Set("Expires", time.Now().AddDate(1, 0, 0).UTC().Format(http.TimeFormat))
	}
	w.Header().Set("Content-Type", response.ContentTypeJSON)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(doc.body))
}
