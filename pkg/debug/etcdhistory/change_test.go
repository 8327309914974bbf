package etcdhistory

import (
	"strings"
	"testing"
)

func TestDescribeChangeNamesEachChangedField(t *testing.T) {
	tests := []struct {
		name, before, after, want string
	}{
		{"a changed value", `{"data":{"k":"v0"}}`, `{"data":{"k":"v1"}}`, `data.k: "v0" → "v1"`},
		{"an added and a removed field", `{"data":{"a":"1"}}`, `{"data":{"b":"2"}}`, `-data.a, +data.b="2"`},
		{"list items by index", `{"spec":{"ports":[{"port":80}]}}`, `{"spec":{"ports":[{"port":8080}]}}`, `spec.ports[0].port: 80 → 8080`},
		{"an empty object added", `{"metadata":{}}`, `{"metadata":{"labels":{}}}`, `+metadata.labels={}`},
		{"no change", `{"a":1}`, `{"a":1}`, `(no change)`},
		{"not JSON", `v1`, `v2`, `(value): v1 → v2`},
		{"more than three fields", `{"a":1,"b":1,"c":1,"d":1,"e":1}`, `{"a":2,"b":2,"c":2,"d":2,"e":2}`, `a: 1 → 2, b: 1 → 2, c: 1 → 2 and 2 more`},
	}
	for _, tt := range tests {
		if got := DescribeChange([]byte(tt.before), []byte(tt.after)); got != tt.want {
			t.Errorf("%s: describeChange = %q, want %q", tt.name, got, tt.want)
		}
	}
	long := DescribeChange([]byte(`{"a":"x"}`), []byte(`{"a":"`+strings.Repeat("y", 100)+`"}`))
	if !strings.HasSuffix(long, "…") || len([]rune(long)) > len(`a: "x" → `)+maxChangeValueLen {
		t.Errorf("a long value is not cut short: %q", long)
	}
}
