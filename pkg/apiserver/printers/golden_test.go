package printers

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"kplane/pkg/api"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// TestGolden prints every kind's fixtures (fixtures_test.go) as `kubectl get`
// and `kubectl get -o wide` would, and compares the text with
// testdata/<resource>.golden. The golden files are meant to be read: set
// them beside the outputs the seeds quote. After a deliberate change, run
// `go test ./pkg/apiserver/printers -update` and review the diff.
func TestGolden(t *testing.T) {
	for _, f := range fixtures() {
		t.Run(f.resource, func(t *testing.T) {
			table := buildTable(t, f.kind, f.objects)
			var out bytes.Buffer
			for _, wide := range []bool{false, true} {
				command := "kubectl get " + f.resource
				if wide {
					command += " -o wide"
				}
				fmt.Fprintf(&out, "$ %s\n", command)
				if err := PrintTable(&out, table, wide); err != nil {
					t.Fatal(err)
				}
				if !wide {
					out.WriteString("\n")
				}
			}
			compareGolden(t, filepath.Join("testdata", f.resource+".golden"), out.Bytes())
		})
	}
}

// buildTable builds the Table the apiserver would send for objects and sends
// it through JSON, so that what is printed is what kubectl receives (numbers
// come back as float64).
func buildTable(t *testing.T, kind string, objects []api.Object) *api.Table {
	t.Helper()
	table := api.Table{ColumnDefinitions: Columns(kind)}
	for _, obj := range objects {
		cells := Cells(obj, testNow)
		if len(cells) != len(table.ColumnDefinitions) {
			t.Fatalf("%s: %d cells for %d columns: %v", kind, len(cells), len(table.ColumnDefinitions), cells)
		}
		table.Rows = append(table.Rows, api.TableRow{Cells: cells})
	}
	data, err := json.Marshal(table)
	if err != nil {
		t.Fatalf("encode table: %v", err)
	}
	var decoded api.Table
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatalf("decode table: %v", err)
	}
	return &decoded
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run with -update to accept it)\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}
