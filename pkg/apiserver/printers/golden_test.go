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
	ctlprinters "kplane/pkg/ctl/printers"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// TestGolden prints every kind's fixtures (fixtures_test.go) as `ctl get`
// and `ctl get -o wide` print them, and compares the text with
// testdata/<resource>.golden. The server's half (Columns, Row) builds the
// Table; it crosses JSON as it would cross the network; and ctl's table
// printer — the one renderer, the same calls `ctl get` makes — lays it
// out. So a golden file is what a user sees, and what kubectl 1.32 prints
// for the same Table. The files are meant to be read: set them beside the
// outputs the seeds quote. After a deliberate change, run
// `go test ./pkg/apiserver/printers -update` and review the diff.
func TestGolden(t *testing.T) {
	for _, f := range fixtures() {
		t.Run(f.resource, func(t *testing.T) {
			table := serveTable(t, f.kind, f.objects)
			var out bytes.Buffer
			for _, wide := range []bool{false, true} {
				command := "kubectl get " + f.resource
				if wide {
					command += " -o wide"
				}
				fmt.Fprintf(&out, "$ %s\n", command)
				p := ctlprinters.NewTablePrinter(&out, ctlprinters.TableOptions{Wide: wide})
				p.PrintTable(table, "")
				if err := p.Flush(); err != nil {
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

// serveTable builds the Table the apiserver sends for objects and decodes
// it as ctl does when it arrives.
func serveTable(t *testing.T, kind string, objects []api.Object) *api.Table {
	t.Helper()
	table := api.Table{
		TypeMeta:          api.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ColumnDefinitions: Columns(kind),
	}
	for _, obj := range objects {
		row := Row(obj, testNow)
		if len(row.Cells) != len(table.ColumnDefinitions) {
			t.Fatalf("%s: %d cells for %d columns: %v", kind, len(row.Cells), len(table.ColumnDefinitions), row.Cells)
		}
		table.Rows = append(table.Rows, row)
	}
	data, err := json.Marshal(table)
	if err != nil {
		t.Fatalf("encode table: %v", err)
	}
	decoded, err := ctlprinters.DecodeTable(data)
	if err != nil {
		t.Fatal(err)
	}
	return decoded
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
