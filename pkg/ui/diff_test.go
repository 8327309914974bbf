package ui

import (
	"strings"
	"testing"
)

// render prints a diff as `diff -u`'s body would.
func render(lines []DiffLine) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.Op + l.Text + "\n")
	}
	return b.String()
}

func TestDiffLines(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{name: "equal", old: "a\nb\n", new: "a\nb\n", want: " a\n b\n"},
		{name: "one value changed", old: "spec:\n  replicas: 4\nstatus: {}\n", new: "spec:\n  replicas: 3\nstatus: {}\n",
			want: " spec:\n-  replicas: 4\n+  replicas: 3\n status: {}\n"},
		{name: "line added at the end", old: "a\n", new: "a\nb\n", want: " a\n+b\n"},
		{name: "line removed at the start", old: "a\nb\n", new: "b\n", want: "-a\n b\n"},
		{name: "from nothing", old: "", new: "a\n", want: "+a\n"},
		{name: "to nothing", old: "a\n", new: "", want: "-a\n"},
		{name: "both empty", old: "", new: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, ok := DiffLines(tt.old, tt.new)
			if !ok {
				t.Fatal("DiffLines refused a small input")
			}
			if got := render(lines); got != tt.want {
				t.Errorf("diff:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestDiffLinesApplies checks the diff's defining property on a larger
// input: its ' ' and '-' lines spell the old text, its ' ' and '+' lines
// the new one.
func TestDiffLinesApplies(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\n"
	new := "a\nc\nd\nx\ne\ng\ny\n"
	lines, ok := DiffLines(old, new)
	if !ok {
		t.Fatal("DiffLines refused a small input")
	}
	var before, after strings.Builder
	for _, l := range lines {
		if l.Op != "+" {
			before.WriteString(l.Text + "\n")
		}
		if l.Op != "-" {
			after.WriteString(l.Text + "\n")
		}
	}
	if before.String() != old || after.String() != new {
		t.Errorf("diff does not rebuild its inputs:\n%s", render(lines))
	}
}

func TestDiffLinesRefusesHugeInput(t *testing.T) {
	huge := strings.Repeat("x\n", maxDiffLines+1)
	if _, ok := DiffLines(huge, "x\n"); ok {
		t.Error("DiffLines accepted more than maxDiffLines lines")
	}
}
