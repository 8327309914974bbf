package robustness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"
)

// FaultKind names a fault the run injects.
type FaultKind string

// The faults, each a way real clusters fail.
const (
	// APIServerKill: kill -9 the apiserver and start it again. Requests
	// in flight lose their answer (unknown outcome), every watch breaks.
	APIServerKill FaultKind = "apiserver-kill"
	// APIServerRestart: SIGTERM, wait for a clean exit, start again.
	APIServerRestart FaultKind = "apiserver-restart"
	// EtcdCompaction: compact etcd to its current revision, as the
	// periodic compactor does with older ones: watches resuming from an
	// older resourceVersion get 410 Gone.
	EtcdCompaction FaultKind = "etcd-compaction"
	// APIServerCompact: the apiserver's own `ctl fault compact` — it drops
	// every watch it serves, then compacts etcd past everything it
	// delivered, so every client meets 410 and relists.
	APIServerCompact FaultKind = "apiserver-compact-drop-watches"
	// WatchDrop: every watcher's connection is cut from the client side;
	// each resumes from the last resourceVersion it saw.
	WatchDrop FaultKind = "watch-drop"
	// EtcdMemberKill: kill -9 one of the three etcd members and start it
	// again; the others keep a quorum, clients fail over.
	EtcdMemberKill FaultKind = "etcd-member-kill"
)

// AllFaults lists every fault kind, in the order the report prints them.
var AllFaults = []FaultKind{APIServerKill, APIServerRestart, EtcdCompaction, APIServerCompact, WatchDrop, EtcdMemberKill}

// Injector injects one fault at a time, each Interval, cycling through
// every kind in a fresh random order each round so that each kind is
// injected about as often as the others.
type Injector struct {
	cluster  *Cluster
	recorder *Recorder
	api      *apiClient
	watchers func() []*Watcher
	interval time.Duration
	logf     func(format string, args ...any)

	mu     sync.Mutex
	counts map[FaultKind]int
	// rounds counts the rounds completed: every kind injected once more.
	rounds int
	// failures are faults that could not be injected or recovered from:
	// the run cannot be trusted with them, so the test fails.
	failures []string
}

// Run injects faults until ctx ends, then leaves the cluster whole.
func (in *Injector) Run(ctx context.Context) {
	var round []FaultKind
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(in.interval):
		}
		if len(round) == 0 {
			round = slices.Clone(AllFaults)
			rand.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
		}
		kind := round[0]
		round = round[1:]
		// A fault is always carried through, recovery included, even when
		// the run ends meanwhile: the cluster must be whole for the checks.
		err := in.inject(context.WithoutCancel(ctx), kind)
		in.mu.Lock()
		in.counts[kind]++
		if len(round) == 0 {
			in.rounds++
		}
		if err != nil {
			in.failures = append(in.failures, fmt.Sprintf("%s: %v", kind, err))
		}
		in.mu.Unlock()
		if in.logf != nil {
			in.logf("fault %s injected (err: %v)", kind, err)
		}
	}
}

func (in *Injector) inject(ctx context.Context, kind FaultKind) error {
	switch kind {
	case APIServerKill:
		in.cluster.APIServer.kill()
		return in.restartAPIServer(ctx)
	case APIServerRestart:
		in.cluster.APIServer.stop(30 * time.Second)
		return in.restartAPIServer(ctx)
	case EtcdCompaction:
		rev, err := in.recorder.CatchUp(ctx)
		if err != nil {
			return err
		}
		return in.recorder.Compact(ctx, rev)
	case APIServerCompact:
		if _, err := in.recorder.CatchUp(ctx); err != nil {
			return err
		}
		reqCtx, cancel := context.WithTimeout(ctx, 40*time.Second)
		defer cancel()
		code, body, err := in.api.do(reqCtx, http.MethodPost, "/debug/kplane/fault/compact", "", nil)
		if err != nil {
			return err
		}
		if code != http.StatusOK {
			return fmt.Errorf("POST /debug/kplane/fault/compact: %s", statusMessage(code, body))
		}
		return nil
	case WatchDrop:
		for _, w := range in.watchers() {
			w.Drop()
		}
		return nil
	case EtcdMemberKill:
		i := rand.IntN(len(in.cluster.Members))
		m := in.cluster.Members[i]
		m.kill()
		pause(ctx, 500*time.Millisecond)
		if err := m.start(); err != nil {
			return err
		}
		// Back in the cluster before the next fault may take another.
		if err := in.recorder.WaitMember(ctx, in.cluster.EtcdEndpoints[i]); err != nil {
			if !m.running() {
				return fmt.Errorf("%w; %s exited, the end of %s:\n%s", err, m.name, m.log, m.logTail(15))
			}
			return err
		}
		return nil
	}
	return fmt.Errorf("unknown fault %q", kind)
}

func (in *Injector) restartAPIServer(ctx context.Context) error {
	if err := in.cluster.APIServer.start(); err != nil {
		return err
	}
	return in.cluster.WaitReady(ctx)
}

// Counts returns how many faults of each kind were injected.
func (in *Injector) Counts() map[FaultKind]int {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make(map[FaultKind]int, len(in.counts))
	for k, v := range in.counts {
		out[k] = v
	}
	return out
}

// Rounds returns how many times every fault kind has been injected.
func (in *Injector) Rounds() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.rounds
}

// Failures returns the faults that went wrong.
func (in *Injector) Failures() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return slices.Clone(in.failures)
}
