package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kplane/pkg/leaderelection"
	"kplane/test/framework"
)

// Short election timings so the test takes seconds; the ratios are the
// upstream ones' spirit (lease > renew deadline > 1.2 × retry).
const (
	electionLeaseDuration = 3 * time.Second
	electionRenewDeadline = 2 * time.Second
	electionRetryPeriod   = 300 * time.Millisecond
	// electionMaxRetryWait is the longest a standby sleeps between tries.
	electionMaxRetryWait = time.Duration((1 + leaderelection.JitterFactor) * float64(electionRetryPeriod))
)

// TestLeaderElectionAcrossProcesses runs leader-election candidates as
// separate processes against a real apiserver, as kube-controller-manager
// replicas run: exactly one leads at a time; when the leader is SIGKILLed a
// standby takes over once the lease expires; when the leader is SIGTERMed it
// releases the lease and a standby takes over at its next retry; kubectl
// shows the Lease as the seeds do.
func TestLeaderElectionAcrossProcesses(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	bin := buildLeaseCandidate(t)
	rec := &leadershipRecord{}
	start := func(label string) *candidateProcess {
		return startLeaseCandidate(t, bin, a.KubeconfigPath(), label, rec)
	}

	// 1. The first candidate creates the Lease and leads; a second one
	// started afterwards stays a standby for longer than a lease duration.
	first := start("a")
	waitForLine(t, first, "leading", 10*time.Second)
	second := start("b")
	waitForLine(t, second, "observed "+first.identity, 10*time.Second)
	time.Sleep(electionLeaseDuration + electionMaxRetryWait)
	if second.saw("leading") {
		t.Fatalf("the standby started leading while the leader was alive:\n%s", rec.dump())
	}

	// 2. SIGKILL the leader: nobody releases the Lease, so the standby waits
	// for it to expire (by its own clock) before taking over.
	killedAt := first.kill(t)
	second.waitFor(t, "leading", electionLeaseDuration+4*electionMaxRetryWait+5*time.Second)
	takeover := second.firstTime("leading").Sub(killedAt)
	t.Logf("takeover after SIGKILL: %v (lease duration %v, retry period %v)", takeover, electionLeaseDuration, electionRetryPeriod)
	// The standby must have waited for expiry: the leader's last renewal
	// was at most one retry period before the kill.
	if low := electionLeaseDuration - 2*electionRetryPeriod; takeover < low {
		t.Errorf("standby took over %v after SIGKILL, before the lease could have expired (%v)", takeover, low)
	}

	// 3. SIGTERM the new leader: it stops its work, releases the Lease, and
	// a third candidate takes over at its next retry, not after expiry.
	third := start("c")
	waitForLine(t, third, "observed "+second.identity, 10*time.Second)
	termAt := second.terminate(t)
	if !second.saw("stopped") {
		t.Errorf("SIGTERMed leader did not report that it stopped leading")
	}
	third.waitFor(t, "leading", electionLeaseDuration+4*electionMaxRetryWait+5*time.Second)
	handover := third.firstTime("leading").Sub(termAt)
	t.Logf("takeover after SIGTERM (released lease): %v", handover)
	if high := electionLeaseDuration - electionRetryPeriod; handover >= high {
		t.Errorf("standby took over %v after a clean stop; a released lease should go at the next retry, well before expiry (%v)", handover, high)
	}

	if err := rec.overlap(); err != nil {
		t.Errorf("%v\n%s", err, rec.dump())
	}

	// 4. kubectl shows the holder, and the YAML looks like the seed's.
	table := a.MustKubectl(t, "get", "lease", "-n", "kube-system")
	header := strings.Fields(strings.SplitN(table, "\n", 2)[0])
	if len(header) < 2 || header[0] != "NAME" || header[1] != "HOLDER" {
		t.Errorf("kubectl get lease header = %q, want NAME HOLDER AGE", header)
	}
	if !regexp.MustCompile(`(?m)^kube-controller-manager\s+` + regexp.QuoteMeta(third.identity) + `\s`).MatchString(table) {
		t.Errorf("kubectl get lease does not show %s holding kube-controller-manager:\n%s", third.identity, table)
	}
	yaml := a.MustKubectl(t, "get", "lease", "kube-controller-manager", "-n", "kube-system", "-o", "yaml")
	t.Logf("kubectl get lease -n kube-system:\n%s\nkubectl get lease kube-controller-manager -n kube-system -o yaml:\n%s", table, yaml)
	micro := `"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"`
	for _, want := range []string{
		`(?m)^apiVersion: coordination\.k8s\.io/v1$`,
		`(?m)^kind: Lease$`,
		`(?m)^  acquireTime: ` + micro + `$`,
		`(?m)^  holderIdentity: ` + regexp.QuoteMeta(third.identity) + `$`,
		fmt.Sprintf(`(?m)^  leaseDurationSeconds: %d$`, int(electionLeaseDuration/time.Second)),
		// a created it (0), b took over from a dead a (1), c from a released b (2).
		`(?m)^  leaseTransitions: 2$`,
		`(?m)^  renewTime: ` + micro + `$`,
	} {
		if !regexp.MustCompile(want).MatchString(yaml) {
			t.Errorf("kubectl get lease -o yaml does not match %s:\n%s", want, yaml)
		}
	}
	third.terminate(t)
}

// buildLeaseCandidate compiles test/cmd/lease-candidate into a temp dir.
func buildLeaseCandidate(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "lease-candidate")
	build := exec.Command("go", "build", "-o", bin, "./test/cmd/lease-candidate")
	build.Dir = framework.RepoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build lease-candidate: %v\n%s", err, out)
	}
	return bin
}

