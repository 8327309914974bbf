package apiserver

import (
	"bytes"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"maps"
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
// (again after a CRD change, openapi_customresources.go) and share an ETag,
// which Vary: Accept keeps apart in caches, as upstream.

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

// build encodes the document parts describe, in both forms, the first
// time it is called, and returns d.
func (d *swaggerDoc) build(parts func() swaggerParts) *swaggerDoc {
	d.once.Do(func() {
		doc, err := json.Marshal(parts().document())
		if err != nil {
			d.err = fmt.Errorf("encode openapi v2 document: %w", err)
			return
		}
		pb, err := swaggerProtobuf(doc)
		if err != nil {
			d.err = err
			return
		}
		d.json, d.protobuf = doc, pb
		d.etag = fmt.Sprintf("%q", fmt.Sprintf("%X", sha512.Sum512(doc)))
		d.built = time.Now()
	})
	return d
}

// swaggerParts are the paths and definitions of a Swagger 2.0 document.
// The built-in kinds' parts are built once; the document with custom
// resources merges theirs into a copy.
type swaggerParts struct {
	paths       map[string]any
	definitions map[string]*openapi.Schema
}

// builtinSwaggerParts returns the paths and definitions of every built-in
// kind, built the first time it is called.
func (s *Server) builtinSwaggerParts() swaggerParts {
	s.openapi.v2partsOnce.Do(func() {
		s.openapi.v2parts.paths, s.openapi.v2parts.definitions = swaggerPartsOf(s.reg.discoverable())
	})
	return s.openapi.v2parts
}

// builtinSwagger returns the v2 document of the built-in kinds alone.
func (s *Server) builtinSwagger() *swaggerDoc {
	return s.openapi.v2.build(s.builtinSwaggerParts)
}

// swaggerPartsOf are the paths and definitions of resources: built from
// the Go types for built-in kinds, from the CRD's schema for custom ones.
func swaggerPartsOf(resources []*resource) (map[string]any, map[string]*openapi.Schema) {
	paths := map[string]any{}
	definitions := map[string]*openapi.Schema{}
	var kinds []openapi.Kind
	for _, res := range resources {
		if res.createOnly {
			paths[createOnlyPath(res)] = swaggerCreatePath(res)
		} else {
			paths[itemPath("/"+openAPIRoot(res.groupVersion()), res)] = swaggerItemPath(res)
		}
		if res.custom != nil {
			maps.Copy(definitions, openapi.CustomResourceSwaggerDefinitions(res.custom.crd, res.version))
			continue
		}
		kinds = append(kinds, openapi.Kind{
			GroupVersionKind: openapi.GroupVersionKind{Group: res.group, Version: res.version, Kind: res.kind},
			GoType:           res.goType(),
		})
	}
	if len(kinds) > 0 {
		maps.Copy(definitions, openapi.SwaggerDefinitions(kinds))
	}
	return paths, definitions
}

// document is the Swagger 2.0 document of the parts.
func (p swaggerParts) document() map[string]any {
	return map[string]any{
		"swagger":     "2.0",
		"info":        map[string]string{"title": "Kubernetes", "version": "v1.32.0"},
		"paths":       p.paths,
		"definitions": p.definitions,
	}
}

// swaggerItemPath is a kind's item path in Swagger 2.0: the path
// parameters, and GET, PUT and PATCH (GET alone for a probed kind) each
// tagged with the kind. Where v3
// has a requestBody, v2 has a parameter "in": "body".
func swaggerItemPath(res *resource) map[string]any {
	gvk := map[string]string{"group": res.group, "version": res.version, "kind": res.kind}
	kindSchema := map[string]string{"$ref": openapi.SwaggerRef(kindSchemaName(res))}
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
	ops := map[string]any{
		"parameters": pathParams,
		"get": map[string]any{
			"operationId":                     "read" + res.kind,
			"x-kubernetes-action":             "get",
			"x-kubernetes-group-version-kind": gvk,
			"produces":                        []string{response.ContentTypeJSON},
			"responses":                       ok,
		},
		"put":   write("put", []string{response.ContentTypeJSON}, kindSchema),
		"patch": write("patch", patchContentTypesOf(res), map[string]string{"type": "object"}),
	}
	if res.probed {
		delete(ops, "put")
		delete(ops, "patch")
	}
	return ops
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
	doc := s.swagger()
	if doc.err != nil {
		response.WriteError(w, apierrors.NewInternalError(doc.err))
		return
	}
	w.Header().Add("Vary", "Accept")
	for _, mr := range parseAccept(r.Header.Get("Accept")) {
		var body []byte
		switch {
		case mr.matches(response.ContentTypeJSON):
			body = doc.json
			w.Header().Set("Content-Type", response.ContentTypeJSON)
		case mr.mediaType == contentTypeSwaggerProtobufAsked || mr.mediaType == contentTypeSwaggerProtobuf:
			body = doc.protobuf
			w.Header().Set("Content-Type", contentTypeSwaggerProtobuf)
		default:
			continue
		}
		w.Header().Set("ETag", doc.etag)
		http.ServeContent(w, r, "", doc.built, bytes.NewReader(body))
		return
	}
	response.WriteError(w, &apierrors.StatusError{ErrStatus: api.Status{Code: http.StatusNotAcceptable, Reason: apierrors.ReasonNotAcceptable,
		Message: "only the following media types are accepted: " + strings.Join([]string{response.ContentTypeJSON, contentTypeSwaggerProtobuf}, ", ")}})
}
