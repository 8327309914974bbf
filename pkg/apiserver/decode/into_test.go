package decode

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestUnknownFields(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{
			name: "a known body",
			body: `{"kind":"Pod","metadata":{"name":"a","labels":{"any-key":"v"}},"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}]}]}}`,
		},
		{
			name: "top level and nested",
			body: `{"bar":1,"spec":{"foo":{"deep":[1,{"x":2}]},"replicas":1}}`,
			want: []string{`unknown field "bar"`, `unknown field "spec.foo"`},
		},
		{
			name: "inside lists, with the index",
			body: `{"spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"b","imagee":"nginx","ports":[{"containerPort":1,"hostPortt":2}]}]}}}}`,
			want: []string{
				`unknown field "spec.template.spec.containers[1].imagee"`,
				`unknown field "spec.template.spec.containers[1].ports[0].hostPortt"`,
			},
		},
		{
			name: "names are case-sensitive",
			body: `{"Kind":"Pod","spec":{"Replicas":3}}`,
			want: []string{`unknown field "Kind"`, `unknown field "spec.Replicas"`},
		},
		{
			name: "inlined TypeMeta and ObjectMeta fields",
			body: `{"apiVersion":"v1","metadata":{"name":"a","namespace":"b","finalizers":["x"],"uid":"u","nope":1},"name":"top"}`,
			want: []string{`unknown field "metadata.nope"`, `unknown field "name"`},
		},
		{
			name: "duplicates",
			body: `{"spec":{"replicas":1,"replicas":2,"nodeSelector":{"a":"1","a":"2"}},"kind":"A","kind":"B"}`,
			want: []string{`duplicate field "spec.replicas"`, `duplicate field "spec.nodeSelector[a]"`, `duplicate field "kind"`},
		},
		{
			name: "leaves and any are not looked into",
			body: `{"metadata":{"creationTimestamp":null,"managedFields":[{"fieldsV1":{"f:metadata":{}}}]},"spec":{"extra":{"anything":{"goes":1}}},"status":{"startTime":"2024-01-01T00:00:00Z"}}`,
		},
		{
			name: "a mismatched shape is left to decoding",
			body: `{"spec":[1,2],"metadata":"x","status":{"conditions":{"type":"x"}}}`,
		},
		{
			name: "null everywhere",
			body: `{"spec":null,"metadata":{"labels":null},"status":{"conditions":[null]}}`,
		},
		{
			name: "a top-level non-object",
			body: `[1,2,3]`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := UnknownFields([]byte(tc.body), reflect.TypeFor[testPod]())
			if err != nil {
				t.Fatalf("UnknownFields: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("UnknownFields =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestUnknownFieldsSyntaxErrors(t *testing.T) {
	tests := map[string]string{
		`{"a":`:       "unexpected end of JSON input",
		`{"a" 1}`:     "invalid character '1' after object key",
		`{} {}`:       "invalid character '{' after top-level value",
		``:            "unexpected end of JSON input",
		`{"a":[1,]} `: "invalid character ']' looking for beginning of value",
	}
	for body, want := range tests {
		_, err := UnknownFields([]byte(body), reflect.TypeFor[testPod]())
		if err == nil || err.Error() != want {
			t.Errorf("UnknownFields(%q) error = %v, want %q", body, err, want)
		}
	}
}

func TestUnknownFieldsAreCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 150 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"f` + strconv.Itoa(i) + `":1`)
	}
	b.WriteString("}")
	got, err := UnknownFields([]byte(b.String()), reflect.TypeFor[testPod]())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != maxFieldErrors || got[0] != `unknown field "f0"` {
		t.Errorf("got %d problems starting %q, want %d starting with f0", len(got), got[0], maxFieldErrors)
	}
}

func TestIntoStrict(t *testing.T) {
	body := `{"kind":"Pod","spec":{"foo":1,"replicas":2},"bar":true}`
	var pod testPod
	warnings, err := Into([]byte(body), &pod, true)
	want := `strict decoding error: unknown field "spec.foo", unknown field "bar"`
	if err == nil || err.Error() != want || warnings != nil {
		t.Fatalf("Into strict = %v, %v; want error %q", warnings, err, want)
	}
	var strictErr *StrictDecodingError
	if !errors.As(err, &strictErr) || len(strictErr.Errors) != 2 {
		t.Errorf("error should be a *StrictDecodingError with 2 problems, got %#v", err)
	}

	duplicate := `{"spec":{"replicas":1,"replicas":2}}`
	if _, err := Into([]byte(duplicate), &testPod{}, true); err == nil || err.Error() != `strict decoding error: duplicate field "spec.replicas"` {
		t.Errorf("duplicate in strict mode: %v", err)
	}
}

func TestIntoWarnsAndDropsUnknownFields(t *testing.T) {
	body := `{"kind":"Pod","Kind":"Evil","metadata":{"name":"a","Name":"b"},"spec":{"Replicas":5,"replicas":2,"containers":[{"name":"c","Image":"x","image":"nginx"}]}}`
	var pod testPod
	warnings, err := Into([]byte(body), &pod, false)
	if err != nil {
		t.Fatalf("Into: %v", err)
	}
	wantWarnings := []string{
		`unknown field "Kind"`,
		`unknown field "metadata.Name"`,
		`unknown field "spec.Replicas"`,
		`unknown field "spec.containers[0].Image"`,
	}
	if !reflect.DeepEqual(warnings, wantWarnings) {
		t.Errorf("warnings =\n%q\nwant\n%q", warnings, wantWarnings)
	}
	if pod.Kind != "Pod" || pod.Name != "a" || *pod.Spec.Replicas != 2 || pod.Spec.Containers[0].Image != "nginx" {
		t.Errorf("case-variant keys leaked into the object: %+v", pod)
	}

	// Without the exact key, encoding/json alone would take "Replicas" for
	// replicas; Into must not.
	var only testPod
	if _, err := Into([]byte(`{"spec":{"Replicas":5}}`), &only, false); err != nil {
		t.Fatal(err)
	}
	if only.Spec.Replicas != nil {
		t.Errorf("Replicas set replicas to %d", *only.Spec.Replicas)
	}
}

func TestIntoKeepsNumbersExactWhenPruning(t *testing.T) {
	body := `{"unknown":1,"spec":{"extra":{"big":12345678901234567890,"pi":3.14159265358979323846}}}`
	var pod testPod
	if _, err := Into([]byte(body), &pod, false); err != nil {
		t.Fatal(err)
	}
	extra := pod.Spec.Extra.(map[string]any)
	if extra["big"] != 1.2345678901234567e19 || extra["pi"] != 3.141592653589793 {
		t.Errorf("extra = %v", extra)
	}
}

func TestIntoErrors(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string
	}{
		{
			name: "type mismatch",
			body: `{"spec":{"containers":[{"name":"a","ports":[{"containerPort":"80"}]}]}}`,
			want: "json: cannot unmarshal string into Go struct field",
		},
		{
			name: "type mismatch after pruning",
			body: `{"x":1,"spec":{"replicas":"two"}}`,
			want: "json: cannot unmarshal string into Go struct field",
		},
		{
			name: "bad time",
			body: `{"status":{"startTime":"yesterday"}}`,
			want: `parsing time "yesterday"`,
		},
		{
			name: "syntax",
			body: `{"spec":`,
			want: "unexpected end of JSON input",
		},
		{
			name: "not an object",
			body: `[]`,
			want: "json: cannot unmarshal array into Go value of type decode.testPod",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, strict := range []bool{false, true} {
				_, err := Into([]byte(tc.body), &testPod{}, strict)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("strict=%v: error = %v, want one containing %q", strict, err, tc.want)
				}
			}
		})
	}

	if _, err := Into([]byte(`{}`), testPod{}, false); err == nil {
		t.Errorf("a non-pointer target should be an error")
	}
	var nilPod *testPod
	if _, err := Into([]byte(`{}`), nilPod, false); err == nil {
		t.Errorf("a nil pointer target should be an error")
	}
}

func TestIntoTypeMismatchMessageNamesTheField(t *testing.T) {
	body := `{"spec":{"containers":[{"name":"a","ports":[{"containerPort":"80"}]}]}}`
	_, err := Into([]byte(body), &testPod{}, true)
	if err == nil || !strings.Contains(err.Error(), "spec.containers.ports.containerPort of type int32") {
		t.Errorf("error = %v, want it to name spec.containers.ports.containerPort", err)
	}
}