// leadershipEvent is one line a candidate printed.
type leadershipEvent struct {
	process string // the test's label for the process: "a", "b", "c"
	kind    string // observed, leading, stopped, exited
	subject string // identity in the line
	at      time.Time
}

// leadershipRecord collects every candidate's events; the times come from
// the candidates' own wall clocks (one machine), so events from different
// processes can be ordered even though their pipes are read independently.
type leadershipRecord struct {
	mu     sync.Mutex
	events []leadershipEvent
}

func (r *leadershipRecord) add(e leadershipEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *leadershipRecord) dump() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, e := range r.events {
		fmt.Fprintf(&b, "  %s %s: %s %s\n", e.at.Format("15:04:05.000000"), e.process, e.kind, e.subject)
	}
	return b.String()
}

// overlap reports two processes leading at the same moment. A process leads
// from its "leading" line until its "stopped" line, or until it exited
// (SIGKILL leaves no "stopped" line).
func (r *leadershipRecord) overlap() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	type interval struct {
		process    string
		start, end time.Time
	}
	var terms []interval
	open := map[string]int{}
	for _, e := range r.events {
		switch e.kind {
		case "leading":
			open[e.process] = len(terms)
			terms = append(terms, interval{process: e.process, start: e.at, end: time.Now().Add(time.Hour)})
		case "stopped", "exited":
			if i, ok := open[e.process]; ok {
				if e.at.Before(terms[i].end) {
					terms[i].end = e.at
				}
				delete(open, e.process)
			}
		}
	}
	for i := range terms {
		for j := i + 1; j < len(terms); j++ {
			x, y := terms[i], terms[j]
			if x.start.Before(y.end) && y.start.Before(x.end) {
				return fmt.Errorf("%s (from %s) and %s (from %s) led at the same time",
					x.process, x.start.Format("15:04:05.000000"), y.process, y.start.Format("15:04:05.000000"))
			}
		}
	}
	return nil
}

// candidateProcess is one running lease-candidate.
type candidateProcess struct {
	label, identity string
	cmd             *exec.Cmd
	stderr          *lockedBuffer
	rec             *leadershipRecord
	exited          chan struct{}

	mu    sync.Mutex
	lines []leadershipEvent
}

func startLeaseCandidate(t *testing.T, bin, kubeconfig, label string, rec *leadershipRecord) *candidateProcess {
	t.Helper()
	p := &candidateProcess{label: label, identity: leaderelection.NewIdentity(), rec: rec,
		stderr: &lockedBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(bin, "--kubeconfig", kubeconfig, "--name", "kube-controller-manager",
		"--identity", p.identity, "--lease-duration", electionLeaseDuration.String(),
		"--renew-deadline", electionRenewDeadline.String(), "--retry-period", electionRetryPeriod.String())
	p.cmd.Stdout = &lineWriter{onLine: p.onLine}
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start lease-candidate %s: %v", label, err)
	}
	go func() {
		_ = p.cmd.Wait()
		rec.add(leadershipEvent{process: label, kind: "exited", at: time.Now()})
		close(p.exited)
	}()
	t.Cleanup(func() {
		// Stop only this process, by its PID.
		_ = p.cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("stderr of candidate %s (%s):\n%s", label, p.identity, p.stderr.String())
		}
	})
	return p
}

// onLine parses "<kind> <identity> <RFC 3339 time>".
func (p *candidateProcess) onLine(line string) {
	fields := strings.Fields(line)
	if len(fields) != 3 {
		return
	}
	at, err := time.Parse(time.RFC3339Nano, fields[2])
	if err != nil {
		return
	}
	e := leadershipEvent{process: p.label, kind: fields[0], subject: fields[1], at: at}
	p.mu.Lock()
	p.lines = append(p.lines, e)
	p.mu.Unlock()
	p.rec.add(e)
}

// saw reports whether the process printed a line starting with prefix
// ("leading", or "observed <identity>").
func (p *candidateProcess) saw(prefix string) bool {
	return !p.firstTime(prefix).IsZero()
}

func (p *candidateProcess) firstTime(prefix string) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.lines {
		if strings.HasPrefix(e.kind+" "+e.subject, prefix) {
			return e.at
		}
	}
	return time.Time{}
}

func (p *candidateProcess) waitFor(t *testing.T, prefix string, timeout time.Duration) {
	t.Helper()
	framework.Eventually(t, timeout, func() (bool, string) {
		return p.saw(prefix), fmt.Sprintf("candidate %s has not printed %q; events:\n%s\nits stderr:\n%s",
			p.label, prefix, p.rec.dump(), p.stderr)
	})
}

func waitForLine(t *testing.T, p *candidateProcess, prefix string, timeout time.Duration) {
	t.Helper()
	p.waitFor(t, prefix, timeout)
}

// kill sends SIGKILL (no chance to release) and waits for the process to
// die; it returns when the signal was sent.
func (p *candidateProcess) kill(t *testing.T) time.Time {
	t.Helper()
	return p.signal(t, syscall.SIGKILL)
}

// terminate sends SIGTERM (clean shutdown: stop leading, release the
// Lease) and waits for the process to exit.
func (p *candidateProcess) terminate(t *testing.T) time.Time {
	t.Helper()
	return p.signal(t, syscall.SIGTERM)
}

func (p *candidateProcess) signal(t *testing.T, sig os.Signal) time.Time {
	t.Helper()
	at := time.Now()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal candidate %s: %v", p.label, err)
	}
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("candidate %s did not exit after %v", p.label, sig)
	}
	return at
}

// lineWriter calls onLine for every complete line written to it.
type lineWriter struct {
	mu     sync.Mutex
	buf    []byte
	onLine func(string)
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		w.onLine(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
}
