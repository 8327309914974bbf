package leaderelection

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"kplane/pkg/api"
)

// These tests run Run itself inside a synctest bubble: time.Now, timers and
// sleeps use the bubble's fake clock, which jumps ahead whenever every
// goroutine is blocked. Minutes of elections take milliseconds, and the
// durations asserted on are exact protocol bounds, not wall-clock guesses.

const (
	leaseDuration = 15 * time.Second
	renewDeadline = 10 * time.Second
	retryPeriod   = 2 * time.Second
	// maxRetryWait is the longest a candidate sleeps between acquire attempts.
	maxRetryWait = time.Duration((1 + JitterFactor) * float64(retryPeriod))
)

// eventLog records what happened, in order, across candidates and the store.
type eventLog struct {
	mu     sync.Mutex
	events []string
}

func (l *eventLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fmt.Sprintf(format, args...))
}

func (l *eventLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// testCandidate is one LeaderElector running in the bubble, with its
// callbacks recorded.
type testCandidate struct {
	identity string
	le       *LeaderElector
	leases   *fakeLeaseClient
	cancel   context.CancelFunc
	done     chan struct{} // closed when Run returns

	mu            sync.Mutex
	startedAt     time.Time // OnStartedLeading ran
	workStoppedAt time.Time // its context was cancelled and it returned
	stoppedAt     time.Time // OnStoppedLeading ran
	startedCount  int
	stoppedCount  int
	newLeaders    []string
}

func startCandidate(t *testing.T, store *fakeLeaseStore, log *eventLog, identity string, releaseOnCancel bool) *testCandidate {
	t.Helper()
	c := &testCandidate{identity: identity, leases: &fakeLeaseClient{store: store}, done: make(chan struct{})}
	le, err := New(Config{
		Leases: c.leases, Namespace: "kube-system", Name: "kube-scheduler", Identity: identity,
		LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
		ReleaseOnCancel: releaseOnCancel, Logger: discardLogger(),
		Callbacks: Callbacks{
			OnStartedLeading: func(ctx context.Context) {
				c.mu.Lock()
				c.startedAt, c.startedCount = time.Now(), c.startedCount+1
				c.mu.Unlock()
				log.add("%s started leading", identity)
				<-ctx.Done()
				log.add("%s work stopped", identity)
				c.mu.Lock()
				c.workStoppedAt = time.Now()
				c.mu.Unlock()
			},
			OnStoppedLeading: func() {
				c.mu.Lock()
				c.stoppedAt, c.stoppedCount = time.Now(), c.stoppedCount+1
				c.mu.Unlock()
				log.add("%s stopped leading", identity)
			},
			OnNewLeader: func(holder string) {
				c.mu.Lock()
				c.newLeaders = append(c.newLeaders, holder)
				c.mu.Unlock()
			},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	c.le = le
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	go func() {
		defer close(c.done)
		le.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-c.done })
	return c
}

// stop cancels Run's context and waits for Run to return.
func (c *testCandidate) stop() {
	c.cancel()
	<-c.done
}

func (c *testCandidate) snapshot() (started, workStopped, stopped time.Time, startedCount, stoppedCount int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.startedAt, c.workStoppedAt, c.stoppedAt, c.startedCount, c.stoppedCount
}

func (c *testCandidate) leading() bool {
	_, _, _, n, _ := c.snapshot()
	return n > 0
}

// waitUntil sleeps in fake time until cond holds, failing after limit.
func waitUntil(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within %v", what, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func storedLease(t *testing.T, store *fakeLeaseStore) api.LeaseSpec {
	t.Helper()
	lease, err := store.get("kube-scheduler")
	if err != nil {
		t.Fatal(err)
	}
	return lease.Spec
}

func TestRunCreatesRenewsAndReleasesTheLease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store, log := newFakeLeaseStore(), &eventLog{}
		start := time.Now()
		a := startCandidate(t, store, log, "a", true)
		time.Sleep(time.Minute)

		if !a.le.IsLeader() || a.le.GetLeader() != "a" {
			t.Fatalf("IsLeader() = %v, GetLeader() = %q after a minute alone", a.le.IsLeader(), a.le.GetLeader())
		}
		writes := store.history()
		if len(writes) < 2 {
			t.Fatalf("lease written %d times in a minute, want a create and renewals", len(writes))
		}
		for i, w := range writes {
			if *w.HolderIdentity != "a" || *w.LeaseTransitions != 0 || !w.AcquireTime.Equal(start) || *w.LeaseDurationSeconds != 15 {
				t.Errorf("write %d = holder %q transitions %d acquire %v duration %d; want a, 0, %v, 15",
					i, *w.HolderIdentity, *w.LeaseTransitions, w.AcquireTime, *w.LeaseDurationSeconds, start)
			}
			// Renewals come every RetryPeriod and move renewTime only.
			if want := start.Add(time.Duration(i) * retryPeriod); !w.RenewTime.Equal(want) {
				t.Errorf("write %d renewTime = %v, want %v", i, w.RenewTime.Sub(start), want.Sub(start))
			}
		}

		a.stop()
		spec := storedLease(t, store)
		if *spec.HolderIdentity != "" || *spec.LeaseDurationSeconds != 1 {
			t.Errorf("after a clean stop holderIdentity = %q, leaseDurationSeconds = %d; want \"\" and 1",
				*spec.HolderIdentity, *spec.LeaseDurationSeconds)
		}
		_, _, _, started, stopped := a.snapshot()
		if started != 1 || stopped != 1 {
			t.Errorf("OnStartedLeading ran %d times, OnStoppedLeading %d; want 1 and 1", started, stopped)
		}
		if a.le.IsLeader() {
			t.Error("IsLeader() = true after Run returned")
		}
		a.mu.Lock()
		if !slices.Equal(a.newLeaders, []string{"a"}) {
			t.Errorf("OnNewLeader calls = %q, want [a]", a.newLeaders)
		}
		a.mu.Unlock()
		// The guarded work stops before the lease is handed back.
		if got, want := log.list(), []string{"a started leading", "a work stopped", "a stopped leading"}; !slices.Equal(got, want) {
			t.Errorf("events = %q, want %q", got, want)
		}
	})
}

