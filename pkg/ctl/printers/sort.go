package printers

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"kplane/pkg/api"
	"kplane/pkg/ctl/jsonpath"
)

// Sorter orders objects by the value of one field (--sort-by), with
// kubectl 1.32's rules: numbers as numbers, strings that are both
// quantities ("500m" before "2") as quantities, other strings byte by byte
// ("10.244.1.10" before "10.244.1.2", as kubectl prints them), and objects
// without the field first.
type Sorter struct {
	expr string
	path *jsonpath.Template
}

// NewSorter parses --sort-by's field path (braces and leading dot
// optional).
func NewSorter(field string) (*Sorter, error) {
	expr, err := jsonpath.Relaxed(field)
	if err != nil {
		return nil, err
	}
	path, err := jsonpath.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("sorting error: %w", err)
	}
	return &Sorter{expr: expr, path: path}, nil
}

// SortObjects sorts objects in place.
func (s *Sorter) SortObjects(objects []map[string]any) error {
	keys := make([]any, len(objects))
	for i, obj := range objects {
		keys[i] = obj
	}
	order, err := s.order(keys)
	if err != nil {
		return err
	}
	sorted := make([]map[string]any, len(objects))
	for i, from := range order {
		sorted[i] = objects[from]
	}
	copy(objects, sorted)
	return nil
}

// SortTable sorts a table's rows by the objects the server embedded in
// them, which it does when the Table is asked for with
// includeObject=Object. The table must come from DecodeTable, so that
// each row's object is a JSON document with its numbers as written.
func (s *Sorter) SortTable(t *api.Table) error {
	if len(t.Rows) < 2 {
		return nil
	}
	objects := make([]any, len(t.Rows))
	for i, row := range t.Rows {
		objects[i] = row.Object
	}
	order, err := s.order(objects)
	if err != nil {
		return err
	}
	rows := make([]api.TableRow, len(t.Rows))
	for i, from := range order {
		rows[i] = t.Rows[from]
	}
	t.Rows = rows
	return nil
}

// order returns the positions of objects in sorted order. It fails when
// no object has the field (a misspelled path) or when the values cannot
// be compared (maps, lists, booleans).
func (s *Sorter) order(objects []any) ([]int, error) {
	keys := make([]sortKey, len(objects))
	found := false
	for i, obj := range objects {
		results, err := s.path.Results(obj)
		if err != nil {
			return nil, fmt.Errorf("sorting error: %w", err)
		}
		keys[i] = sortKey{position: i}
		if len(results) > 0 && len(results[0]) > 0 {
			keys[i].value, keys[i].present = results[0][0], true
			found = true
		}
	}
	if !found {
		return nil, fmt.Errorf("couldn't find any field with path %q in the list of objects", s.expr)
	}
	var cmpErr error
	// sort.Sort, not sort.Stable, as kubectl: equal keys keep the order
	// the same algorithm gives them there.
	sort.Sort(byKey{keys: keys, less: func(a, b sortKey) bool {
		less, err := lessValue(a.value, b.value)
		if err != nil && cmpErr == nil {
			cmpErr = fmt.Errorf("field %s is an unsortable type: %w", s.expr, err)
		}
		return less
	}})
	if cmpErr != nil {
		return nil, unsortableError{cmpErr}
	}
	order := make([]int, len(keys))
	for i, k := range keys {
		order[i] = k.position
	}
	return order, nil
}

// sortKey is one object's value for the sort field.
type sortKey struct {
	position int
	value    any
	present  bool
}

// byKey sorts keys; an object without the field sorts before any other.
type byKey struct {
	keys []sortKey
	less func(a, b sortKey) bool
}

func (b byKey) Len() int      { return len(b.keys) }
func (b byKey) Swap(i, j int) { b.keys[i], b.keys[j] = b.keys[j], b.keys[i] }
func (b byKey) Less(i, j int) bool {
	if !b.keys[i].present {
		return true
	}
	if !b.keys[j].present {
		return false
	}
	return b.less(b.keys[i], b.keys[j])
}

// lessValue compares two decoded JSON values.
func lessValue(a, b any) (bool, error) {
	if a == nil || b == nil {
		return a == nil && b != nil, nil
	}
	if an, ok := a.(json.Number); ok {
		bn, ok := b.(json.Number)
		if !ok {
			return false, fmt.Errorf("cannot compare %v with %T", a, b)
		}
		af, _ := strconv.ParseFloat(string(an), 64)
		bf, _ := strconv.ParseFloat(string(bn), 64)
		return af < bf, nil
	}
	if as, ok := a.(string); ok {
		bs, ok := b.(string)
		if !ok {
			return false, fmt.Errorf("cannot compare %q with %T", as, b)
		}
		aq, aErr := api.ParseQuantity(as)
		bq, bErr := api.ParseQuantity(bs)
		if aErr == nil && bErr == nil {
			return aq.Cmp(bq) < 0, nil
		}
		return as < bs, nil
	}
	return false, fmt.Errorf("%T", a)
}

// unsortableError is a sort that met values it cannot compare.
type unsortableError struct{ err error }

func (e unsortableError) Error() string { return e.err.Error() }
func (e unsortableError) Unwrap() error { return e.err }

// IsUnsortable reports whether err came from values that cannot be
// compared (maps, lists, booleans), which kubectl treats as fatal even
// where it drops other sorting errors.
func IsUnsortable(err error) bool {
	var u unsortableError
	return errors.As(err, &u)
}
