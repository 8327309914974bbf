package apiserver

import (
	"bytes"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/openapi"
	"kplane/pkg/apiserver/response"
)

// OpenAPI v2. /openapi/v2 is one Swagger 2.0 document for every kind: its
// definitions are the v3 component schemas in v2's spelling
// (openapi.SwaggerDefinitions), and its paths are each kind's item path
// with GET, PUT and PATCH tagged with x-kubernetes-group-version-kind, as in
// the v3 documents.
//
// kubectl 1.27 and 1.28 read it for apply (the patch strategy of each
// list), explain, and --validate: before sending ?fieldValidation=Strict
// they look for that parameter on the PATCH operation of the object's kind,
// and a kind missing from the paths fails validation. Helm's client-go does
// the same. kubectl 1.29 and later read the v3 documents instead.
//
// The document is served as JSON or as the protobuf client-go asks for
// (openapi_v2_protobuf.go), as the Accept header says; both are built once
// and share an ETag, which Vary: Accept keeps apart in caches, as upstream.

// Media types of the protobuf form: client-go asks for the first, and
// upstream answers it with the second.
const (
	contentTypeSwaggerProtobufAsked = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	contentTypeSwaggerProtobuf      = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
)

// swaggerDoc holds the v2 document in both forms, built once.
type swaggerDoc struct {
	once     sync.Once
	json     []byte
	protobuf []byte
	etag     string
	built    time.Time
	err      error
}

// buildSwagger builds the v2 document the first time it is called.
func (s *Server) buildSwagger() {
	s.openapi.v2.once.Do(func() {
		doc, err := json.Marshal(s.swaggerDocument())
		if err != nil {
			s.openapi.v2.err = fmt.Errorf("encode openapi v2 document: %w", err)
			return
		}
		pb, err := swaggerProtobuf(doc)
		if err != nil {
			s.openapi.v2.err = err
			return
		}
		s.openapi.v2.json, s.openapi.v2.protobuf = doc, pb
		s.openapi.v2.etag = fmt.Sprintf("%q", fmt.Sprintf("%X", sha512.Sum512(doc)))
		s.openapi.v2.built = time.Now()
	})
}

// swaggerDocument is the Swagger 2.0 document of every kind served.
func (s *Server) swaggerDocument() map[string]any {
	paths := map[string]any{}
	var kinds []openapi.Kind
	for _, res := range s.reg.discoverable() {
		root := "/api/" + res.groupVersion()
		if res.group != "" {
			root = "/apis/" + res.groupVersion()
		}
		item := root + "/" + res.plural + "/{name}"
		if res.namespaced {
			item = root + "/namespaces/{namespace}/" + res.plural + "/{name}"
		}
		if res.createOnly {
			paths[createOnlyPath(res)] = swaggerCreatePath(res)
		} else {
			paths[item] = swaggerItemPath(res)
		}
		kinds = append(kinds, openapi.Kind{
			GroupVersionKind: openapi.GroupVersionKind{Group: res.group, Version: res.version, Kind: res.kind},
			GoType:           res.goType(),
		})
	}
	return map[string]any{
		"swagger":     "2.0",
		"info":        map[string]string{"title": "Kubernetes", "version": "v1.32.0"},
		"paths":       paths,
		"definitions": openapi.SwaggerDefinitions(kinds),
	}
}