// A standby takes over a leader that stops renewing, but only after the
// lease has gone unrenewed for leaseDurationSeconds, and never while the old
// leader still believes it leads.
func TestStandbyTakesOverWhenTheLeaderStopsRenewing(t *testing.T) {
	tests := []struct {
		name string
		// failLeader makes the leader stop renewing and says how long it
		// keeps leading afterwards (at most; renewals stop at a random
		// point of the retry period).
		failLeader      func(leader *testCandidate)
		leaderStopsIn   time.Duration // upper bound; 0 means at once
		wantLeaderFired bool          // OnStoppedLeading runs in the failed leader
	}{{
		name: "crash without release",
		failLeader: func(leader *testCandidate) {
			leader.stop()
		},
		wantLeaderFired: true,
	}, {
		name:            "apiserver unreachable from the leader",
		failLeader:      func(leader *testCandidate) { leader.leases.setFail(true) },
		leaderStopsIn:   renewDeadline,
		wantLeaderFired: true,
	}, {
		name:            "requests from the leader hang",
		failLeader:      func(leader *testCandidate) { leader.leases.setHang(true) },
		leaderStopsIn:   renewDeadline,
		wantLeaderFired: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store, log := newFakeLeaseStore(), &eventLog{}
				a := startCandidate(t, store, log, "a", false)
				time.Sleep(time.Second)
				b := startCandidate(t, store, log, "b", false)
				time.Sleep(30*time.Second + 700*time.Millisecond)
				if !a.le.IsLeader() || b.le.IsLeader() || b.le.GetLeader() != "a" {
					t.Fatalf("before the failure: a leads %v, b leads %v, b sees %q", a.le.IsLeader(), b.le.IsLeader(), b.le.GetLeader())
				}

				failedAt := time.Now()
				tt.failLeader(a)
				waitUntil(t, time.Minute, "b leading", b.leading)
				bStarted, _, _, _, _ := b.snapshot()
				_, aWorkStopped, aStopped, _, aStoppedCount := a.snapshot()

				takeover := bStarted.Sub(failedAt)
				t.Logf("b took over %v after the leader failed", takeover)
				if low, high := leaseDuration-retryPeriod, leaseDuration+2*maxRetryWait; takeover < low || takeover > high {
					t.Errorf("takeover after %v, want within [%v, %v]", takeover, low, high)
				}
				if aStoppedCount != 1 {
					t.Fatalf("OnStoppedLeading ran %d times in the failed leader, want 1", aStoppedCount)
				}
				if stopIn := aStopped.Sub(failedAt); stopIn > tt.leaderStopsIn || (tt.leaderStopsIn > 0 && stopIn < tt.leaderStopsIn-retryPeriod) {
					t.Errorf("failed leader stopped %v after the failure, want within (%v, %v]", stopIn, tt.leaderStopsIn-retryPeriod, tt.leaderStopsIn)
				}
				if aWorkStopped.IsZero() {
					t.Error("the failed leader's OnStartedLeading context was never cancelled")
				} else if !aWorkStopped.Before(bStarted) {
					t.Errorf("a's work stopped at %v, after b started at %v", aWorkStopped, bStarted)
				}
				spec := storedLease(t, store)
				if *spec.HolderIdentity != "b" || *spec.LeaseTransitions != 1 || !spec.AcquireTime.Equal(bStarted.Truncate(time.Microsecond)) {
					t.Errorf("lease holder %q transitions %d acquireTime %v; want b, 1, %v",
						*spec.HolderIdentity, *spec.LeaseTransitions, spec.AcquireTime, bStarted)
				}
				for _, w := range store.history() {
					if *w.HolderIdentity == "" {
						t.Error("the lease was released although the leader never shut down cleanly")
					}
				}
			})
		})
	}
}

