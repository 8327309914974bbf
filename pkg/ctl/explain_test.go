package ctl

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"kplane/pkg/restmapper"
)

// explainTestDocument is a small hand-written group-version document in
// the shape kplane's apiserver (and upstream's) serves: a kind found
// through its item path, component schemas referring to each other with
// allOf and $ref, a list, two maps, an enum, a type that contains itself
// (Node) and a schema that refers only to itself (Loop). Gadget has a path
// but no schema.
const explainTestDocument = `{
  "openapi": "3.0.0",
  "paths": {
    "/apis/example.com/v1/namespaces/{namespace}/widgets/{name}": {
      "get": {"x-kubernetes-group-version-kind": {"group": "example.com", "version": "v1", "kind": "Widget"}}
    },
    "/apis/example.com/v1/gadgets/{name}": {
      "get": {"x-kubernetes-group-version-kind": {"group": "example.com", "version": "v1", "kind": "Gadget"}}
    }
  },
  "components": {"schemas": {
    "com.example.v1.Widget": {
      "description": "Widget is a thing to explain.",
      "type": "object",
      "required": ["spec"],
      "properties": {
        "kind": {"type": "string", "description": "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to."},
        "spec": {"description": "Spec is what the widget should be.", "default": {}, "allOf": [{"$ref": "#/components/schemas/com.example.v1.WidgetSpec"}]}
      },
      "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Widget"}]
    },
    "com.example.v1.WidgetSpec": {
      "description": "WidgetSpec describes a widget.\n\nIts second paragraph is long enough to be wrapped at seventy-six columns by the template.",
      "type": "object",
      "required": ["replicas"],
      "properties": {
        "replicas": {"type": "integer", "format": "int32", "description": "Replicas is how many."},
        "root": {"allOf": [{"$ref": "#/components/schemas/com.example.v1.Node"}], "description": "Root of a tree of nodes."},
        "nodes": {"type": "array", "items": {"default": {}, "allOf": [{"$ref": "#/components/schemas/com.example.v1.Node"}]}},
        "labels": {"type": "object", "additionalProperties": {"type": "string", "default": ""}},
        "limits": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"}},
        "created": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time"}]},
        "mode": {"type": "string", "enum": ["", "Fast", "Slow", "Medium", "Off"], "description": "Mode picks a speed."},
        "loop": {"$ref": "#/components/schemas/com.example.v1.Loop"},
        "anything": {"x-kubernetes-preserve-unknown-fields": true}
      }
    },
    "com.example.v1.Node": {
      "description": "Node is a node of a tree; its children are nodes.",
      "type": "object",
      "required": ["name"],
      "properties": {
        "name": {"type": "string"},
        "children": {"type": "array", "items": {"$ref": "#/components/schemas/com.example.v1.Node"}},
        "next": {"allOf": [{"$ref": "#/components/schemas/com.example.v1.Node"}]}
      }
    },
    "com.example.v1.Loop": {"allOf": [{"$ref": "#/components/schemas/com.example.v1.Loop"}]},
    "io.k8s.apimachinery.pkg.api.resource.Quantity": {"description": "Quantity is an amount.", "oneOf": [{"type": "string"}, {"type": "number"}]},
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": {"description": "Time is a timestamp.", "type": "string", "format": "date-time"}
  }}
}`

var widgets = groupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

const widgetHeader = "GROUP:      example.com\nKIND:       Widget\nVERSION:    v1\n\n"

// explainTest renders the explanation of a field path of widgets.
func explainTest(t *testing.T, gvr groupVersionResource, path string, recursive bool) (string, error) {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(explainTestDocument), &doc); err != nil {
		t.Fatal(err)
	}
	var fieldPath []string
	if path != "" {
		fieldPath = strings.Split(path, ".")
	}
	var out strings.Builder
	err := explainResource(&out, doc, gvr, fieldPath, recursive)
	return out.String(), err
}

