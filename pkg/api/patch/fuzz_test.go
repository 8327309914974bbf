package patch

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"kplane/pkg/api/schema"
)

// FuzzStrategicMerge checks that no original or patch can make the strategic
// merge patch panic, that a successful result is a JSON object, and that no
// directive survives into it.
func FuzzStrategicMerge(f *testing.F) {
	original := `{"metadata":{"name":"a","labels":{"x":"1"},"finalizers":["a","b"]},"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{}},` +
		`"template":{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80}],"env":[{"name":"E"}]},{"name":"b"}],"volumes":[{"name":"v","emptyDir":{}}]}}}}`
	for _, patch := range []string{
		`{"metadata":{"labels":{"x":null,"y":"2"},"$setElementOrder/finalizers":["b","c"],"$deleteFromPrimitiveList/finalizers":["a"],"finalizers":["c"]}}`,
		`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"a","$setElementOrder/ports":[{"containerPort":443}],"ports":[{"containerPort":443}]},{"$patch":"delete","name":"b"}]}}}}`,
		`{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate","rollingUpdate":null}}}`,
		`{"spec":{"template":{"$patch":"replace","spec":{"containers":[{"$patch":"replace"},{"name":"z"}]}}}}`,
		`{"spec":{"template":{"spec":{"volumes":[{"$retainKeys":["name","configMap"],"name":"v","configMap":{"name":"c"}}]}}}}`,
		`{"metadata":{"finalizers":[["x"]]}}`, `{"$patch":"delete"}`, `{"a":{"$patch":"x"}}`, `[]`, `{`,
		`{"spec":{"template":{"spec":{"containers":[{"name":{"a":1}},{"name":[1]},{"name":null},{"name":1.5}]}}}}`,
	} {
		f.Add([]byte(original), []byte(patch))
	}
	f.Fuzz(func(t *testing.T, original, patch []byte) {
		out, err := Apply(StrategicMergePatchType, original, patch, deploymentType)
		if err != nil {
			return
		}
		var result map[string]any
		if err := json.Unmarshal(out, &result); err != nil {
			t.Fatalf("result %q is not a JSON object: %v", out, err)
		}
		if bytes.Contains(original, []byte("$")) {
			return // directives in the original are data we carry along
		}
		if key := findDirective(result, schema.Of(deploymentType)); key != "" {
			t.Fatalf("directive %q survived into %s (patch %s)", key, out, patch)
		}
	})
}

// FuzzApply runs every patch type over arbitrary input: a patch either
// fails with an error or gives valid JSON, which the apiserver then decodes
// as the patched object.
func FuzzApply(f *testing.F) {
	original := `{"metadata":{"name":"a"},"spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"a"}]}}}}`
	f.Add(uint8(0), []byte(original), []byte(`[{"op":"copy","from":"/spec","path":"/spec/x"},{"op":"test","path":"/a","value":1}]`))
	f.Add(uint8(1), []byte(original), []byte(`{"spec":{"replicas":null}}`))
	f.Add(uint8(2), []byte(original), []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"b"}]}}}}`))
	f.Fuzz(func(t *testing.T, which uint8, original, patch []byte) {
		patchType := SupportedTypes[int(which)%len(SupportedTypes)]
		patched, err := Apply(patchType, original, patch, deploymentType)
		if err != nil {
			return
		}
		if !json.Valid(patched) {
			t.Fatalf("%s patch %q over %q gives %q, not JSON", patchType, patch, original, patched)
		}
	})
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

// findDirective returns the first member name starting with '$' in the
// parts of value its schema describes (values that encode themselves may
// hold anything).
func findDirective(value any, typ *schema.Type) string {
	if typ != nil && typ.Kind == schema.Leaf {
		return ""
	}
	switch v := value.(type) {
	case map[string]any:
		for key, member := range v {
			if strings.HasPrefix(key, "$") {
				return key
			}
			var memberType *schema.Type
			if typ != nil {
				switch typ.Kind {
				case schema.Object:
					if field := typ.Field(key); field != nil {
						memberType = field.Type
					}
				case schema.Map:
					memberType = typ.Elem
				}
			}
			if found := findDirective(member, memberType); found != "" {
				return found
			}
		}
	case []any:
		for _, item := range v {
			if found := findDirective(item, elemType(typ)); found != "" {
				return found
			}
		}
	}
	return ""
}
