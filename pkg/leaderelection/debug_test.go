package leaderelection

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"kplane/pkg/debug"
)

// DebugState tells the debug API who leads, and the journal gets an event
// record at each step of the election: a standby sees the leader, takes
// over when it stops, and reports that it leads.
func TestDebugStateAndJournalEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newFakeLeaseStore()
		journal := debug.NewJournal("scheduler", 100, nil)
		start := func(identity string) (*LeaderElector, context.CancelFunc, chan struct{}) {
			le, err := New(Config{
				Leases: &fakeLeaseClient{store: store}, Namespace: "kube-system", Name: "kube-scheduler", Identity: identity,
				LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
				ReleaseOnCancel: true, Logger: discardLogger(), Journal: journal,
				Callbacks: Callbacks{OnStartedLeading: func(ctx context.Context) { <-ctx.Done() }},
			})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { defer close(done); le.Run(ctx) }()
			return le, cancel, done
		}
		a, stopA, aDone := start("a")
		time.Sleep(time.Second)
		b, stopB, bDone := start("b")
		defer func() { stopB(); <-bDone }()
		time.Sleep(10 * time.Second)

		want := debug.LeaderState{Lease: "kube-system/kube-scheduler", Identity: "b", Leader: "a", IsLeader: false, LeaseDuration: leaseDuration}
		got := b.DebugState()
		got.ObservedRenew = time.Time{}
		if got != want {
			t.Errorf("standby's DebugState = %+v, want %+v", got, want)
		}
		if s := a.DebugState(); !s.IsLeader || s.Leader != "a" || s.ObservedRenew.IsZero() {
			t.Errorf("leader's DebugState = %+v, want IsLeader, Leader a and a renew time", s)
		}

		stopA()
		<-aDone
		time.Sleep(10 * time.Second)
		if s := b.DebugState(); !s.IsLeader || s.Leader != "b" {
			t.Errorf("after a stopped, b's DebugState = %+v, want b leading", s)
		}

		records, _ := journal.After(0)
		var events []string
		for _, r := range records {
			if r.Type != debug.TypeEvent || r.Key != "kube-system/kube-scheduler" {
				t.Errorf("record %+v: want an event about the lease kube-system/kube-scheduler", r)
			}
			events = append(events, r.Actor+": "+r.Message)
		}
		wantEvents := []string{
			"a: new leader observed: a", "a: became leader",
			"b: new leader observed: a",
			"a: stopped leading: shutting down",
			"b: new leader observed: b", "b: became leader",
		}
		if !slices.Equal(events, wantEvents) {
			t.Errorf("journal events:\n%q\nwant\n%q", events, wantEvents)
		}
	})
}
