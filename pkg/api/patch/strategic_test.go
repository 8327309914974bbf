package patch

import (
	"reflect"
	"slices"
	"testing"
)

// TestInterleave checks the ordering rule both halves share: a server-only
// element stays before an ordered one only when the original list had both
// and put it first.
func TestInterleave(t *testing.T) {
	original := []any{"a", "b", "c", "d"}
	positionIn := func(item any) (int, bool) {
		i := slices.Index(original, item)
		return i, i >= 0
	}
	tests := []struct {
		name                string
		serverOnly, ordered []any
		want                []any
	}{
		{"server-only elements keep their place", []any{"a", "c"}, []any{"b", "d"}, []any{"a", "b", "c", "d"}},
		{"the patch's order wins among ordered elements", []any{"a", "c"}, []any{"d", "b"}, []any{"a", "c", "d", "b"}},
		{"an element new to the list goes first", []any{"a", "b"}, []any{"x", "c"}, []any{"x", "a", "b", "c"}},
		{"a server-only element unknown to the original waits", []any{"y", "b"}, []any{"c"}, []any{"c", "y", "b"}},
		{"no server-only elements", nil, []any{"b", "a"}, []any{"b", "a"}},
		{"nothing at all is an empty list", nil, nil, []any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := interleave(tt.serverOnly, tt.ordered, positionIn)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("interleave(%v, %v) = %v, want %v", tt.serverOnly, tt.ordered, got, tt.want)
			}
		})
	}
}

// TestUniqueScalars checks that repeated primitives go, the first of each
// stays in place, and values that are not primitives are all kept.
func TestUniqueScalars(t *testing.T) {
	object := map[string]any{"a": "1"}
	got := uniqueScalars([]any{"b", "a", "b", nil, object, nil, object, "a"})
	want := []any{"b", "a", nil, object, object}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("uniqueScalars = %v, want %v", got, want)
	}
	if got := uniqueScalars(nil); got == nil || len(got) != 0 {
		t.Errorf("uniqueScalars(nil) = %#v, want an empty, non-nil list (it encodes as [])", got)
	}
}