// swaggerItemPath is a kind's item path in Swagger 2.0: the path
// parameters, and GET, PUT and PATCH each tagged with the kind. Where v3
// has a requestBody, v2 has a parameter "in": "body".
func swaggerItemPath(res *resource) map[string]any {
	gvk := map[string]string{"group": res.group, "version": res.version, "kind": res.kind}
	kindSchema := map[string]string{"$ref": openapi.SwaggerRef(openapi.SchemaName(res.goType()))}
	ok := map[string]any{"200": map[string]any{"description": "OK", "schema": kindSchema}}
	write := func(action string, contentTypes []string, bodySchema any) map[string]any {
		params := []any{map[string]any{"name": "body", "in": "body", "required": true, "schema": bodySchema}}
		for _, p := range writeQueryParameters {
			params = append(params, map[string]any{"name": p.name, "in": "query", "description": p.description, "type": "string", "uniqueItems": true})
		}
		return map[string]any{
			"operationId":                     action + res.kind,
			"x-kubernetes-action":             action,
			"x-kubernetes-group-version-kind": gvk,
			"consumes":                        contentTypes,
			"produces":                        []string{response.ContentTypeJSON},
			"parameters":                      params,
			"responses":                       ok,
		}
	}
	pathParams := []any{map[string]any{"name": "name", "in": "path", "required": true, "type": "string", "uniqueItems": true,
		"description": "name of the " + res.kind}}
	if res.namespaced {
		pathParams = append(pathParams, map[string]any{"name": "namespace", "in": "path", "required": true, "type": "string",
			"uniqueItems": true, "description": "object name and auth scope, such as for teams and projects"})
	}
	return map[string]any{
		"parameters": pathParams,
		"get": map[string]any{
			"operationId":                     "read" + res.kind,
			"x-kubernetes-action":             "get",
			"x-kubernetes-group-version-kind": gvk,
			"produces":                        []string{response.ContentTypeJSON},
			"responses":                       ok,
		},
		"put":   write("put", []string{response.ContentTypeJSON}, kindSchema),
		"patch": write("patch", patchContentTypes, map[string]string{"type": "object"}),
	}
}

// swaggerCreatePath is a create-only resource's path in Swagger 2.0: one
// POST taking and returning the kind.
func swaggerCreatePath(res *resource) map[string]any {
	kindSchema := map[string]string{"$ref": openapi.SwaggerRef(openapi.SchemaName(res.goType()))}
	post := map[string]any{
		"operationId":                     "create" + res.kind,
		"x-kubernetes-action":             "post",
		"x-kubernetes-group-version-kind": map[string]string{"group": res.group, "version": res.version, "kind": res.kind},
		"consumes":                        []string{response.ContentTypeJSON},
		"produces":                        []string{response.ContentTypeJSON},
		"parameters":                      []any{map[string]any{"name": "body", "in": "body", "required": true, "schema": kindSchema}},
		"responses":                       map[string]any{"201": map[string]any{"description": "Created", "schema": kindSchema}},
	}
	path := map[string]any{"post": post}
	if res.namespaced {
		path["parameters"] = []any{map[string]any{"name": "namespace", "in": "path", "required": true, "type": "string",
			"uniqueItems": true, "description": "object name and auth scope, such as for teams and projects"}}
	}
	return path
}

// serveOpenAPIV2 answers /openapi/v2 in the first form the Accept header
// admits, JSON or protobuf, as upstream's handler does; it honours
// If-None-Match (and Range) through http.ServeContent. A header that admits
// neither gets 406 Not Acceptable.
func (s *Server) serveOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	s.buildSwagger()
	if s.openapi.v2.err != nil {
		response.WriteError(w, apierrors.NewInternalError(s.openapi.v2.err))
		return
	}
	w.Header().Add("Vary", "Accept")
	for _, mr := range parseAccept(r.Header.Get("Accept")) {
		var body []byte
		switch {
		case mr.matches(response.ContentTypeJSON):
			body = s.openapi.v2.json
			w.Header().Set("Content-Type", response.ContentTypeJSON)
		case mr.mediaType == contentTypeSwaggerProtobufAsked || mr.mediaType == contentTypeSwaggerProtobuf:
			body = s.openapi.v2.protobuf
			w.Header().Set("Content-Type", contentTypeSwaggerProtobuf)
		default:
			continue
		}
		w.Header().Set("ETag", s.openapi.v2.etag)
		http.ServeContent(w, r, "", s.openapi.v2.built, bytes.NewReader(body))
		return
	}
	response.WriteError(w, &apierrors.StatusError{ErrStatus: api.Status{Code: http.StatusNotAcceptable, Reason: apierrors.ReasonNotAcceptable,
		Message: "only the following media types are accepted: " + strings.Join([]string{response.ContentTypeJSON, contentTypeSwaggerProtobuf}, ", ")}})
}
