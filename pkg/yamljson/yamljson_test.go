package yamljson

import (
	"errors"
	"strings"
	"testing"
)

func TestToJSON(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string
	}{
		{
			name: "JSON passes through unchanged",
			body: ` {"kind":"Pod",  "spec":{"replicas":3}}`,
			want: ` {"kind":"Pod",  "spec":{"replicas":3}}`,
		},
		{
			name: "JSON numbers keep their spelling",
			body: `{"a":1.50}`,
			want: `{"a":1.50}`,
		},
		{
			name: "a JSON array passes through",
			body: `[{"op":"remove","path":"/a"}]`,
			want: `[{"op":"remove","path":"/a"}]`,
		},
		{
			name: "YAML keeps key order and integers",
			body: "apiVersion: v1\nkind: Pod\nspec:\n  replicas: 3\n  cpu: 0.5\n",
			want: `{"apiVersion":"v1","kind":"Pod","spec":{"replicas":3,"cpu":0.5}}`,
		},
		{
			name: "non-string keys become strings",
			body: "80: http\ntrue: yes\n1.5: x\n",
			want: `{"80":"http","true":"yes","1.5":"x"}`,
		},
		{
			name: "timestamps and quoted numbers stay strings",
			body: "date: 2024-01-01\nwhen: 2024-01-01T10:00:00Z\nport: \"8080\"\nversion: '1.0'\n",
			want: `{"date":"2024-01-01","when":"2024-01-01T10:00:00Z","port":"8080","version":"1.0"}`,
		},
		{
			name: "YAML numbers, bools and nulls",
			body: "hex: 0x10\nneg: -7\nbig: 18446744073709551615\nexp: 1e3\nt: true\nn: null\ntilde: ~\nempty:\n",
			want: `{"hex":16,"neg":-7,"big":18446744073709551615,"exp":1000,"t":true,"n":null,"tilde":null,"empty":null}`,
		},
		{
			name: "sequences and block strings",
			body: "args:\n- sh\n- -c\n- |\n  echo hi\n  sleep 1\n",
			want: `{"args":["sh","-c","echo hi\nsleep 1\n"]}`,
		},
		{
			name: "anchors, aliases and merge keys",
			body: "defaults: &d\n  a: 1\n  b: 2\nuse:\n  <<: *d\n  b: 3\ncopy: *d\n",
			want: `{"defaults":{"a":1,"b":2},"use":{"a":1,"b":3},"copy":{"a":1,"b":2}}`,
		},
		{
			name: "merge of a sequence: the first mapping wins",
			body: "x: &x {a: 1}\ny: &y {a: 2, b: 2}\nz:\n  <<: [*x, *y]\n",
			want: `{"x":{"a":1},"y":{"a":2,"b":2},"z":{"a":1,"b":2}}`,
		},
		{
			name: "only the first document is read",
			body: "---\nkind: Pod\n---\nkind: Service\n",
			want: `{"kind":"Pod"}`,
		},
		{
			name: "special characters are escaped",
			body: "msg: \"say \\\"hi\\\" <b>\\t\"\n",
			want: `{"msg":"say \"hi\" \u003cb\u003e\t"}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ToJSON([]byte(tc.body))
			if err != nil {
				t.Fatalf("ToJSON: %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("ToJSON =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestToJSONErrors(t *testing.T) {
	deepAliases := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i, prev := 'b', 'a'; i <= 'k'; i, prev = i+1, i {
		deepAliases += string(i) + ": &" + string(i) + " [*" + string(prev) + ", *" + string(prev) + ", *" + string(prev) + ", *" + string(prev) + ", *" + string(prev) + ", *" + string(prev) + ", *" + string(prev) + ", *" + string(prev) + ", *" + string(prev) + ", *" + string(prev) + "]\n"
	}
	tests := []struct {
		name string
		body string
		want string
	}{
		{
			name: "syntax errors name the line",
			body: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers:\n  - name: a: b\n",
			want: "yaml: line 7: mapping values are not allowed in this context",
		},
		{
			name: "duplicate keys",
			body: "kind: Pod\nkind: Service\n",
			want: `yaml: line 2: mapping key "kind" already defined at line 1`,
		},
		{
			name: "infinity has no JSON form",
			body: "x: .inf\n",
			want: "yaml: line 1: .inf cannot be represented in JSON",
		},
		{
			name: "a mapping as a key",
			body: "? {a: 1}\n: x\n",
			want: "yaml: line 1: a mapping key must be a scalar, not a mapping",
		},
		{
			name: "billion laughs",
			body: deepAliases,
			want: "yaml: document contains excessive aliasing",
		},
		{
			name: "merging a scalar",
			body: "a:\n  <<: 1\n",
			want: "yaml: line 2: map merge requires map or sequence of maps as the value",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ToJSON([]byte(tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ToJSON error = %v, want one containing %q", err, tc.want)
			}
		})
	}

	for _, empty := range []string{"", "  \n", "# only a comment\n"} {
		if _, err := ToJSON([]byte(empty)); !errors.Is(err, ErrEmpty) {
			t.Errorf("ToJSON(%q) error = %v, want ErrEmpty", empty, err)
		}
	}
}
