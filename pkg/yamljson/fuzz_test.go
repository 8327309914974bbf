package yamljson

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzToJSON checks that no body can make ToJSON panic, and that whatever
// it returns for YAML is valid JSON.
func FuzzToJSON(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n",
		"a: &a [1, 2]\nb: *a\nc:\n  <<: {x: 1}\n",
		"- 0x10\n- .inf\n- 2024-01-01\n- !!binary aGk=\n- !!int '3'\n",
		"? [a]\n: b\n", "a: b: c\n", "{\"json\": true}", "---\n---\n", "&a [*a]",
		"x: !!float abc\n", "<<: [*missing]\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := ToJSON(body)
		if err != nil {
			return
		}
		trimmed := bytes.TrimLeft(body, " \t\r\n")
		if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
			if !bytes.Equal(out, body) {
				t.Fatalf("JSON %q should pass through unchanged, got %q", body, out)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("ToJSON(%q) = %q, not valid JSON", body, out)
		}
	})
}
