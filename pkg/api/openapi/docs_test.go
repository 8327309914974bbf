package openapi

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestDocsUpToDate regenerates docs_generated.go into a temporary file and
// compares: a type or doc comment changed in pkg/api without `go generate
// ./pkg/api/openapi` fails here.
func TestDocsUpToDate(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not on PATH")
	}
	out := filepath.Join(t.TempDir(), "docs_generated.go")
	cmd := exec.Command(goTool, "run", "./internal/gendocs", "-api", "..", "-out", out)
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./internal/gendocs: %v\n%s", err, output)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("docs_generated.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("docs_generated.go is out of date: run `go generate ./pkg/api/openapi`")
	}
}
