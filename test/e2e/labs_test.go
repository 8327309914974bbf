package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"kplane/pkg/cluster"
	"kplane/pkg/lab"
	"kplane/test/framework"
)

// Issue 20, done-when 3, for `ctl lab`: every lab, in English and in
// Chinese, on one cluster (a virtual clock for the autoscaler's scrapes and
// the Lease's expiry, two controller-managers for the failover), the labs
// one after the other with `ctl lab reset` between. At each step `ctl lab
// check` first runs before the step's commands — the step skipped — and
// must fail with the reason and a hint in the lab's language; then the
// commands run as a student types them (a dig becomes the same question
// asked in Go at the address `ctl status` prints, which must be answered)
// and the check must pass and explain.

// labCheckWait bounds, on the wall clock, how long a passing check may
// take to see a step's effect: pods starting and controllers syncing on
// a loaded machine.
const labCheckWait = 30 * time.Second

// labAgainRounds is how often a step's Again commands (moving the virtual
// clock on) are repeated while its check still fails.
const labAgainRounds = 4

func TestLabsFollowedStepByStep(t *testing.T) {
	t.Parallel()
	bin := requireControllerManager(t)
	c := framework.StartCluster(t, func(o *cluster.Options) {
		o.VirtualClock = true
		o.ControllerManagers = 2
	})
	// The student's directory: ./.kplane is the cluster, as after `ctl up`.
	work := t.TempDir()
	if err := os.Symlink(c.Dir, filepath.Join(work, ".kplane")); err != nil {
		t.Fatal(err)
	}
	s := &labSession{t: t, bin: bin, work: work, home: c.Home, began: time.Now()}
	for _, l := range lab.All() {
		for _, lang := range lab.Langs {
			ok := t.Run(l.Name+"/"+string(lang), func(t *testing.T) {
				s.t = t
				s.follow(l, lang)
			})
			if !ok {
				return // the next lab would start on this one's leftovers
			}
		}
	}
}

// labSession runs ctl the way a student does, in work.
type labSession struct {
	t          *testing.T
	bin        string
	work, home string
	began      time.Time
}

// follow starts l in lang, checks every step before and after its
// commands, and resets.
func (s *labSession) follow(l *lab.Lab, lang lab.Lang) {
	t := s.t
	// The language comes from the locale here, --lang in the checks below.
	out := s.mustCtl([]string{"LANG=" + localeOf(lang)}, "lab", "start", l.Name)
	s.expect(out, lab.Textf(lab.Messages.Started, l.Name, l.Title.In(lang)).In(lang))
	for i, step := range l.Steps {
		number := i + 1
		code, out := s.ctl(nil, "lab", "check", "--wait", "0", "--lang", string(lang))
		if code == 0 {
			t.Fatalf("step %d (%s) skipped: ctl lab check passed\n%s", number, step.Title.En, out)
		}
		s.expect(out, fmt.Sprintf(strings.SplitN(lab.Messages.NotYet.In(lang), "%s", 2)[0], number))
		s.expect(out, lab.ExpandDir(lab.Textf(lab.Messages.Hint, step.Hints[0].In(lang)).In(lang), "kplane-lab"))

		for _, cmd := range step.Commands {
			s.run(cmd)
		}
		code, out = s.ctl(nil, "lab", "check", "--wait", labCheckWait.String(), "--lang", string(lang))
		for round := 0; code != 0 && round < labAgainRounds && hasAgain(step); round++ {
			for _, cmd := range step.Commands {
				if cmd.Again {
					s.run(cmd)
				}
			}
			code, out = s.ctl(nil, "lab", "check", "--wait", "5s", "--lang", string(lang))
		}
		if code != 0 {
			t.Fatalf("step %d (%s) done, but ctl lab check exits %d:\n%s", number, step.Title.En, code, out)
		}
		s.expect(out, lab.Textf(lab.Messages.Passed, number, step.Title.In(lang)).In(lang))
		s.expect(out, step.Explain.In(lang))
	}
	s.expect(s.mustCtl(nil, "lab", "check", "--lang", string(lang)), lab.Textf(lab.Messages.Finished, l.Name).In(lang))
	s.expect(s.mustCtl(nil, "lab", "reset", "--lang", string(lang)), lab.Textf(lab.Messages.Reset, l.Name).In(lang))
	t.Logf("lab %s in %s done after %v", l.Name, lang, time.Since(s.began).Round(time.Millisecond))
}

// run runs one of a step's commands in the student's directory.
func (s *labSession) run(cmd lab.Command) {
	s.t.Helper()
	args := cmd.Args("kplane-lab")
	if args[0] == "dig" {
		s.dig(args)
		return
	}
	code, out := s.ctl(nil, args[1:]...)
	switch {
	case cmd.Fails && code == 0:
		s.t.Fatalf("%s: succeeded; the lab says the cluster refuses it\n%s", cmd.Line, out)
	case !cmd.Fails && code != 0:
		s.t.Fatalf("%s: exit %d\n%s", cmd.Line, code, out)
	}
}

// dig asks the cluster DNS, at the address `ctl status` prints, for the
// A records of the name a lab's dig line ends with (`dig @127.0.0.1 -p
// PORT +short NAME`), and fails the test unless there is an answer.
func (s *labSession) dig(args []string) {
	s.t.Helper()
	m := ctlStatusDNSRE.FindStringSubmatch(s.mustCtl(nil, "status"))
	if m == nil {
		s.t.Fatalf("ctl status prints no line `dns 127.0.0.1:<port>`")
	}
	name := dns.Fqdn(args[len(args)-1])
	framework.Eventually(s.t, labCheckWait, func() (bool, string) {
		c := &dns.Client{Timeout: 2 * time.Second}
		r, _, err := c.Exchange(new(dns.Msg).SetQuestion(name, dns.TypeA), m[1])
		if err != nil {
			return false, fmt.Sprintf("%s: %v", strings.Join(args, " "), err)
		}
		return r.Rcode == dns.RcodeSuccess && len(r.Answer) > 0,
			fmt.Sprintf("%s: %s, %d answers", strings.Join(args, " "), dns.RcodeToString[r.Rcode], len(r.Answer))
	})
}

// hasAgain reports whether a step has commands to repeat.
func hasAgain(step lab.Step) bool {
	for _, c := range step.Commands {
		if c.Again {
			return true
		}
	}
	return false
}

// localeOf is a locale whose language is lang.
func localeOf(lang lab.Lang) string {
	if lang == lab.Chinese {
		return "zh_CN.UTF-8"
	}
	return "en_US.UTF-8"
}

// ctl runs the built ctl in the student's directory, with the cluster of
// ./.kplane and extra environment variables, and returns its exit code and
// combined output.
func (s *labSession) ctl(env []string, args ...string) (int, string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, "ctl"), args...)
	cmd.Dir = s.work
	cmd.Env = append(os.Environ(), "KUBECONFIG=", "HOME="+s.home, "LC_ALL=", "LC_MESSAGES=", "LANG=C")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	default:
		s.t.Fatalf("ctl %s: %v", strings.Join(args, " "), err)
		return 0, ""
	}
}

// mustCtl is ctl that fails the test on a non-zero exit.
func (s *labSession) mustCtl(env []string, args ...string) string {
	s.t.Helper()
	code, out := s.ctl(env, args...)
	if code != 0 {
		s.t.Fatalf("ctl %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// expect fails the test when out does not hold want.
func (s *labSession) expect(out, want string) {
	s.t.Helper()
	if !strings.Contains(out, want) {
		s.t.Fatalf("output lacks %q:\n%s", want, out)
	}
}
