package decode

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"kplane/pkg/api/schema"
)

func TestKnownFieldsOnly(t *testing.T) {
	tests := []struct {
		name string
		body string
		want bool
	}{
		{"a known body", `{"kind":"Pod","metadata":{"name":"a","labels":{"x":"y"}},"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}]}]}}`, true},
		{"whitespace everywhere", " {\n\t\"kind\" : \"Pod\" ,\r\n \"spec\" : { \"matrix\" : [ [ 1 , 2 ] , [ ] ] } } \n", true},
		{"empty object, list and map", `{"metadata":{},"spec":{"containers":[],"nodeSelector":{}}}`, true},
		{"an escaped key that is a field", `{"met\u0061data":{"n\u0061me":"a"}}`, true},
		{"an escaped quote and backslash in values", `{"kind":"a\"b\\","apiVersion":"\\\"","metadata":{"labels":{"k\"":"\""}}}`, true},
		{"lists of lists", `{"spec":{"matrix":[[1,2],[3],[]]}}`, true},
		{"maps of objects", `{"spec":{"sidecars":{"a":{"name":"x","ports":[{"containerPort":1}]},"b":{"name":"y"}}}}`, true},
		{"a Leaf is not looked into", `{"spec":{"extra":{"x":{"y":[{"z":"}]\"{"}],"Y":1,"Y":2}}}}`, true},
		{"scalars of every kind", `{"spec":{"replicas":-1.5e3,"extra":[true,false,null,"s",0]}}`, true},
		{"a mismatched shape is left to decoding", `{"spec":[1,{"foo":1}],"metadata":"x","status":{"conditions":{"type":"x"}}}`, true},
		{"null everywhere", `{"spec":null,"metadata":{"labels":null},"status":{"conditions":[null]}}`, true},

		{"an unknown field", `{"kind":"Pod","foo":1}`, false},
		{"an unknown field deep in a list", `{"spec":{"containers":[{"name":"a"},{"name":"b","ports":[{"hostPortt":1}]}]}}`, false},
		{"an unknown field in a map of objects", `{"spec":{"sidecars":{"a":{"nmae":"x"}}}}`, false},
		{"a field in the wrong case", `{"spec":{"Replicas":1}}`, false},
		{"a duplicate field", `{"spec":{"replicas":1,"replicas":2}}`, false},
		{"a duplicate spelled with an escape", `{"kind":"a","\u006bind":"b"}`, false},
		{"a duplicate map key", `{"metadata":{"labels":{"a":"1","b":"2","a":"3"}}}`, false},
		{"a duplicate map key spelled with an escape", `{"metadata":{"labels":{"a":"1","\u0061":"2"}}}`, false},
		{"map keys that are the same once invalid UTF-8 is replaced", "{\"metadata\":{\"labels\":{\"\xff\":\"1\",\"\xfe\":\"2\"}}}", false},
		{"trailing data", `{"kind":"Pod"} {}`, false},
		{"truncated", `{"kind":"Pod","spec":{`, false},
		{"an unterminated string", `{"kind":"Pod`, false},
		{"a missing value", `{"kind":}`, false},
		{"empty", ``, false},
	}
	typ := schema.Of(reflect.TypeFor[testPod]())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := knownFieldsOnly([]byte(tc.body), typ); got != tc.want {
				t.Errorf("knownFieldsOnly = %v, want %v", got, tc.want)
			}
			// Whatever the scanner passes, the slow path must find clean.
			if walked, err := walkFields([]byte(tc.body), typ); tc.want && (err != nil || len(walked.problems) > 0) {
				t.Errorf("the scanner passed a body the slow path rejects: %v, %v", walked.problems, err)
			}
		})
	}
}

func TestIntoEscapedKeys(t *testing.T) {
	var pod testPod
	warnings, err := Into([]byte(`{"met\u0061data":{"name":"a"},"\u006bind":"Pod","spec":{"\u0052eplicas":1}}`), &pod, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{`unknown field "spec.Replicas"`}; !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings = %q, want %q", warnings, want)
	}
	if pod.Name != "a" || pod.Kind != "Pod" || pod.Spec.Replicas != nil {
		t.Errorf("decoded %+v", pod)
	}

	_, err = Into([]byte(`{"kind":"a","\u006bind":"b"}`), &testPod{}, true)
	if err == nil || err.Error() != `strict decoding error: duplicate field "kind"` {
		t.Errorf("escaped duplicate: error = %v", err)
	}
}

// TestIntoManyFields checks duplicate detection in a struct with more fields
// than one word of the scanner's bitset holds.
func TestIntoManyFields(t *testing.T) {
	var fields []reflect.StructField
	for i := range 130 {
		fields = append(fields, reflect.StructField{
			Name: "F" + strconv.Itoa(i),
			Type: reflect.TypeFor[int](),
			Tag:  reflect.StructTag(`json:"f` + strconv.Itoa(i) + `,omitempty"`),
		})
	}
	wide := reflect.StructOf(fields)
	var all []string
	for i := range 130 {
		all = append(all, `"f`+strconv.Itoa(i)+`":`+strconv.Itoa(i))
	}
	tests := []struct {
		name     string
		body     string
		clean    bool     // what knownFieldsOnly should say
		warnings []string // what Into should say
		f129     int64
	}{
		{"every field once", "{" + strings.Join(all, ",") + "}", true, nil, 129},
		{"a duplicate in the third word", `{"f129":1,"f0":2,"f129":3}`, false, []string{`duplicate field "f129"`}, 3},
		{"a duplicate in the second word", `{"f64":1,"f0":2,"f64":3}`, false, []string{`duplicate field "f64"`}, 0},
		{"one bit in each word", `{"f0":1,"f64":2,"f128":3}`, true, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := knownFieldsOnly([]byte(tc.body), schema.Of(wide)); got != tc.clean {
				t.Errorf("knownFieldsOnly = %v, want %v", got, tc.clean)
			}
			obj := reflect.New(wide)
			warnings, err := Into([]byte(tc.body), obj.Interface(), false)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(warnings, tc.warnings) {
				t.Errorf("warnings = %q, want %q", warnings, tc.warnings)
			}
			if got := obj.Elem().Field(129).Int(); got != tc.f129 {
				t.Errorf("f129 = %d, want %d", got, tc.f129)
			}
		})
	}
}
