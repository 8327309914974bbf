package lab

import (
	"context"
	"errors"
	"strings"

	"kplane/pkg/client"
)

// Lab is one guided lab: a scenario from the seeds, as steps.
type Lab struct {
	// Name is what `ctl lab start NAME` takes ("job-pi").
	Name string
	// Title is the one-line title `ctl lab list` shows.
	Title Text
	// Intro says what the lab teaches and what it needs of the cluster
	// (a virtual clock, a second controller-manager).
	Intro Text
	// Files are the lab's embedded files (under files/), written into the
	// lab directory by `ctl lab start` so that the commands can use them.
	Files []string
	// Prepare, when set, runs at `ctl lab start` and records in the memo
	// what later checks compare with (the Lease holder before a failover).
	Prepare func(ctx context.Context, env *Env) error
	// Steps are done in order; the progress points at the current one.
	Steps []Step
	// Cleanup is what `ctl lab reset` deletes: everything the steps create.
	Cleanup []Object
}

// Step is one thing to do and the check that it was done.
type Step struct {
	// Title names the step.
	Title Text
	// Do says what to do and why, before the commands.
	Do Text
	// Commands are what to run, in order; "{dir}" stands for the lab
	// directory that holds the lab's files.
	Commands []Command
	// Check reads the cluster's real state and returns nil when the step
	// is done, an *Unmet saying what is missing when it is not yet, and
	// any other error when the cluster could not be read.
	Check func(ctx context.Context, env *Env) error
	// Explain says what happened inside the control plane — which
	// components acted, in which order — and which `ctl trace`, `ctl why`
	// and `ctl queues` views show it. Shown once the check passes.
	Explain Text
	// Hints help a student whose check fails, the gentlest first.
	Hints []Text
}

// Command is one command line of a step.
type Command struct {
	// Line is the command as the student types it ("ctl apply -f
	// {dir}/job.yaml"). Single quotes group words, as in a shell.
	Line string
	// Again marks a command that may be run once more when the check
	// still fails (moving the virtual clock on), as the hints say.
	Again bool
	// Fails marks a command the cluster refuses on purpose (a pod over
	// the quota): its error is what the step shows.
	Fails bool
}

// Args splits the command line into words, with dir for "{dir}".
func (c Command) Args(dir string) []string {
	return splitWords(c.Expand(dir))
}

// Expand returns the command line with dir for "{dir}".
func (c Command) Expand(dir string) string {
	return strings.ReplaceAll(c.Line, "{dir}", dir)
}

// Tool is the program the command runs ("ctl", "dig").
func (c Command) Tool() string {
	if words := splitWords(c.Line); len(words) > 0 {
		return words[0]
	}
	return ""
}

// splitWords splits a command line at spaces outside single quotes.
func splitWords(line string) []string {
	var words []string
	var word strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			quoted = !quoted
			inWord = true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words
}

// Env is what a check or a Prepare works with.
type Env struct {
	// Client reads and writes the cluster.
	Client *client.Client
	// Memo holds values recorded by Prepare or an earlier check (a pod's
	// UID, a Lease holder), kept with the progress between commands.
	Memo map[string]string
}

// Unmet is a check's answer when its step is not done yet: what it saw.
type Unmet struct {
	Reason Text
}

func (u *Unmet) Error() string { return u.Reason.En }

// unmet says, in both languages, what a check found missing.
func unmet(en, zh string, args ...any) error {
	return &Unmet{Reason: Textf(Text{En: en, Zh: zh}, args...)}
}

// AsUnmet reports whether err is a check's "not done yet", and its reason.
func AsUnmet(err error) (*Unmet, bool) {
	var u *Unmet
	ok := errors.As(err, &u)
	return u, ok
}

// Object names something a lab creates, for `ctl lab reset`: one object
// by Name, or, with Selector, every object of the resource it matches.
type Object struct {
	Resource  client.Resource
	Namespace string
	Name      string
	Selector  string
}
