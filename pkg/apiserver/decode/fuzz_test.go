package decode

import (
	"encoding/json"
	"reflect"
	"testing"

	"kplane/pkg/api/schema"
)

// FuzzInto checks that no body can make Into panic, that its fast path
// (knownFieldsOnly, then a plain json.Unmarshal) gives exactly what the slow
// path gives (the same warnings, the same error, the same object), and that
// what Into accepts without warnings in strict mode is exactly what a plain
// decode of the same body gives.
func FuzzInto(f *testing.F) {
	for _, seed := range []string{
		`{"kind":"Pod","metadata":{"name":"a","labels":{"x":"y"}},"spec":{"replicas":1,"containers":[{"name":"c","ports":[{"containerPort":80}]}]}}`,
		`{"spec":{"Replicas":5,"foo":{"bar":[1,2,{"x":null}]}},"bar":1}`,
		`{"spec":{"replicas":1,"replicas":2}}`,
		`{"status":{"startTime":"2024-01-01T00:00:00Z","conditions":[{"type":"Ready","lastTransitionTime":null}]}}`,
		`{"spec":{"containers":[{"name":"a","ports":[{"containerPort":"80"}]}]}}`,
		`[1,2]`, `null`, `"x"`, `{`, ``, `{"a":1e400}`, `{"spec":{"extra":{"\u0000":[[[]]]}}}`,
		`{"met\u0061data":{"labels":{"a":"1","\u0061":"2"}},"\u006bind":"x"}`,
		"{\"metadata\":{\"labels\":{\"\xff\":\"1\",\"\xfe\":\"2\"}}}",
		` { "spec" : { "matrix" : [ [ 1 ] , [ ] ] , "sidecars" : { "a" : { "name" : "x\"}" } } } } `,
		`{"kind":"a\\","apiVersion":"\"}{"}`,
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	typ := schema.Of(reflect.TypeFor[testPod]())
	f.Fuzz(func(t *testing.T, body []byte, strict bool) {
		// On valid JSON the scanner agrees with the slow path's walk. (On
		// invalid JSON it may say anything: json.Unmarshal then fails with
		// the same syntax error the slow path reports.)
		if walked, err := walkFields(body, typ); err == nil {
			clean := len(walked.problems) == 0
			if got := knownFieldsOnly(body, typ); got != clean {
				t.Fatalf("knownFieldsOnly(%q) = %v, but the slow path finds %q", body, got, walked.problems)
			}
		}

		var pod testPod
		warnings, err := Into(body, &pod, strict)
		var slow testPod
		slowWarnings, slowErr := intoReporting(body, &slow, typ, strict)
		if errorText(err) != errorText(slowErr) || !reflect.DeepEqual(warnings, slowWarnings) {
			t.Fatalf("fast and slow paths disagree on %q:\n%q, %v\n%q, %v", body, warnings, err, slowWarnings, slowErr)
		}
		if err != nil {
			return // obj may be partly filled, and must be discarded
		}
		if !reflect.DeepEqual(pod, slow) {
			t.Fatalf("fast and slow paths decode %q differently:\n%+v\n%+v", body, pod, slow)
		}

		if len(warnings) > 0 {
			return
		}
		var plain testPod
		if err := json.Unmarshal(body, &plain); err != nil {
			t.Fatalf("Into accepted %q cleanly but encoding/json fails: %v", body, err)
		}
		if !reflect.DeepEqual(pod, plain) {
			t.Fatalf("Into and encoding/json disagree on %q:\n%+v\n%+v", body, pod, plain)
		}
	})
}

// errorText is err's message, or "" for no error.
func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
