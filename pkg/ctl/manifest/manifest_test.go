package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// summary renders items as "source:name" or "source:ERR message".
func summary(items []Item) []string {
	var out []string
	for _, it := range items {
		if it.Err != nil {
			out = append(out, it.Source+":ERR "+it.Err.Error())
			continue
		}
		meta, _ := it.Object["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		out = append(out, it.Source+":"+name)
	}
	return out
}

func check(t *testing.T, got []Item, want ...string) {
	t.Helper()
	g := summary(got)
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("items:\n  %s\nwant:\n  %s", strings.Join(g, "\n  "), strings.Join(want, "\n  "))
	}
}

// The error texts below are what kubectl 1.32 prints for the same files.
func TestMalformedFilesNameFileAndLine(t *testing.T) {
	dir := t.TempDir()
	bad := write(t, dir, "bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  a: b\n  c: d: e\n")
	check(t, Read([]string{bad}, false, nil),
		bad+":ERR error parsing "+bad+": error converting YAML to JSON: yaml: line 7: mapping values are not allowed in this context")

	// The second document is broken: the first is still returned, and the
	// line counts from the start of the broken document.
	bad2 := write(t, dir, "bad2.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad2\n data:\n  x: y\n")
	check(t, Read([]string{bad2}, false, nil),
		bad2+":ok1",
		bad2+":ERR error parsing "+bad2+": error converting YAML to JSON: yaml: line 4: did not find expected key")

	badJSON := write(t, dir, "bad.json", `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"},, }`)
	check(t, Read([]string{badJSON}, false, nil),
		badJSON+":ERR error parsing "+badJSON+": json: offset 69: invalid character ',' looking for beginning of object key string")

	// A line starting with "---" and more than a comment is no separator
	// and no content: kubectl stops there, dropping the document it is in.
	badSep := write(t, dir, "badsep.yaml", "kind: A\nmetadata:\n  name: a\n--- {kind: B}\n")
	check(t, Read([]string{badSep}, false, nil),
		badSep+":ERR error parsing "+badSep+": invalid Yaml document separator: {kind: B}")
	badSep2 := write(t, dir, "badsep2.yaml", "kind: A\nmetadata:\n  name: a\n---\nkind: B\nmetadata:\n  name: b\n---x\nkind: C\n")
	check(t, Read([]string{badSep2}, false, nil),
		badSep2+":a",
		badSep2+":ERR error parsing "+badSep2+": invalid Yaml document separator: x")

	scalar := write(t, dir, "scalar.yaml", "just a string\n")
	check(t, Read([]string{scalar}, false, nil),
		scalar+":ERR error parsing "+scalar+": error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type map[string]interface {}")
}

func TestDocumentsAndLists(t *testing.T) {
	dir := t.TempDir()
	multi := write(t, dir, "multi.yaml", `# leading comment
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: one
--- # a comment after the separator
apiVersion: v1
kind: ConfigMap
metadata:
  name: two
---
# only a comment
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: three
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: four
`)
	check(t, Read([]string{multi}, false, nil), multi+":one", multi+":two", multi+":three", multi+":four")

	stream := write(t, dir, "stream.json", `{"kind":"ConfigMap","metadata":{"name":"j1"}}
{"kind":"ConfigMap","metadata":{"name":"j2","x":12345678901234567890}}`)
	items := Read([]string{stream}, false, nil)
	check(t, items, stream+":j1", stream+":j2")
	if n := items[1].Object["metadata"].(map[string]any)["x"]; n == nil || n.(interface{ String() string }).String() != "12345678901234567890" {
		t.Errorf("a big number lost its digits: %v", n)
	}

	check(t, Read([]string{"-"}, false, strings.NewReader("kind: ConfigMap\nmetadata:\n  name: piped\n")), "STDIN:piped")
}

func TestDirectories(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "b.yaml", "kind: ConfigMap\nmetadata:\n  name: b\n")
	write(t, dir, "a.yml", "kind: ConfigMap\nmetadata:\n  name: a\n")
	write(t, dir, "c.json", `{"kind":"ConfigMap","metadata":{"name":"c"}}`)
	write(t, dir, "notes.txt", "not a manifest")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "sub"), "d.yaml", "kind: ConfigMap\nmetadata:\n  name: d\n")
	check(t, Read([]string{dir}, false, nil),
		filepath.Join(dir, "a.yml")+":a", filepath.Join(dir, "b.yaml")+":b", filepath.Join(dir, "c.json")+":c")
	// -R: subdirectories too, in the order filepath.Walk visits them.
	write(t, filepath.Join(dir, "sub"), "e.txt", "not a manifest")
	check(t, Read([]string{dir}, true, nil),
		filepath.Join(dir, "a.yml")+":a", filepath.Join(dir, "b.yaml")+":b", filepath.Join(dir, "c.json")+":c",
		filepath.Join(dir, "sub", "d.yaml")+":d")

	empty := t.TempDir()
	check(t, Read([]string{empty, filepath.Join(dir, "nope.yaml")}, false, nil),
		empty+":ERR error reading ["+empty+"]: recognized file extensions are [.json .yaml .yml]",
		filepath.Join(dir, "nope.yaml")+`:ERR the path "`+filepath.Join(dir, "nope.yaml")+`" does not exist`)
}
