package lab

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"kplane/test/framework/fakeapi"
)

func TestLabsAreWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range All() {
		if seen[l.Name] {
			t.Errorf("two labs called %s", l.Name)
		}
		seen[l.Name] = true
		if found, err := Find(l.Name); err != nil || found.Name != l.Name {
			t.Errorf("Find(%s) = %v, %v", l.Name, found, err)
		}
		if len(l.Steps) < 2 {
			t.Errorf("%s: %d steps; a lab has at least 2", l.Name, len(l.Steps))
		}
		if len(l.Cleanup) == 0 {
			t.Errorf("%s: nothing to clean up on reset", l.Name)
		}
		for _, name := range l.Files {
			if _, err := File(name); err != nil {
				t.Errorf("%s: %v", l.Name, err)
			}
		}
		for i, s := range l.Steps {
			if s.Check == nil {
				t.Errorf("%s step %d: no check", l.Name, i+1)
			}
			if len(s.Commands) == 0 {
				t.Errorf("%s step %d: no command", l.Name, i+1)
			}
			for _, c := range s.Commands {
				if tool := c.Tool(); tool != "ctl" && tool != "dig" {
					t.Errorf("%s step %d: command %q runs %s; the labs use ctl (and dig)", l.Name, i+1, c.Line, tool)
				}
				for _, word := range c.Args("DIR") {
					if file, ok := strings.CutPrefix(word, "DIR/"); ok && !slices.Contains(l.Files, file) {
						t.Errorf("%s step %d: %q uses %s, which is not among the lab's files %v", l.Name, i+1, c.Line, file, l.Files)
					}
				}
			}
		}
	}
	if _, err := Find("nope"); err == nil {
		t.Error("Find(nope) succeeded")
	}
}

func TestCommandArgs(t *testing.T) {
	for line, want := range map[string][]string{
		"ctl apply -f {dir}/job.yaml":                                 {"ctl", "apply", "-f", "lab/job.yaml"},
		`ctl patch quota pods -p '{"spec": {"hard": {"pods": "3"}}}'`: {"ctl", "patch", "quota", "pods", "-p", `{"spec": {"hard": {"pods": "3"}}}`},
		"ctl  get   pods":                                             {"ctl", "get", "pods"},
	} {
		if got := (Command{Line: line}).Args("lab"); !slices.Equal(got, want) {
			t.Errorf("Args(%q) = %q, want %q", line, got, want)
		}
	}
}

// TestChecksOnAnEmptyClusterSayWhatIsMissing runs every check against an
// empty apiserver: a check whose step creates something must say, in
// both languages and without a formatting slip, what it did not find.
func TestChecksOnAnEmptyClusterSayWhatIsMissing(t *testing.T) {
	server := fakeapi.New(t)
	ctx := context.Background()
	for _, l := range All() {
		for i, s := range l.Steps {
			where := fmt.Sprintf("%s step %d", l.Name, i+1)
			err := s.Check(ctx, &Env{Client: server.Client(), Memo: map[string]string{}})
			u, notYet := AsUnmet(err)
			switch {
			case err == nil:
				// A step that deletes something is done on an empty cluster.
			case !notYet:
				if l.Name != "failover" { // no Lease in an empty cluster: a real error
					t.Errorf("%s: check failed with %v; want an *Unmet saying what is missing", where, err)
				}
			default:
				checkTranslated(t, where+" unmet", u.Reason)
				if strings.Contains(u.Reason.En+u.Reason.Zh, "%!") {
					t.Errorf("%s: a formatting slip: %+v", where, u.Reason)
				}
			}
		}
	}
}
