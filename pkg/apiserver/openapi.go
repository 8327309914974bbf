package apiserver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
)

// OpenAPI v3. kubectl apply, create and patch validate with
// `--validate=strict` by default: they first read /openapi/v3 to learn
// whether the server checks fields itself (a `fieldValidation` query
// parameter on the PATCH operation of the kind), and if so send
// `?fieldValidation=Strict` and leave unknown-field errors to the server.
// These documents carry exactly that: for each kind, its item path with a
// PATCH operation tagged with x-kubernetes-group-version-kind.

type openAPIDocs struct {
	once  sync.Once
	index []byte
	docs  map[string][]byte // "apis/apps/v1" → document
}

func (s *Server) buildOpenAPI() {
	s.openapi.once.Do(func() {
		s.openapi.docs = map[string][]byte{}
		paths := map[string]map[string]string{}
		for _, gv := range s.reg.groupVersions() {
			root := "api/" + gv
			if strings.Contains(gv, "/") {
				root = "apis/" + gv
			}
			doc := s.openAPIDocument(gv, root)
			body, _ := json.Marshal(doc)
			sum := sha256.Sum256(body)
			s.openapi.docs[root] = body
			paths[root] = map[string]string{"serverRelativeURL": "/openapi/v3/" + root + "?hash=" + strings.ToUpper(hex.EncodeToString(sum[:16]))}
		}
		s.openapi.index, _ = json.Marshal(map[string]any{"paths": paths})
	})
}

func (s *Server) openAPIDocument(gv, root string) map[string]any {
	paths := map[string]any{}
	for _, res := range s.reg.all {
		if res.groupVersion() != gv {
			continue
		}
		item := "/" + root + "/" + res.plural + "/{name}"
		if res.namespaced {
			item = "/" + root + "/namespaces/{namespace}/" + res.plural + "/{name}"
		}
		gvk := map[string]string{"group": res.group, "version": res.version, "kind": res.kind}
		param := func(name, desc string) map[string]any {
			return map[string]any{"name": name, "in": "query", "description": desc, "schema": map[string]string{"type": "string"}, "uniqueItems": true}
		}
		op := func(action string) map[string]any {
			return map[string]any{
				"operationId":                     action + res.kind,
				"x-kubernetes-action":             action,
				"x-kubernetes-group-version-kind": gvk,
				"parameters": []any{
					param("dryRun", "When present, indicates that modifications should not be persisted."),
					param("fieldManager", "A name associated with the actor or entity that is making these changes."),
					param("fieldValidation", "How the server handles unknown or duplicate fields: Ignore, Warn (the default) or Strict."),
				},
				"responses": map[string]any{"200": map[string]any{"description": "OK"}},
			}
		}
		paths[item] = map[string]any{
			"get":   map[string]any{"operationId": "read" + res.kind, "x-kubernetes-action": "get", "x-kubernetes-group-version-kind": gvk, "responses": map[string]any{"200": map[string]any{"description": "OK"}}},
			"put":   op("put"),
			"patch": op("patch"),
		}
	}
	return map[string]any{
		"openapi": "3.0.0",
		"info":    map[string]string{"title": "Kubernetes", "version": "v1.32.0"},
		"paths":   paths,
	}
}

func (s *Server) serveOpenAPIIndex(w http.ResponseWriter, _ *http.Request) {
	s.buildOpenAPI()
	writeRaw(w, http.StatusOK, contentTypeJSON, s.openapi.index)
}

func (s *Server) serveOpenAPIDocument(w http.ResponseWriter, r *http.Request) {
	s.buildOpenAPI()
	doc, ok := s.openapi.docs[strings.TrimPrefix(r.URL.Path, "/openapi/v3/")]
	if !ok {
		writeError(w, notFoundPath())
		return
	}
	w.Header().Set("Cache-Control", "public, immutable")
	writeRaw(w, http.StatusOK, contentTypeJSON, doc)
}
