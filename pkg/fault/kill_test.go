package fault

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"kplane/pkg/cluster"
	"kplane/pkg/debug"
)

// fakeWorld is a KillEnv over a fixed set of announced endpoints and Lease
// holders, recording what it was asked to do.
type fakeWorld struct {
	endpoints []debug.Endpoint
	holders   map[string]string
	signalErr error

	signalled []string
	held      map[string]time.Time
}

func (w *fakeWorld) env() KillEnv {
	return KillEnv{
		Endpoints: func(string) ([]debug.Endpoint, error) { return w.endpoints, nil },
		LeaseHolder: func(_ context.Context, lease string) (string, error) {
			return w.holders[lease], nil
		},
		HoldDown: func(_, component string, until time.Time) error {
			if w.held == nil {
				w.held = map[string]time.Time{}
			}
			w.held[component] = until
			return nil
		},
		Signal: func(_, component string, sig syscall.Signal) (cluster.ProcessRecord, bool, error) {
			if w.signalErr != nil {
				return cluster.ProcessRecord{}, false, w.signalErr
			}
			w.signalled = append(w.signalled, component+" "+signalName(sig))
			return cluster.ProcessRecord{PID: 4242}, true, nil
		},
	}
}

// twoControllerManagers is a cluster whose standby controller-manager
// leads the election.
func twoControllerManagers() *fakeWorld {
	return &fakeWorld{
		endpoints: []debug.Endpoint{
			{Component: "apiserver"},
			{Component: "controller-manager", Identity: "cm-a"},
			{Component: "controller-manager-2", Identity: "cm-b"},
			{Component: "scheduler", Identity: "sched-a"},
		},
		holders: map[string]string{
			"kube-system/kube-controller-manager": "cm-b",
			"kube-system/kube-scheduler":          "sched-a",
		},
	}
}

// TestKillTheLeaderFindsTheLeasesHolder: with Leader set, the process
// signalled is the one whose announced identity holds the Lease, and the
// text names it, the Lease and what a standby will do.
func TestKillTheLeaderFindsTheLeasesHolder(t *testing.T) {
	w := twoControllerManagers()
	got, text, err := KillComponent(context.Background(), w.env(), Kill{Component: "controller-manager", Leader: true, Signal: syscall.SIGKILL})
	if err != nil {
		t.Fatal(err)
	}
	want := KillResult{Component: "controller-manager-2", Lease: "kube-system/kube-controller-manager", PID: 4242, Signal: "KILL", Supervised: true, Candidates: 2}
	if got != want {
		t.Errorf("result %+v, want %+v", got, want)
	}
	if len(w.signalled) != 1 || w.signalled[0] != "controller-manager-2 KILL" {
		t.Errorf("signalled %v, want controller-manager-2 KILL only", w.signalled)
	}
	for _, line := range []string{
		"fault injected: sent SIGKILL to controller-manager-2, the leader of the Lease kube-system/kube-controller-manager (pid 4242).",
		"a standby takes over only once it\n  expires",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("text lacks %q:\n%s", line, text)
		}
	}
	if strings.Contains(text, "--controller-managers 2") {
		t.Errorf("text suggests a standby to a cluster that has one:\n%s", text)
	}
}

// TestKillTheOnlyLeaderSaysTheRestartedProcessTakesOver: a lone
// scheduler killed with SIGTERM releases its Lease; its successor is
// itself, restarted.
func TestKillTheOnlyLeaderSaysTheRestartedProcessTakesOver(t *testing.T) {
	w := twoControllerManagers()
	_, text, err := KillComponent(context.Background(), w.env(), Kill{Component: "scheduler", Leader: true, Signal: syscall.SIGTERM})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "SIGTERM let the leader release its Lease as it stopped: the restarted process takes it") ||
		!strings.Contains(text, "pods created meanwhile stay Pending") {
		t.Errorf("text:\n%s", text)
	}
}

// TestKillRefusesWhatItCannotFind: no holder, a holder no process
// announces, and a negative --down-for are errors, and nothing is
// signalled.
func TestKillRefusesWhatItCannotFind(t *testing.T) {
	for name, c := range map[string]struct {
		holder, wantErr string
		downFor         time.Duration
	}{
		"nobody holds the Lease": {holder: "", wantErr: "nobody holds the Lease kube-system/kube-controller-manager now"},
		"a dead leader's Lease":  {holder: "cm-gone", wantErr: `is held by "cm-gone", which no running component announces`},
		"negative down-for":      {holder: "cm-a", downFor: -time.Second, wantErr: "must not be negative"},
	} {
		t.Run(name, func(t *testing.T) {
			w := twoControllerManagers()
			w.holders["kube-system/kube-controller-manager"] = c.holder
			_, _, err := KillComponent(context.Background(), w.env(), Kill{Component: "controller-manager", Leader: true, Signal: syscall.SIGTERM, DownFor: c.downFor})
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("error %v, want one containing %q", err, c.wantErr)
			}
			if len(w.signalled) > 0 {
				t.Errorf("signalled %v after an error", w.signalled)
			}
		})
	}
}

// TestKillDownForHoldsTheComponentDown: --down-for asks the supervisor to
// hold the named process down that long before the signal, and says so.
func TestKillDownForHoldsTheComponentDown(t *testing.T) {
	w := twoControllerManagers()
	before := time.Now()
	_, text, err := KillComponent(context.Background(), w.env(), Kill{Component: "kubelet-node1", Signal: syscall.SIGTERM, DownFor: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if until, ok := w.held["kubelet-node1"]; !ok || until.Before(before.Add(time.Minute)) || until.After(time.Now().Add(time.Minute)) {
		t.Errorf("held %v, want kubelet-node1 for a minute from the kill", w.held)
	}
	if !strings.Contains(text, "keeps it down for 1m0s") || !strings.Contains(text, "ctl get node node1 -w") {
		t.Errorf("text:\n%s", text)
	}

	w.signalErr = errors.New("no such process")
	if _, _, err := KillComponent(context.Background(), w.env(), Kill{DataDir: t.TempDir(), Component: "kubelet-node2", Signal: syscall.SIGTERM, DownFor: time.Minute}); err == nil {
		t.Error("a failed signal reported no error")
	}
}

// TestParseSignal accepts the two signals a kill sends, in either
// spelling and any case, and nothing else.
func TestParseSignal(t *testing.T) {
	for in, want := range map[string]syscall.Signal{"TERM": syscall.SIGTERM, "sigterm": syscall.SIGTERM, "KILL": syscall.SIGKILL, "SigKill": syscall.SIGKILL} {
		if got, err := ParseSignal(in); err != nil || got != want {
			t.Errorf("ParseSignal(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"HUP", "", "9"} {
		if _, err := ParseSignal(in); err == nil {
			t.Errorf("ParseSignal(%q) accepted it", in)
		}
	}
}
