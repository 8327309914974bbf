package printers

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// decodeObjects decodes JSON objects the way ctl's client does (numbers
// kept as json.Number).
func decodeObjects(t *testing.T, docs ...string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, doc := range docs {
		dec := json.NewDecoder(strings.NewReader(doc))
		dec.UseNumber()
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			t.Fatal(err)
		}
		out = append(out, obj)
	}
	return out
}

func TestCustomColumns(t *testing.T) {
	objects := decodeObjects(t,
		`{"metadata":{"name":"web-0","labels":{"app":"web","tier":"fe"}},"spec":{"containers":[{"image":"nginx"},{"image":"busybox"}]},"status":{"restarts":3}}`,
		`{"metadata":{"name":"db"},"spec":{"containers":[{"image":"postgres"}]}}`)
	c, err := ParseCustomColumns("NAME:.metadata.name,IMAGES:spec.containers[*].image,LABELS:{.metadata.labels},R:{.status.restarts}")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := c.Print(&b, objects); err != nil {
		t.Fatal(err)
	}
	// Several values join with commas, maps print as Go prints them,
	// a missing value is <none>; columns are aligned as kubectl's.
	want := "" +
		"NAME    IMAGES          LABELS                 R\n" +
		"web-0   nginx,busybox   map[app:web tier:fe]   3\n" +
		"db      postgres        <none>                 <none>\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}

	c.NoHeaders = true
	b.Reset()
	c.Print(&b, objects[1:])
	if b.String() != "db    postgres   <none>   <none>\n" {
		t.Errorf("--no-headers: %q", b.String())
	}
}

func TestCustomColumnsFile(t *testing.T) {
	c, err := ParseCustomColumnsFile(strings.NewReader("NAME   IMAGE\n.metadata.name   {.spec.containers[0].image}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	c.Print(&b, decodeObjects(t, `{"metadata":{"name":"db"},"spec":{"containers":[{"image":"postgres"}]}}`))
	if b.String() != "NAME   IMAGE\ndb     postgres\n" {
		t.Errorf("got %q", b.String())
	}
	if _, err := ParseCustomColumnsFile(strings.NewReader("A B\n.a\n")); err == nil || err.Error() != "number of headers (2) and field specifications (1) don't match" {
		t.Errorf("mismatched file: %v", err)
	}
}

func TestCustomColumnsErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"":             "custom-columns format specified but no custom columns given",
		"NAME":         "unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>",
		"A:.a,B":       "unexpected custom-columns spec: B, expected <header>:<json-path-expr>",
		"A:{.a}{.b}":   "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'",
		"A:.metadata[": "",
	} {
		_, err := ParseCustomColumns(spec)
		if err == nil || (want != "" && err.Error() != want) {
			t.Errorf("ParseCustomColumns(%q) = %v, want %q", spec, err, want)
		}
	}
}

func TestGoTemplate(t *testing.T) {
	obj := decodeObjects(t, `{"metadata":{"name":"s"},"data":{"k":"aGk="},"spec":{"ports":[{"port":80}]}}`)[0]
	tmpl, err := ParseGoTemplate(`{{.metadata.name}} {{.nope}} {{base64decode .data.k}} {{exists . "spec" "ports" 0}} {{exists . "spec" "x"}} {{(index .spec.ports 0).port}}`)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, obj); err != nil {
		t.Fatal(err)
	}
	if b.String() != "s <no value> hi true false 80" {
		t.Errorf("got %q", b.String())
	}
	if _, err := ParseGoTemplate("{{.a"); err == nil || err.Error() != "error parsing template {{.a, template: output:1: unclosed action" {
		t.Errorf("parse error: %v", err)
	}
	bad, _ := ParseGoTemplate("{{index .metadata 3}}")
	if err := bad.Execute(&b, obj); err == nil || !strings.HasPrefix(err.Error(), `error executing template "{{index .metadata 3}}": `) {
		t.Errorf("execution error: %v", err)
	}
}
