package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// deploymentType is the stand-in Deployment of types_test.go, whose fields
// carry every patch tag the apply tests exercise.
var deploymentType = reflect.TypeFor[testDeployment]()

// canonical re-encodes a JSON document with sorted keys and exact numbers,
// so that two documents compare equal exactly when they mean the same.
func canonical(t *testing.T, doc string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("bad JSON in test: %v\n%s", err, doc)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func strategic(t *testing.T, original, patch string) (string, error) {
	t.Helper()
	out, err := Apply(StrategicMergePatchType, []byte(original), []byte(patch), deploymentType)
	return string(out), err
}

func TestStrategicMergePatch(t *testing.T) {
	tests := []struct {
		name     string
		original string
		patch    string
		want     string
	}{
		{
			name:     "maps merge recursively and null deletes",
			original: `{"metadata":{"name":"web","labels":{"app":"web","tier":"frontend"},"annotations":{"a":"1"}}}`,
			patch:    `{"metadata":{"labels":{"tier":null,"env":"prod"},"annotations":{"b":"2"},"generateName":null}}`,
			want:     `{"metadata":{"name":"web","labels":{"app":"web","env":"prod"},"annotations":{"a":"1","b":"2"}}}`,
		},
		{
			name:     "scalars replace, numbers pass through exactly",
			original: `{"spec":{"replicas":1,"paused":false}}`,
			patch:    `{"spec":{"replicas":30000000000000000001,"paused":true}}`,
			want:     `{"spec":{"replicas":30000000000000000001,"paused":true}}`,
		},
		{
			name:     "kubectl rollout restart",
			original: `{"spec":{"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx"}]}}}}`,
			patch:    `{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2025-01-01T00:00:00Z"}}}}}`,
			want:     `{"spec":{"template":{"metadata":{"labels":{"app":"web"},"annotations":{"kubectl.kubernetes.io/restartedAt":"2025-01-01T00:00:00Z"}},"spec":{"containers":[{"name":"nginx"}]}}}}`,
		},
		{
			name:     "merging list: matching elements merge, new ones are added",
			original: `{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a:1","args":["x"]},{"name":"b","image":"b:1"}]}}}}`,
			patch:    `{"spec":{"template":{"spec":{"containers":[{"name":"b","image":"b:2"},{"name":"c","image":"c:1"}]}}}}`,
			want:     `{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a:1","args":["x"]},{"name":"b","image":"b:2"},{"name":"c","image":"c:1"}]}}}}`,
		},
		{
			name:     "a new element alone goes before the server's (upstream's order rules)",
			original: `{"spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}}}`,
			patch:    `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}}`,
			want:     `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"},{"name":"a"},{"name":"b"}]}}}}`,
		},
		{
			name:     "the patch's order wins over the original's (upstream: preserve the order from the patch 2)",
			original: `{"spec":{"template":{"spec":{"containers":[{"name":"1"},{"name":"2","image":"b"},{"name":"3"}]}}}}`,
			patch:    `{"spec":{"template":{"spec":{"containers":[{"name":"3","image":"c"},{"name":"1","image":"a"}]}}}}`,
			want:     `{"spec":{"template":{"spec":{"containers":[{"name":"2","image":"b"},{"name":"3","image":"c"},{"name":"1","image":"a"}]}}}}`,
		},
		{
			name:     "merging by a numeric key (ports by containerPort)",
			original: `{"spec":{"template":{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"protocol":"TCP"}]}]}}}}`,
			patch:    `{"spec":{"template":{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http"}]}]}}}}`,
			want:     `{"spec":{"template":{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"protocol":"TCP","name":"http"}]}]}}}}`,
		},
		{
			name:     "$patch delete removes an element, duplicates included",
			original: `{"spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"sidecar"},{"name":"b"},{"name":"sidecar"}]}}}}`,
			patch:    `{"spec":{"template":{"spec":{"containers":[{"$patch":"delete","name":"sidecar"},{"$patch":"delete","name":"absent"}]}}}}`,
			want:     `{"spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}}}`,
		},
		{
			name:     "deleting the only element leaves an empty list",
			original: `{"spec":{"template":{"spec":{"containers":[{"name":"a"}]}}}}`,
			patch:    `{"spec":{"template":{"spec":{"containers":[{"$patch":"delete","name":"a"}]}}}}`,
			want:     `{"spec":{"template":{"spec":{"containers":[]}}}}`,
		},
		{
			name:     "$patch replace in a list",
			original: `{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"x"},{"name":"b"}]}}}}`,
			patch:    `{"spec":{"template":{"spec":{"containers":[{"name":"c"},{"$patch":"replace"},{"name":"a"}]}}}}`,
			want:     `{"spec":{"template":{"spec":{"containers":[{"name":"c"},{"name":"a"}]}}}}`,
		},
		{
			name:     "$patch replace in a map (kubectl's way to swap a template)",
			original: `{"spec":{"template":{"metadata":{"labels":{"app":"web","old":"x"}},"spec":{"containers":[{"name":"a","image":"1"}],"nodeSelector":{"disk":"ssd"}}}}}`,
			patch:    `{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"a","image":"0","$setElementOrder/ports":[]}]}}}}`,
			want:     `{"spec":{"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"a","image":"0"}]}}}}`,
		},
		{
			name:     "$patch delete in a map empties it",
			original: `{"spec":{"template":{"spec":{"nodeSelector":{"disk":"ssd","zone":"a"}}}}}`,
			patch:    `{"spec":{"template":{"spec":{"nodeSelector":{"$patch":"delete"}}}}}`,
			want:     `{"spec":{"template":{"spec":{"nodeSelector":{}}}}}`,
		},
		{
			name:     "lists without a merge strategy are replaced",
			original: `{"spec":{"template":{"spec":{"tolerations":[{"key":"a"},{"key":"b"}],"containers":[{"name":"c","args":["1","2"]}]}}}}`,
			patch:    `{"spec":{"template":{"spec":{"tolerations":[{"key":"z","effect":null}],"containers":[{"name":"c","args":["3"]}]}}}}`,
			want:     `{"spec":{"template":{"spec":{"tolerations":[{"key":"z"}],"containers":[{"name":"c","args":["3"]}]}}}}`,
		},
		{
			name:     "patchStrategy replace on a map replaces it",
			original: `{"spec":{"template":{"spec":{"overhead":{"cpu":"1","memory":"1Gi"}}}}}`,
			patch:    `{"spec":{"template":{"spec":{"overhead":{"cpu":"2"}}}}}`,
			want:     `{"spec":{"template":{"spec":{"overhead":{"cpu":"2"}}}}}`,
		},
		{
			// c is new, so nothing places it after a: the patch's elements go first.
			name:     "merging primitive lists make a union (finalizers)",
			original: `{"metadata":{"finalizers":["a","b","a"]}}`,
			patch:    `{"metadata":{"finalizers":["c","b"]}}`,
			want:     `{"metadata":{"finalizers":["c","a","b"]}}`,
		},
		{
			name:     "$deleteFromPrimitiveList removes values",
			original: `{"metadata":{"finalizers":["a","b","c"]}}`,
			patch:    `{"metadata":{"$deleteFromPrimitiveList/finalizers":["b","x"]}}`,
			want:     `{"metadata":{"finalizers":["a","c"]}}`,
		},
		{
			name:     "$deleteFromPrimitiveList of an absent list does nothing",
			original: `{"metadata":{"name":"x"}}`,
			patch:    `{"metadata":{"$deleteFromPrimitiveList/finalizers":["b"]}}`,
			want:     `{"metadata":{"name":"x"}}`,
		},
		{
			name:     "kubectl apply on finalizers: add, delete and order together",
			original: `{"metadata":{"finalizers":["a","server","b"]}}`,
			patch:    `{"metadata":{"$setElementOrder/finalizers":["c","a"],"$deleteFromPrimitiveList/finalizers":["b"],"finalizers":["c"]}}`,
			want:     `{"metadata":{"finalizers":["c","a","server"]}}`,
		},
		{
			name:     "a primitive list follows the patch's order",
			original: `{"metadata":{"finalizers":["1","2","3"]}}`,
			patch:    `{"metadata":{"finalizers":["3","1"]}}`,
			want:     `{"metadata":{"finalizers":["2","3","1"]}}`,
		},
		{
			name:     "$setElementOrder orders a merged list and disappears",
			original: `{"spec":{"template":{"spec":{"containers":[{"name":"b","image":"b"},{"name":"a","image":"a"}]}}}}`,
			patch:    `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"},{"name":"c"}],"containers":[{"name":"c","image":"c"}]}}}}`,
			want:     `{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a"},{"name":"b","image":"b"},{"name":"c","image":"c"}]}}}}`,
		},
		{
			name:     "$setElementOrder alone reorders the original",
			original: `{"spec":{"template":{"spec":{"containers":[{"name":"b"},{"name":"a"}]}}}}`,
			patch:    `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"}]}}}}`,
			want:     `{"spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}}}`,
		},
		{
			name:     "server-only elements keep their place among ordered ones",
			original: `{"spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"injected"},{"name":"b"}]}}}}`,
			patch:    `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"}],"containers":[{"name":"b","image":"new"}]}}}}`,
			want:     `{"spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"injected"},{"name":"b","image":"new"}]}}}}`,
		},
		{
			name:     "$setElementOrder may name elements that are gone (upstream test)",
			original: `{"spec":{"template":{"spec":{"containers":[{"name":"1"},{"name":"3"}]}}}}`,
			patch:    `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"3"},{"name":"2"},{"name":"1"}],"containers":[{"name":"3","image":"3"},{"name":"1","image":"1"}]}}}}`,
			want:     `{"spec":{"template":{"spec":{"containers":[{"name":"3","image":"3"},{"name":"1","image":"1"}]}}}}`,
		},
		{
			name:     "$retainKeys switches a union member (RollingUpdate to Recreate)",
			original: `{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}}}}`,
			patch:    `{"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":null,"type":"Recreate"}}}`,
			want:     `{"spec":{"strategy":{"type":"Recreate"}}}`,
		},
		{
			name:     "$retainKeys inside a merging list element (volumes)",
			original: `{"spec":{"template":{"spec":{"volumes":[{"name":"v","emptyDir":{}},{"name":"w","emptyDir":{}}]}}}}`,
			patch:    `{"spec":{"template":{"spec":{"volumes":[{"$retainKeys":["configMap","name"],"name":"v","configMap":{"name":"cm"}}]}}}}`,
			want:     `{"spec":{"template":{"spec":{"volumes":[{"name":"v","configMap":{"name":"cm"}},{"name":"w","emptyDir":{}}]}}}}`,
		},
		{
			name:     "values with their own encoding are replaced, not merged",
			original: `{"status":{"startTime":"2024-01-01T00:00:00Z"},"spec":{"template":{"spec":{"containers":[{"name":"a","extra":{"x":1,"y":2}}]}}}}`,
			patch:    `{"status":{"startTime":"2025-01-01T00:00:00Z"},"spec":{"template":{"spec":{"containers":[{"name":"a","extra":{"x":3,"$weird":true}}]}}}}`,
			want:     `{"status":{"startTime":"2025-01-01T00:00:00Z"},"spec":{"template":{"spec":{"containers":[{"name":"a","extra":{"x":3,"$weird":true}}]}}}}`,
		},
		{
			name:     "conditions merge by type",
			original: `{"status":{"conditions":[{"type":"Available","status":"True"},{"type":"Progressing","status":"True"}]}}`,
			patch:    `{"status":{"conditions":[{"type":"Available","status":"False","reason":"MinimumReplicasUnavailable"}]}}`,
			want:     `{"status":{"conditions":[{"type":"Available","status":"False","reason":"MinimumReplicasUnavailable"},{"type":"Progressing","status":"True"}]}}`,
		},
		{
			name:     "new members are added without their nulls or directives",
			original: `{"metadata":{"name":"a"}}`,
			patch:    `{"metadata":{"labels":{"x":"1","y":null}},"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"c"}],"containers":[{"name":"c","env":[{"name":"E","value":"1"},{"$patch":"delete","name":"F"}]}]}}}}`,
			want:     `{"metadata":{"name":"a","labels":{"x":"1"}},"spec":{"template":{"spec":{"containers":[{"name":"c","env":[{"name":"E","value":"1"}]}]}}}}`,
		},
		{
			name:     "a value of another type replaces the original",
			original: `{"spec":{"template":{"spec":{"nodeSelector":{"a":"b"}}}},"metadata":{"labels":"oops"}}`,
			patch:    `{"spec":{"template":{"spec":{"nodeSelector":"x"}}},"metadata":{"labels":{"a":"b"}}}`,
			want:     `{"spec":{"template":{"spec":{"nodeSelector":"x"}}},"metadata":{"labels":{"a":"b"}}}`,
		},
		{
			name:     "fields the type does not have are merged generically",
			original: `{"spec":{"foo":{"a":1,"b":[1,2]}}}`,
			patch:    `{"spec":{"foo":{"a":null,"b":[3],"c":{"d":null}}},"bar":1}`,
			want:     `{"spec":{"foo":{"b":[3],"c":{}}},"bar":1}`,
		},
		{
			name:     "an empty patch changes nothing",
			original: `{"metadata":{"name":"a"},"spec":{"template":{"spec":{"containers":[{"name":"b"},{"name":"a"}]}}}}`,
			patch:    `{}`,
			want:     `{"metadata":{"name":"a"},"spec":{"template":{"spec":{"containers":[{"name":"b"},{"name":"a"}]}}}}`,
		},
		{
			name:     "kubectl cordon-style patch of a bool",
			original: `{"spec":{}}`,
			patch:    `{"spec":{"paused":true}}`,
			want:     `{"spec":{"paused":true}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := strategic(t, tc.original, tc.patch)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if got != canonical(t, tc.want) {
				t.Errorf("Apply =\n%s\nwant\n%s", got, canonical(t, tc.want))
			}
		})
	}
}

func TestStrategicMergePatchErrors(t *testing.T) {
	tests := []struct {
		name     string
		original string
		patch    string
		code     int
		message  string
	}{
		{
			name:    "not JSON",
			patch:   `{"spec":`,
			code:    http.StatusBadRequest,
			message: "unexpected EOF",
		},
		{
			name:    "not an object",
			patch:   `[{"op":"add"}]`,
			code:    http.StatusBadRequest,
			message: "json: cannot unmarshal array into Go value of type map[string]interface {}",
		},
		{
			name:    "null",
			patch:   `null`,
			code:    http.StatusBadRequest,
			message: "expected a JSON object, got null",
		},
		{
			name:    "trailing data",
			patch:   `{} {}`,
			code:    http.StatusBadRequest,
			message: "invalid data after the top-level JSON object",
		},
		{
			name:    "unknown directive",
			patch:   `{"metadata":{"$frobnicate/labels":{}}}`,
			code:    http.StatusBadRequest,
			message: `unknown patch directive "$frobnicate/labels"`,
		},
		{
			name:    "unknown $patch in a map",
			patch:   `{"metadata":{"labels":{"$patch":"merge"}}}`,
			code:    http.StatusBadRequest,
			message: "unknown patch type: merge in map: map[$patch:merge]",
		},
		{
			name:    "merge directive in a list",
			patch:   `{"spec":{"template":{"spec":{"containers":[{"$patch":"merge"}]}}}}`,
			code:    http.StatusBadRequest,
			message: "merging lists cannot yet be specified in the patch",
		},
		{
			name:    "unknown $patch in a list",
			patch:   `{"spec":{"template":{"spec":{"containers":[{"$patch":"frob","name":"a"}]}}}}`,
			code:    http.StatusBadRequest,
			message: "unknown patch type: frob in map: map[$patch:frob name:a]",
		},
		{
			name:    "element without its merge key",
			patch:   `{"spec":{"template":{"spec":{"containers":[{"image":"nginx"}]}}}}`,
			code:    http.StatusBadRequest,
			message: "map: map[image:nginx] does not contain declared merge key: name",
		},
		{
			name:    "delete without the merge key",
			patch:   `{"spec":{"template":{"spec":{"containers":[{"$patch":"delete"}]}}}}`,
			code:    http.StatusBadRequest,
			message: "does not contain declared merge key: name",
		},
		{
			name:    "element that is not an object",
			patch:   `{"spec":{"template":{"spec":{"containers":["nginx"]}}}}`,
			code:    http.StatusBadRequest,
			message: "expected a map[string]interface {}, but received a string",
		},
		{
			name:    "list in a primitive merging list",
			patch:   `{"metadata":{"finalizers":[["a"]]}}`,
			code:    http.StatusUnprocessableEntity,
			message: "lists of lists are not supported",
		},
		{
			name:    "object in a primitive merging list",
			patch:   `{"metadata":{"finalizers":[{"a":1}]}}`,
			code:    http.StatusBadRequest,
			message: "expected a primitive",
		},
		{
			name:    "retainKeys not a list",
			patch:   `{"spec":{"strategy":{"$retainKeys":"type"}}}`,
			code:    http.StatusBadRequest,
			message: "invalid patch format of retainKeys",
		},
		{
			name:    "patch sets a member retainKeys drops",
			patch:   `{"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":{}}}}`,
			code:    http.StatusBadRequest,
			message: "invalid patch format of retainKeys",
		},
		{
			name:    "setElementOrder not a list",
			patch:   `{"spec":{"template":{"spec":{"$setElementOrder/containers":{}}}}}`,
			code:    http.StatusBadRequest,
			message: "invalid patch format of setElementOrder list",
		},
		{
			name:    "setElementOrder without a field",
			patch:   `{"metadata":{"$setElementOrder/":[]}}`,
			code:    http.StatusBadRequest,
			message: "invalid patch format of setElementOrder list",
		},
		{
			name:    "setElementOrder element without merge key",
			patch:   `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"image":"x"}]}}}}`,
			code:    http.StatusBadRequest,
			message: "does not contain declared merge key: name",
		},
		{
			name:     "setElementOrder of an unknown field",
			original: `{"spec":{"template":{"spec":{}}}}`,
			patch:    `{"spec":{"template":{"spec":{"$setElementOrder/sidecars":[{"name":"x"}]}}}}`,
			code:     http.StatusBadRequest,
			message:  `unable to find api field in struct testPodSpec for the json field "sidecars"`,
		},
		{
			name:    "deleteFromPrimitiveList not a list",
			patch:   `{"metadata":{"$deleteFromPrimitiveList/finalizers":"a"}}`,
			code:    http.StatusBadRequest,
			message: "invalid patch format of primitive list",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			original := tc.original
			if original == "" {
				original = `{"metadata":{"name":"a","finalizers":["x"]},"spec":{"strategy":{"type":"Recreate"},"template":{"spec":{"containers":[{"name":"a"}]}}}}`
			}
			_, err := strategic(t, original, tc.patch)
			var patchErr *Error
			if !errors.As(err, &patchErr) {
				t.Fatalf("error = %v (%T), want a *patch.Error", err, err)
			}
			if patchErr.Code != tc.code || !strings.Contains(patchErr.Message, tc.message) {
				t.Errorf("error = %d %q, want %d containing %q", patchErr.Code, patchErr.Message, tc.code, tc.message)
			}
		})
	}
}

func TestStrategicMergePatchBadOriginalIsAServerError(t *testing.T) {
	_, err := Apply(StrategicMergePatchType, []byte(`not json`), []byte(`{}`), deploymentType)
	var patchErr *Error
	if err == nil || errors.As(err, &patchErr) {
		t.Errorf("a broken stored object is the server's fault, not the patch's: %v", err)
	}
}

func TestStrategicMergePatchWithoutType(t *testing.T) {
	// Without a schema every list is replaced and maps merge, like a merge
	// patch, but directives still work.
	out, err := Apply(StrategicMergePatchType, []byte(`{"a":{"b":1,"c":[1,2]},"d":{"e":1}}`), []byte(`{"a":{"c":[3],"b":null},"d":{"$patch":"replace","f":2}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":{"c":[3]},"d":{"f":2}}`; string(out) != want {
		t.Errorf("Apply = %s, want %s", out, want)
	}
}

func TestStrategicMergePatchDoesNotModifyItsInputs(t *testing.T) {
	original := []byte(`{"metadata":{"labels":{"a":"1"}},"spec":{"template":{"spec":{"containers":[{"name":"a"}]}}}}`)
	patch := []byte(`{"metadata":{"labels":{"a":null}},"spec":{"template":{"spec":{"containers":[{"$patch":"delete","name":"a"}]}}}}`)
	originalCopy, patchCopy := bytes.Clone(original), bytes.Clone(patch)
	if _, err := Apply(StrategicMergePatchType, original, patch, deploymentType); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(original, originalCopy) || !bytes.Equal(patch, patchCopy) {
		t.Errorf("Apply modified its inputs")
	}
}
