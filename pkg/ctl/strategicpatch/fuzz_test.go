package strategicpatch

import (
	"strings"
	"testing"
)

// TestNonScalarMergeKey checks that a merge key holding a list or an object
// (a container whose name is [1]) is an error, not a panic: merge keys are
// compared with ==, which panics on uncomparable values.
func TestNonScalarMergeKey(t *testing.T) {
	cases := map[string]struct{ original, modified, current string }{
		"list name in modified": {
			modified: `{"spec":{"template":{"spec":{"containers":[{"name":["a"],"image":"x"}]}}}}`,
			current:  `{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"y"}]}}}}`,
		},
		"map name in current": {
			modified: `{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"x"}]}}}}`,
			current:  `{"spec":{"template":{"spec":{"containers":[{"name":{"a":1},"image":"y"}]}}}}`,
		},
		"list names merged with a deletion": {
			original: `{"spec":{"template":{"spec":{"containers":[{"name":["a"]},{"name":["b"]}]}}}}`,
			modified: `{"spec":{"template":{"spec":{"containers":[{"name":["a"],"image":"x"}]}}}}`,
			current:  `{"spec":{"template":{"spec":{"containers":[{"name":["a"],"image":"y"},{"name":["b"]}]}}}}`,
		},
		"list name in both": {
			original: `{"spec":{"template":{"spec":{"containers":[{"name":["a"]},{"name":"b"}]}}}}`,
			modified: `{"spec":{"template":{"spec":{"containers":[{"name":"b"},{"name":["a"]}]}}}}`,
			current:  `{"spec":{"template":{"spec":{"containers":[{"name":["a"]},{"name":"b"}]}}}}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := CreateThreeWayMergePatch([]byte(tc.original), []byte(tc.modified), []byte(tc.current), deploymentSchema)
			if err == nil || !strings.Contains(err.Error(), "merge key") {
				t.Fatalf("got error %v, want one about the merge key", err)
			}
		})
	}
}

// FuzzCreateThreeWayMergePatch feeds arbitrary JSON to the three-way merge:
// whatever the input, the result is a patch or an error, never a panic.
func FuzzCreateThreeWayMergePatch(f *testing.F) {
	seeds := [][3]string{
		{``, `{"spec":{"replicas":2}}`, `{"spec":{"replicas":1}}`},
		{
			`{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"x"}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"b","image":"x"},{"name":"a"}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"y"},{"name":"c"}]}}}}`,
		},
		{
			`{"metadata":{"finalizers":["a","b"]}}`,
			`{"metadata":{"finalizers":["b",["c"]]}}`,
			`{"metadata":{"finalizers":["a",{"x":1}]}}`,
		},
		{
			`{"spec":{"template":{"spec":{"containers":[{"name":[1]}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":{"a":[]}},{"name":[1]}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":[1]},{"name":null}]}}}}`,
		},
	}
	seeds = append(seeds, [3]string{
		`{"spec":{"template":{"spec":{"containers":[{"name":["a"]},{"name":["b"]}]}}}}`,
		`{"spec":{"template":{"spec":{"containers":[{"name":["a"],"image":"x"}]}}}}`,
		`{"spec":{"template":{"spec":{"containers":[{"name":["a"],"image":"y"},{"name":["b"]}]}}}}`,
	})
	seeds = append(seeds, [3]string{
		`{"metadata":{"finalizers":[{"a":1},{"b":[]}]}}`,
		`{"metadata":{"finalizers":[{"b":[]}]},"spec":{"template":{"spec":{"containers":[{"name":{"a":1}},{"name":{"a":1}}]}}}}`,
		`{"metadata":{"finalizers":[{"a":1},{"c":2}]},"spec":{"template":{"spec":{"containers":[{"name":{"a":1}}]}}}}`,
	})
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, original, modified, current string) {
		_, _ = CreateThreeWayMergePatch([]byte(original), []byte(modified), []byte(current), deploymentSchema)
	})
}
