package apiserver

import (
	"encoding/binary"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// swaggerGet serves GET /openapi/v2 with the given headers (name, value…).
func swaggerGet(t *testing.T, s *Server, headers ...string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/openapi/v2", nil)
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	s.serveOpenAPIV2(w, r)
	return w
}

// TestOpenAPIV2Negotiation checks that the document comes as JSON or as
// the protobuf client-go asks for, as the Accept header says, with one
// ETag for both, and that a header admitting neither gets a 406 Status.
func TestOpenAPIV2Negotiation(t *testing.T) {
	s := &Server{reg: newRegistry(builtinResources())}
	for _, tc := range []struct {
		accept, wantType string
	}{
		{"", "application/json"},
		{"application/json", "application/json"},
		{"*/*", "application/json"},
		{"application/com.github.proto-openapi.spec.v2@v1.0+protobuf", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"},
		{"application/com.github.proto-openapi.spec.v2.v1.0+protobuf, application/json", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"},
		{"application/com.github.proto-openapi.spec.v2.v1.0+protobuf;q=0.5, application/json", "application/json"},
	} {
		w := swaggerGet(t, s, "Accept", tc.accept)
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != tc.wantType || w.Header().Get("Vary") != "Accept" {
			t.Errorf("Accept %q: %d, Content-Type %q, Vary %q; want 200, %q, Accept", tc.accept, w.Code,
				w.Header().Get("Content-Type"), w.Header().Get("Vary"), tc.wantType)
		}
	}

	jsonAnswer := swaggerGet(t, s, "Accept", "application/json")
	pbAnswer := swaggerGet(t, s, "Accept", contentTypeSwaggerProtobufAsked)
	etag := jsonAnswer.Header().Get("ETag")
	if etag == "" || pbAnswer.Header().Get("ETag") != etag {
		t.Errorf("ETags: JSON %q, protobuf %q; want one, the same", etag, pbAnswer.Header().Get("ETag"))
	}
	if w := swaggerGet(t, s, "Accept", "application/json", "If-None-Match", etag); w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match %s: %d, want 304", etag, w.Code)
	}

	w := swaggerGet(t, s, "Accept", "text/html")
	var status map[string]any
	_ = json.Unmarshal(w.Body.Bytes(), &status)
	if w.Code != http.StatusNotAcceptable || status["kind"] != "Status" || status["reason"] != "NotAcceptable" {
		t.Errorf("Accept text/html: %d %s, want a 406 NotAcceptable Status", w.Code, w.Body.String())
	}
}

// TestOpenAPIV2EveryKindValidates checks what kubectl 1.27/1.28 --validate
// needs of every kind: a PATCH on its item path tagged with the kind and
// taking fieldValidation (otherwise kubectl fails with "couldn't find GVK
// in openapi"), and a definition tagged with the kind (for explain and
// apply's patch strategies).
func TestOpenAPIV2EveryKindValidates(t *testing.T) {
	s := &Server{reg: newRegistry(builtinResources())}
	var doc struct {
		Swagger string `json:"swagger"`
		Paths   map[string]struct {
			Patch struct {
				GVK        map[string]string `json:"x-kubernetes-group-version-kind"`
				Parameters []struct {
					Name, In string
				} `json:"parameters"`
			} `json:"patch"`
		} `json:"paths"`
		Definitions map[string]struct {
			GVK []map[string]string `json:"x-kubernetes-group-version-kind"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(swaggerGet(t, s).Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Swagger != "2.0" {
		t.Errorf("swagger = %q", doc.Swagger)
	}
	for _, res := range s.reg.all {
		gvk := map[string]string{"group": res.group, "version": res.version, "kind": res.kind}
		var patched bool
		for _, p := range doc.Paths {
			if p.Patch.GVK["group"] == res.group && p.Patch.GVK["version"] == res.version && p.Patch.GVK["kind"] == res.kind {
				patched = slices.ContainsFunc(p.Patch.Parameters, func(q struct{ Name, In string }) bool {
					return q.Name == "fieldValidation" && q.In == "query"
				})
			}
		}
		if !patched {
			t.Errorf("%v: no PATCH operation taking fieldValidation", gvk)
		}
		var defined bool
		for _, d := range doc.Definitions {
			for _, g := range d.GVK {
				defined = defined || (g["group"] == res.group && g["version"] == res.version && g["kind"] == res.kind)
			}
		}
		if !defined {
			t.Errorf("%v: no definition carries it", gvk)
		}
	}
}

// TestOpenAPIV2Protobuf reads the protobuf answer by gnostic's field
// numbers (openapiv2/OpenAPIv2.proto), the way client-go decodes it: the
// Deployment's PATCH operation with its kind and fieldValidation, and the
// Deployment definition with its type and kind.
func TestOpenAPIV2Protobuf(t *testing.T) {
	s := &Server{reg: newRegistry(builtinResources())}
	doc := wireFields(t, swaggerGet(t, s, "Accept", contentTypeSwaggerProtobufAsked).Body.Bytes())
	if got := string(doc.one(t, 1)); got != "2.0" {
		t.Errorf("Document.swagger = %q", got)
	}

	// Document.paths(8) → Paths.path(2) → NamedPathItem{name(1), value(2)}.
	var patch wireMessage
	for _, named := range wireFields(t, doc.one(t, 8)).all(2) {
		item := wireFields(t, named)
		if string(item.one(t, 1)) == "/apis/apps/v1/namespaces/{namespace}/deployments/{name}" {
			patch = wireFields(t, wireFields(t, item.one(t, 2)).one(t, 8)) // PathItem.patch(8)
		}
	}
	if patch == nil {
		t.Fatal("no PATCH on the deployments item path")
	}
	if ext := wireExtension(t, patch, 13); ext["x-kubernetes-group-version-kind"] != `{"group":"apps","kind":"Deployment","version":"v1"}` {
		t.Errorf("PATCH vendor extensions = %v", ext)
	}
	var queryParams []string
	for _, p := range patch.all(8) { // Operation.parameters(8)
		param := wireFields(t, wireFields(t, p).one(t, 1)) // ParametersItem.parameter(1)
		if nonBody := param.all(2); len(nonBody) == 1 {    // Parameter.non_body_parameter(2)
			query := wireFields(t, wireFields(t, nonBody[0]).one(t, 3)) // query_parameter_sub_schema(3)
			queryParams = append(queryParams, string(query.one(t, 4)))  // name(4)
		}
	}
	if !slices.Contains(queryParams, "fieldValidation") {
		t.Errorf("PATCH query parameters = %v, want fieldValidation among them", queryParams)
	}

	// Document.definitions(9) → additional_properties(1) → NamedSchema.
	var deployment wireMessage
	for _, named := range wireFields(t, doc.one(t, 9)).all(1) {
		def := wireFields(t, named)
		if string(def.one(t, 1)) == "io.k8s.api.apps.v1.Deployment" {
			deployment = wireFields(t, def.one(t, 2))
		}
	}
	if deployment == nil {
		t.Fatal("no io.k8s.api.apps.v1.Deployment definition")
	}
	if typ := string(wireFields(t, deployment.one(t, 22)).one(t, 1)); typ != "object" { // Schema.type(22).value(1)
		t.Errorf("Deployment type = %q", typ)
	}
	if ext := wireExtension(t, deployment, 31); !strings.Contains(ext["x-kubernetes-group-version-kind"], `"kind":"Deployment"`) {
		t.Errorf("Deployment vendor extensions = %v", ext)
	}
}

// wireMessage is a decoded protobuf message: each length-delimited
// field's occurrences by field number (varints are skipped).
type wireMessage map[int][][]byte

// all returns every occurrence of field num.
func (m wireMessage) all(num int) [][]byte { return m[num] }

// one returns the single occurrence of field num.
func (m wireMessage) one(t *testing.T, num int) []byte {
	t.Helper()
	if len(m[num]) != 1 {
		t.Fatalf("field %d occurs %d times, want once", num, len(m[num]))
	}
	return m[num][0]
}

// wireFields decodes one message's top-level fields.
func wireFields(t *testing.T, b []byte) wireMessage {
	t.Helper()
	m := wireMessage{}
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			t.Fatal("bad field key")
		}
		b = b[n:]
		switch key & 7 {
		case 0: // varint
			_, n = binary.Uvarint(b)
			b = b[n:]
		case 2: // length-delimited
			size, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < size {
				t.Fatal("bad length")
			}
			m[int(key>>3)] = append(m[int(key>>3)], b[n:n+int(size)])
			b = b[n+int(size):]
		default:
			t.Fatalf("unexpected wire type %d", key&7)
		}
	}
	return m
}

// wireExtension reads the vendor extensions (NamedAny{name(1),
// value(2): Any{yaml(2)}}) at field num, by name.
func wireExtension(t *testing.T, m wireMessage, num int) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, named := range m.all(num) {
		ext := wireFields(t, named)
		out[string(ext.one(t, 1))] = string(wireFields(t, ext.one(t, 2)).one(t, 2))
	}
	return out
}
