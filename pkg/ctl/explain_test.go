package ctl

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"kplane/pkg/api"
)

func TestExplainField(t *testing.T) {
	got, err := explain("apps", "v1", "Deployment", reflect.TypeFor[api.Deployment](), []string{"spec", "replicas"}, false)
	if err != nil {
		t.Fatal(err)
	}
	// The template's layout: header, FIELD line, DESCRIPTION (here none
	// documented), a closing blank line, no FIELDS for a number.
	want := "GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\n" +
		"FIELD: replicas <integer>\n\n" +
		"DESCRIPTION:\n    <empty>\n\n"
	if got != want {
		t.Errorf("explain deploy.spec.replicas =\n%q\nwant\n%q", got, want)
	}
}

func TestExplainWalksListsAndDescribesTypes(t *testing.T) {
	got, err := explain("", "v1", "Pod", reflect.TypeFor[api.Pod](), []string{"spec", "containers"}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"KIND:       Pod\nVERSION:    v1\n\nFIELD: containers <[]Container>\n\n",
		// The element type's doc comment follows, indented, and the
		// description ends with an indented empty line, as in kubectl.
		"DESCRIPTION:\n    " + apiDocs["Container"] + "\n    \nFIELDS:\n",
		"  image\t<string>\n    <no description>\n\n",
		"  name\t<string> -required-\n",
		"  resources\t<ResourceRequirements>\n",
		"  env\t<[]EnvVar>\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("explain pod.spec.containers lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "GROUP:") {
		t.Error("a core kind has no GROUP line")
	}
	// Fields are sorted by name.
	if strings.Index(got, "  args\t") > strings.Index(got, "  command\t") {
		t.Errorf("fields are not sorted:\n%s", got)
	}
}

func TestExplainUnknownField(t *testing.T) {
	_, err := explain("apps", "v1", "Deployment", reflect.TypeFor[api.Deployment](), []string{"spec", "nope"}, false)
	if err == nil || err.Error() != `field "nope" does not exist` {
		t.Errorf("err = %v", err)
	}
}

// node is a type that contains itself, as JSON schemas sometimes do.
type node struct {
	Name     string `json:"name"`
	Children []node `json:"children,omitempty"`
	Next     *node  `json:"next,omitempty"`
}

func TestExplainRecursiveStopsAtCycles(t *testing.T) {
	got, err := explain("", "v1", "Tree", reflect.TypeFor[struct {
		Root node `json:"root"`
	}](), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	want := "KIND:       Tree\nVERSION:    v1\n\nDESCRIPTION:\n    <empty>\n" +
		"FIELDS:\n" +
		"  root\t<node> -required-\n" +
		"    children\t<[]node>\n" +
		"    name\t<string> -required-\n" +
		"    next\t<node>\n" +
		"\n"
	if got != want {
		t.Errorf("recursive =\n%s\nwant\n%s", got, want)
	}
}

func TestTypeNames(t *testing.T) {
	pod := reflect.TypeFor[api.Pod]()
	walkTypes := []struct{ path, want string }{
		{"metadata.creationTimestamp", "string"},
		{"metadata.labels", "map[string]string"},
		{"metadata.generation", "integer"},
		{"spec.containers.resources.limits", "map[string]Quantity"},
		{"spec.containers.ports.containerPort", "integer"},
		{"spec.hostNetwork", "boolean"},
		{"spec.containers.livenessProbe.httpGet.port", "IntOrString"},
		{"spec.volumes", "[]Volume"},
	}
	for _, w := range walkTypes {
		out, err := explain("", "v1", "Pod", pod, strings.Split(w.path, "."), false)
		if err != nil {
			t.Errorf("%s: %v", w.path, err)
			continue
		}
		line := out[strings.Index(out, "FIELD: "):]
		line = line[:strings.Index(line, "\n")]
		last := w.path[strings.LastIndex(w.path, ".")+1:]
		if want := "FIELD: " + last + " <" + w.want + ">"; !strings.HasPrefix(line, want) {
			t.Errorf("%s: %q, want %q", w.path, line, want)
		}
	}
}

func TestWrapText(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"short", 10, "short"},
		{"aaa bbb ccc", 7, "aaa bbb\nccc"},
		{"aaa bbb ccc", 8, "aaa bbb\nccc"},
		// A word longer than the width stays whole.
		{"abcdefghij xyz", 5, "abcdefghij\nxyz"},
		{"abcdefghij", 5, "abcdefghij"},
		// Newlines already there are kept, but goutils measures lines
		// across them (only spaces are break points), and so does kubectl.
		{"one two\nthree four five", 9, "one\ntwo\nthree\nfour five"},
	}
	for _, tt := range tests {
		if got := wrapText(tt.in, tt.width); got != tt.want {
			t.Errorf("wrapText(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
	if got := indentLines("a\nb\n", 2); got != "  a\n  b\n  " {
		t.Errorf("indentLines = %q", got)
	}
}

// TestExplainDocsUpToDate regenerates explain_docs.go into a temporary file
// and compares: a doc comment changed in pkg/api without `go generate
// ./pkg/ctl` fails here.
func TestExplainDocsUpToDate(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not on PATH")
	}
	out := filepath.Join(t.TempDir(), "explain_docs.go")
	cmd := exec.Command(goTool, "run", "./internal/gendocs", "-api", "../api", "-out", out)
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./internal/gendocs: %v\n%s", err, output)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("explain_docs.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("explain_docs.go is out of date: run `go generate ./pkg/ctl`")
	}
}
