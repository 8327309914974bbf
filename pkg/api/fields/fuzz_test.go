package fields

import (
	"reflect"
	"testing"
)

// FuzzParse checks that Parse never panics and that every selector it accepts
// survives a round trip through String, and that EscapeValue and
// UnescapeValue are inverses.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"", "metadata.name=x,spec.nodeName!=,status.phase==Running",
		`a=b\,c`, `a=\\`, `a=\=`, "=", "a!==", `a\,b=c`, `a\=b`, "x = y", ",,a=b,,",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, err := UnescapeValue(EscapeValue(s)); err != nil || got != s {
			t.Fatalf("UnescapeValue(EscapeValue(%q)) = %q, %v", s, got, err)
		}
		sel, err := Parse(s)
		if err != nil {
			return
		}
		text := sel.String()
		again, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse(%q) gave %q, which does not parse: %v", s, text, err)
		}
		if got := again.String(); got != text {
			t.Fatalf("Parse(%q) gave %q, which reparses as %q", s, text, got)
		}
		if !reflect.DeepEqual(sel.Requirements(), again.Requirements()) {
			t.Fatalf("Parse(%q) = %#v, reparsed = %#v", s, sel.Requirements(), again.Requirements())
		}
		probe := Set{}
		for _, r := range sel.Requirements() {
			probe[r.Field] = r.Value
			if sel.Matches(probe) != again.Matches(probe) {
				t.Fatalf("Parse(%q) and Parse(%q) disagree on %v", s, text, probe)
			}
		}
	})
}
