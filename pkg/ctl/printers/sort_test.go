package printers

import (
	"strings"
	"testing"
)

// names lists the objects' metadata.name in order.
func names(objects []map[string]any) string {
	var out []string
	for _, o := range objects {
		out = append(out, o["metadata"].(map[string]any)["name"].(string))
	}
	return strings.Join(out, " ")
}

func TestSortObjects(t *testing.T) {
	objects := decodeObjects(t,
		`{"metadata":{"name":"pod-10"},"spec":{"n":10,"cpu":"1"}}`,
		`{"metadata":{"name":"pod-2"},"spec":{"n":2,"cpu":"250m"}}`,
		`{"metadata":{"name":"pod-1"},"spec":{"cpu":"1500m"}}`,
		`{"metadata":{"name":"pod-03"},"spec":{"n":3}}`,
	)
	for field, want := range map[string]string{
		// Strings compare byte by byte, as kubectl 1.32 compares them.
		".metadata.name": "pod-03 pod-1 pod-10 pod-2",
		// Numbers numerically; an object without the field comes first.
		"spec.n": "pod-1 pod-2 pod-03 pod-10",
		// Strings that are all quantities compare as quantities.
		"{.spec.cpu}": "pod-03 pod-2 pod-10 pod-1",
	} {
		s, err := NewSorter(field)
		if err != nil {
			t.Fatal(err)
		}
		sorted := append([]map[string]any(nil), objects...)
		if err := s.SortObjects(sorted); err != nil {
			t.Fatal(err)
		}
		if got := names(sorted); got != want {
			t.Errorf("--sort-by=%s: %s, want %s", field, got, want)
		}
	}

	s, _ := NewSorter(".nope")
	if err := s.SortObjects(objects); err == nil || err.Error() != `couldn't find any field with path "{.nope}" in the list of objects` {
		t.Errorf("a field no object has: %v", err)
	}
	s, _ = NewSorter(".spec")
	if err := s.SortObjects(objects); err == nil || !strings.Contains(err.Error(), "unsortable") {
		t.Errorf("maps cannot be sorted: %v", err)
	}
}

// TestSortTable sorts the rows of a Table as the server sends it with
// includeObject=Object: by a field of each row's embedded object, numbers
// compared as numbers.
func TestSortTable(t *testing.T) {
	table, err := DecodeTable([]byte(`{"kind":"Table","apiVersion":"meta.k8s.io/v1",
		"columnDefinitions":[{"name":"Name","type":"string","format":"name"}],
		"rows":[
		 {"cells":["c"],"object":{"metadata":{"name":"c"},"spec":{"replicas":10}}},
		 {"cells":["a"],"object":{"metadata":{"name":"a"},"spec":{"replicas":9}}},
		 {"cells":["b"],"object":{"metadata":{"name":"b"},"spec":{"replicas":100}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for field, want := range map[string]string{".metadata.name": "abc", ".spec.replicas": "acb"} {
		s, _ := NewSorter(field)
		if err := s.SortTable(table); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range table.Rows {
			got = append(got, r.Cells[0].(string))
		}
		if strings.Join(got, "") != want {
			t.Errorf("--sort-by=%s: rows = %v, want %s", field, got, want)
		}
	}
}