// The expected texts below are what kubectl 1.32's template prints for the
// same document.
func TestExplainRenders(t *testing.T) {
	tests := []struct {
		name      string
		path      string
		recursive bool
		want      string
	}{
		{
			name: "the kind: its description, then its fields sorted, wrapped at 76 columns",
			want: widgetHeader + `DESCRIPTION:
    Widget is a thing to explain.
    
FIELDS:
  kind	<string>
    Kind is a string value representing the REST resource this object
    represents. Servers may infer this from the endpoint the client submits
    requests to.

  spec	<WidgetSpec> -required-
    Spec is what the widget should be.


`,
		},
		{
			name: "a struct field: its description then its type's, and the type's fields",
			path: "spec",
			want: widgetHeader + `FIELD: spec <WidgetSpec>


DESCRIPTION:
    Spec is what the widget should be.
    WidgetSpec describes a widget.
    
    Its second paragraph is long enough to be wrapped at seventy-six columns by
    the template.
    
FIELDS:
  anything	<Object>
    <no description>

  created	<string>
    <no description>

  labels	<map[string]string>
    <no description>

  limits	<map[string]Quantity>
    <no description>

  loop	<Loop>
    <no description>

  mode	<string>
  enum: "", Fast, Slow, Medium, ....
    Mode picks a speed.

  nodes	<[]Node>
    <no description>

  replicas	<integer> -required-
    Replicas is how many.

  root	<Node>
    Root of a tree of nodes.


`,
		},
		{
			name: "a field with an enum",
			path: "spec.mode",
			want: widgetHeader + `FIELD: mode <string>
ENUM:
    ""
    Fast
    Slow
    Medium
    Off

DESCRIPTION:
    Mode picks a speed.
    

`,
		},
		{
			name:      "recursive: a type inside itself is not expanded again",
			recursive: true,
			want: widgetHeader + `DESCRIPTION:
    Widget is a thing to explain.
    
FIELDS:
  kind	<string>
  spec	<WidgetSpec> -required-
    anything	<Object>
    created	<string>
    labels	<map[string]string>
    limits	<map[string]Quantity>
    loop	<Loop>
    mode	<string>
    enum: "", Fast, Slow, Medium, ....
    nodes	<[]Node>
      children	<[]Node>
      name	<string> -required-
      next	<Node>
    replicas	<integer> -required-
    root	<Node>
      children	<[]Node>
      name	<string> -required-
      next	<Node>

`,
		},
		{
			name: "a path may pass through a type that contains itself",
			path: "spec.root.next.next.name",
			want: widgetHeader + "FIELD: name <string>\n\n\nDESCRIPTION:\n    <empty>\n\n",
		},
		{
			name: "a path goes through list items",
			path: "spec.nodes.name",
			want: widgetHeader + "FIELD: name <string>\n\n\nDESCRIPTION:\n    <empty>\n\n",
		},
		{
			name: "a map's description includes its values' type's",
			path: "spec.limits",
			want: widgetHeader + "FIELD: limits <map[string]Quantity>\n\n\nDESCRIPTION:\n    Quantity is an amount.\n    \n\n",
		},
		{
			name: "a reference to a string type is a <string>",
			path: "spec.created",
			want: widgetHeader + "FIELD: created <string>\n\n\nDESCRIPTION:\n    Time is a timestamp.\n    \n\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := explainTest(t, widgets, tt.path, tt.recursive)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("explain %q (recursive %v) =\n%s\nwant\n%s", tt.path, tt.recursive, got, tt.want)
			}
		})
	}
}

func TestExplainErrors(t *testing.T) {
	tests := []struct {
		name    string
		gvr     groupVersionResource
		path    string
		wantOut string
		wantErr string
	}{
		{"an unknown field, named by the path's last element, after the header",
			widgets, "spec.nope.deeper", widgetHeader, `error: field "deeper" does not exist`},
		{"a reference to itself ends the search",
			widgets, "spec.loop.x", widgetHeader, `error: field "x" does not exist`},
		{"a field of a string",
			widgets, "spec.replicas.x", widgetHeader, `error: field "x" does not exist`},
		{"a kind with a path but no schema",
			groupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}, "",
			"GROUP:      example.com\nKIND:       Gadget\nVERSION:    v1\n\n",
			"error: GVK map[group:example.com kind:Gadget version:v1] not found in OpenAPI schema"},
		{"a resource without a path prints no header",
			groupVersionResource{Group: "example.com", Version: "v1", Resource: "things"}, "", "",
			"error: GVR (example.com/v1, Resource=things) not found in OpenAPI schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := explainTest(t, tt.gvr, tt.path, false)
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("err = %v, want %s", err, tt.wantErr)
			}
			if out != tt.wantOut {
				t.Errorf("output = %q, want %q", out, tt.wantOut)
			}
		})
	}
}

func TestTypeGuess(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(explainTestDocument), &doc); err != nil {
		t.Fatal(err)
	}
	e := &explainer{document: doc}
	tests := []struct{ schema, want string }{
		{`{"type": "string"}`, "string"},
		{`{"type": "object"}`, "Object"},
		{`{}`, "Object"},
		{`{"type": "array", "items": {"type": "integer"}}`, "[]integer"},
		{`{"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}}`, "map[string][]string"},
		{`{"type": "object", "additionalProperties": true}`, "Object"},
		{`{"allOf": [{"$ref": "#/components/schemas/com.example.v1.Node"}]}`, "Node"},
		{`{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time"}`, "string"},
		{`{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"}`, "Quantity"},
		{`{"$ref": "#/components/schemas/io.example.Missing"}`, "Missing"},
		{`{"$ref": "#/components/schemas/Trailing."}`, "Object"},
		// Two allOf members, or properties beside allOf: nothing to defer to.
		{`{"allOf": [{"type": "string"}, {"type": "integer"}], "type": "object"}`, "Object"},
	}
	for _, tt := range tests {
		var s map[string]any
		if err := json.Unmarshal([]byte(tt.schema), &s); err != nil {
			t.Fatal(err)
		}
		if got := e.typeGuess(s); got != tt.want {
			t.Errorf("typeGuess(%s) = %q, want %q", tt.schema, got, tt.want)
		}
	}
}