// With ReleaseOnCancel, a clean shutdown hands the lease over within one
// (jittered) retry period instead of a whole lease duration.
func TestCleanReleaseHandsOverAtTheNextRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store, log := newFakeLeaseStore(), &eventLog{}
		a := startCandidate(t, store, log, "a", true)
		time.Sleep(time.Second)
		b := startCandidate(t, store, log, "b", true)
		time.Sleep(20*time.Second + 300*time.Millisecond)

		stoppedAt := time.Now()
		a.stop()
		waitUntil(t, time.Minute, "b leading", b.leading)
		bStarted, _, _, _, _ := b.snapshot()
		takeover := bStarted.Sub(stoppedAt)
		t.Logf("b took over %v after a released the lease", takeover)
		if takeover > maxRetryWait {
			t.Errorf("takeover after %v, want within one jittered retry period (%v)", takeover, maxRetryWait)
		}

		writes := store.history()
		var holders []string
		for _, w := range writes {
			if len(holders) == 0 || holders[len(holders)-1] != *w.HolderIdentity {
				holders = append(holders, *w.HolderIdentity)
			}
		}
		if want := []string{"a", "", "b"}; !slices.Equal(holders, want) {
			t.Errorf("holders over time = %q, want %q", holders, want)
		}
		if last := writes[len(writes)-1]; *last.LeaseTransitions != 1 {
			t.Errorf("leaseTransitions = %d after one hand-over, want 1", *last.LeaseTransitions)
		}
		want := []string{"a started leading", "a work stopped", "a stopped leading", "b started leading"}
		if got := log.list(); !slices.Equal(got, want) {
			t.Errorf("events = %q, want %q", got, want)
		}
	})
}

// A leader that sees another holder on the Lease (an admin handed it over,
// or it was paused for longer than the lease) stops at once instead of
// waiting out its renew deadline.
func TestLeaderStopsWhenAnotherHolderAppears(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store, log := newFakeLeaseStore(), &eventLog{}
		a := startCandidate(t, store, log, "a", true)
		time.Sleep(5*time.Second + 500*time.Millisecond)

		lease, _ := store.get("kube-scheduler")
		lease.Spec.HolderIdentity = ptr("someone-else")
		store.put(lease)
		takenAt := time.Now()
		<-a.done
		_, _, stopped, _, _ := a.snapshot()
		if d := stopped.Sub(takenAt); d > retryPeriod {
			t.Errorf("leader stopped %v after losing the lease, want within one retry period", d)
		}
		if got := *storedLease(t, store).HolderIdentity; got != "someone-else" {
			t.Errorf("holderIdentity = %q; the old leader must not release a lease it no longer holds", got)
		}
	})
}

// A candidate cancelled while still waiting for the lease returns without
// touching it and without running either leading callback.
func TestRunReturnsWhenCancelledWhileWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store, log := newFakeLeaseStore(), &eventLog{}
		a := startCandidate(t, store, log, "a", true)
		time.Sleep(time.Second)
		b := startCandidate(t, store, log, "b", true)
		time.Sleep(7 * time.Second)
		b.stop()
		_, _, _, started, stopped := b.snapshot()
		if started != 0 || stopped != 0 {
			t.Errorf("standby ran OnStartedLeading %d and OnStoppedLeading %d times, want 0 and 0", started, stopped)
		}
		if writes := b.leases.count("create") + b.leases.count("update"); writes != 0 {
			t.Errorf("a standby that never won wrote to the lease %d times", writes)
		}
		if !a.le.IsLeader() {
			t.Error("the leader was disturbed by a standby leaving")
		}
		b.mu.Lock()
		if !slices.Equal(b.newLeaders, []string{"a"}) {
			t.Errorf("standby's OnNewLeader calls = %q, want [a]", b.newLeaders)
		}
		b.mu.Unlock()
	})
}
