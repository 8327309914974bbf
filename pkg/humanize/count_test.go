package humanize

import "testing"

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 informers", 1: "1 informer", 3: "3 informers"} {
		if got := Count(n, "informer"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
