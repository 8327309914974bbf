package jsonpath

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// service is a Service as the apiserver returns it; the expected outputs
// below were printed by the real kubectl 1.32 for the same object.
const service = `{"apiVersion":"v1","kind":"Service",
 "metadata":{"name":"nginx","namespace":"default","labels":{"app":"nginx"},
   "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"kind\":\"Service\"}\n"},
   "creationTimestamp":"2026-11-22T02:51:30Z"},
 "spec":{"clusterIP":"None","clusterIPs":["None"],
   "ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":80}],
   "selector":{"app":"nginx"},"template":{"metadata":{"creationTimestamp":null}}},
 "status":{"loadBalancer":{}}}`

// list holds three items for the loop, slice and filter cases.
const list = `{"kind":"List","items":[
 {"metadata":{"name":"a"},"status":{"phase":"Running"},"spec":{"replicas":1}},
 {"metadata":{"name":"b"},"status":{"phase":"Pending"},"spec":{"replicas":3}},
 {"metadata":{"name":"c"},"status":{"phase":"Running"},"spec":{"replicas":5}}]}`

func decode(t *testing.T, doc string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestExecute(t *testing.T) {
	svc, items := decode(t, service), decode(t, list)
	tests := []struct {
		template string
		data     any
		want     string
	}{
		{`{.metadata.name}`, svc, "nginx"},
		{`{.foo}`, svc, ""},
		{`{.missing.deep}`, svc, ""},
		{`{.nope[0]}`, svc, ""},
		{`{.metadata.labels}`, svc, `{"app":"nginx"}`},
		{`{.spec.ports}`, svc, `[{"name":"http","port":80,"protocol":"TCP","targetPort":80}]`},
		{`{.spec.ports[*].port}`, svc, "80"},
		{`{.status}`, svc, `{"loadBalancer":{}}`},
		{`{.spec.ports[0]}`, svc, `{"name":"http","port":80,"protocol":"TCP","targetPort":80}`},
		{`x{.kind}y`, svc, "xServicey"},
		{`{..port}`, svc, "80"},
		{`{.spec.ports[?(@.name=="http")].port}`, svc, "80"},
		{`{.spec.ports[?(@.name=="ftp")].port}`, svc, ""},
		{`{.metadata.name}{"\n"}`, svc, "nginx\n"},
		{`{$.kind}`, svc, "Service"},
		{`{@.kind}`, svc, "Service"},
		{`{.spec.clusterIPs}`, svc, `["None"]`},
		{`{.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration}`, svc, "{\"kind\":\"Service\"}\n"},
		{`{.metadata.labels['app']}`, svc, "nginx"},
		{`{.spec.ports[0].port} {.spec.ports[0].targetPort}`, svc, "80 80"},
		{`{range .spec.ports[*]}[{.name}]{end}`, svc, "[http]"},
		{`[{.spec.template.metadata.creationTimestamp}]`, svc, "[null]"},
		{`{.spec.ports[0].protocol}{"\t"}`, svc, "TCP\t"},
		{`{.items[*].metadata.name}`, items, "a b c"},
		{`{.items[0:2].metadata.name}`, items, "a b"},
		{`{.items[-1].metadata.name}`, items, "c"},
		{`{.items[::2].metadata.name}`, items, "a c"},
		{`{.items[*].metadata.name}{"\n"}{.kind}`, items, "a b c\nList"},
		{`{range .items[*]}{.metadata.name}{", "}{end}{"\n"}`, items, "a, b, c, \n"},
		{`{range .items[?(@.status.phase=="Running")]}{.metadata.name}{"\n"}{end}`, items, "a\nc\n"},
		{`{.items[?(@.spec.replicas>1)].metadata.name}`, items, "b c"},
		{`{.items[?(@.spec.replicas!=3)].metadata.name}`, items, "a c"},
		{`{.items[?(@.status)].metadata.name}`, items, "a b c"},
		{`{range .items[*]}{range .metadata}{.name}{end};{end}`, items, "a;b;c;"},
		{`no braces at all`, items, "no braces at all"},
	}
	for _, tt := range tests {
		tmpl, err := Parse(tt.template)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.template, err)
			continue
		}
		var out bytes.Buffer
		if err := tmpl.Execute(&out, tt.data); err != nil {
			t.Errorf("Execute(%q): %v", tt.template, err)
			continue
		}
		if out.String() != tt.want {
			t.Errorf("Execute(%q) = %q, want %q", tt.template, out.String(), tt.want)
		}
	}
}

func TestExecuteErrors(t *testing.T) {
	tmpl, err := Parse(`{.spec.ports[5]}`)
	if err != nil {
		t.Fatal(err)
	}
	err = tmpl.Execute(&bytes.Buffer{}, decode(t, service))
	if err == nil || err.Error() != "array index out of bounds: index 5, length 1" {
		t.Errorf("out of range index: err = %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, template := range []string{
		`{.metadata.name`,
		`{range .items[*]}{.metadata.name}`,
		`{end}`,
		`{.items[}`,
		`{.items[a]}`,
		`{.items[0,1]}`,
		`{"unterminated}`,
		`{.items[::0]}`,
	} {
		if _, err := Parse(template); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", template)
		}
	}
}

func TestResults(t *testing.T) {
	items := decode(t, list)
	tmpl, err := Parse(`{.items[*].metadata.name} and {.kind}`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tmpl.Results(items)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0]) != 3 || got[0][2] != "c" || len(got[1]) != 1 || got[1][0] != "List" {
		t.Errorf("Results = %v", got)
	}
}

func TestRelaxed(t *testing.T) {
	for _, in := range []string{"metadata.name", ".metadata.name", "{metadata.name}", "{.metadata.name}"} {
		if got, err := Relaxed(in); err != nil || got != "{.metadata.name}" {
			t.Errorf("Relaxed(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := Relaxed("{.a}{.b}"); err == nil {
		t.Error("two expressions were accepted")
	}
}