// TestWordWrap checks go-wordwrap's rules, which kubectl 1.32's template
// wraps descriptions with.
func TestWordWrap(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"short", 10, "short"},
		{"aaa bbb ccc", 7, "aaa bbb\nccc"},
		{"aaa bbb ccc", 8, "aaa bbb\nccc"},
		{"aaa bbb ccc", 11, "aaa bbb ccc"},
		// A word as long as the width or longer is never broken.
		{"abcdefghij xyz", 5, "abcdefghij\nxyz"},
		{"ab abcdefghij", 5, "ab\nabcdefghij"},
		// Newlines are kept and restart the count.
		{"one two\nthree four five", 9, "one two\nthree\nfour five"},
		{"a\n\nb", 5, "a\n\nb"},
		// Whitespace inside a line is kept; at a break it goes.
		{"a   b", 10, "a   b"},
		{"aaaa   bbbb", 6, "aaaa\nbbbb"},
		// Trailing whitespace is kept if it fits.
		{"ab  ", 4, "ab  "},
		{"ab   ", 4, "ab"},
		// Runes, not bytes, are counted.
		{"ééé ééé", 7, "ééé ééé"},
		// A no-break space joins words.
		{"aa\u00a0bb cc", 5, "aa\u00a0bb\ncc"},
		{"anything", 0, "anything"},
	}
	for _, tt := range tests {
		if got := wordWrap(tt.in, tt.width); got != tt.want {
			t.Errorf("wordWrap(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
	if got := indent("a\nb\n", 2); got != "  a\n  b\n  " {
		t.Errorf("indent = %q", got)
	}
}

func TestParseExplainArgument(t *testing.T) {
	m := restmapper.New([]restmapper.APIResource{
		{Version: "v1", Name: "pods", SingularName: "pod", Kind: "Pod", ShortNames: []string{"po"}, Namespaced: true, Preferred: true},
		{Group: "apps", Version: "v1", Name: "deployments", SingularName: "deployment", Kind: "Deployment", ShortNames: []string{"deploy"}, Namespaced: true, Preferred: true},
	})
	tests := []struct {
		arg            string
		withAPIVersion bool
		want           groupVersionResource
		wantPath       []string
	}{
		{"pods", false, groupVersionResource{"", "v1", "pods"}, nil},
		{"po.spec.containers", false, groupVersionResource{"", "v1", "pods"}, []string{"spec", "containers"}},
		{"pods.spec.", false, groupVersionResource{"", "v1", "pods"}, []string{"spec"}},
		{"deploy.spec.replicas", false, groupVersionResource{"apps", "v1", "deployments"}, []string{"spec", "replicas"}},
		// The group-qualified name is one name, unless --api-version says
		// the group.
		{"deployments.apps", false, groupVersionResource{"apps", "v1", "deployments"}, nil},
		{"deployments.apps.spec", false, groupVersionResource{"apps", "v1", "deployments"}, []string{"spec"}},
		{"deployments.apps.spec", true, groupVersionResource{"apps", "v1", "deployments"}, []string{"apps", "spec"}},
	}
	for _, tt := range tests {
		gvr, path, err := parseExplainArgument(m, tt.arg, tt.withAPIVersion)
		if err != nil || gvr != tt.want || !reflect.DeepEqual(path, tt.wantPath) {
			t.Errorf("parseExplainArgument(%q, %v) = %v %q %v, want %v %q", tt.arg, tt.withAPIVersion, gvr, path, err, tt.want, tt.wantPath)
		}
	}
	if _, _, err := parseExplainArgument(m, "nope.spec", false); err == nil || err.Error() != `the server doesn't have a resource type "nope"` {
		t.Errorf("unknown resource: %v", err)
	}

	for _, tt := range []struct{ in, group, version, err string }{
		{"apps/v1", "apps", "v1", ""},
		{"v1", "", "v1", ""},
		{"a/b/c", "", "", "unexpected GroupVersion string: a/b/c"},
	} {
		group, version, err := parseGroupVersion(tt.in)
		if group != tt.group || version != tt.version || (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
			t.Errorf("parseGroupVersion(%q) = %q %q %v", tt.in, group, version, err)
		}
	}
}
