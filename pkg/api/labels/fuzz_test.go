package labels

import (
	"reflect"
	"testing"
)

// FuzzParse checks that Parse never panics and that every selector it accepts
// survives a round trip through String: the canonical form parses back to the
// same requirements, prints the same, and selects the same label sets.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"", "app=nginx,tier!=db", "env in (prod, staging)", "env notin (dev)",
		"partition", "!partition", "x in (foo,,baz),y,z notin ()", "a==b",
		"in in (in,notin)", "example.com/app=web", "r>3,s<4", "a=", "a,", "!",
		"a in (", "a=b c", "a/b/c=d", " ! x , y = z ",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
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
		// Label sets built from the selector's own keys and values probe
		// every requirement on both sides of its boundary.
		for _, labels := range probeLabelSets(sel.Requirements()) {
			if sel.Matches(labels) != again.Matches(labels) {
				t.Fatalf("Parse(%q) and Parse(%q) disagree on %v", s, text, labels)
			}
		}
	})
}

func probeLabelSets(reqs []Requirement) []map[string]string {
	sets := []map[string]string{nil}
	all := map[string]string{}
	for _, r := range reqs {
		sets = append(sets, map[string]string{r.Key: "other"})
		for _, v := range r.Values {
			sets = append(sets, map[string]string{r.Key: v})
			all[r.Key] = v
		}
	}
	return append(sets, all)
}
