package leaderelection

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
)

const (
	me    = "master_2e059fa2-68be-408c-bb7c-84a37bd97dcf"
	other = "master_13cc3c06-f405-4d2e-ba63-b112894d64f8"
)

// t0 has nanoseconds so the tests see them dropped to microseconds.
var t0 = time.Date(2024, 10, 23, 1, 9, 42, 290683123, time.UTC)

func ptr[T any](v T) *T { return &v }

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// leaseHeldBy builds the Lease another candidate would have written.
func leaseHeldBy(holder string, durationSeconds *int32, acquire, renew time.Time, transitions int32) *api.Lease {
	return &api.Lease{
		TypeMeta:   api.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
		ObjectMeta: api.ObjectMeta{Name: "kube-scheduler", Namespace: "kube-system"},
		Spec: api.LeaseSpec{
			HolderIdentity:       &holder,
			LeaseDurationSeconds: durationSeconds,
			AcquireTime:          &api.MicroTime{Time: acquire},
			RenewTime:            &api.MicroTime{Time: renew},
			LeaseTransitions:     &transitions,
		},
	}
}

// newTestElector is a candidate with the upstream 15 s / 10 s / 2 s timing.
func newTestElector(t *testing.T, leases LeaseClient, clk clock.Clock, identity string) *LeaderElector {
	t.Helper()
	le, err := New(Config{Leases: leases, Namespace: "kube-system", Name: "kube-scheduler",
		Identity: identity, Clock: clk, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return le
}

// step is one moment in a tryAcquireOrRenew scenario: move the clock, let
// the world change, make one attempt.
type step struct {
	advance time.Duration
	// before, if set, changes the stored Lease (another candidate renewing)
	// just before the attempt.
	before       func(s *fakeLeaseStore, now time.Time)
	wantAcquired bool
}

func TestTryAcquireOrRenew(t *testing.T) {
	fifteen := ptr(int32(15))
	renewByOther := func(s *fakeLeaseStore, now time.Time) {
		s.put(leaseHeldBy(other, fifteen, t0, now, 2))
	}
	tests := []struct {
		name     string
		existing *api.Lease // nil: no Lease yet
		// setup may install hooks on the store.
		setup      func(s *fakeLeaseStore)
		steps      []step
		wantHolder string
		// wantObserved is what GetLeader should say when it differs from
		// wantHolder (a lost race is not re-read until the next attempt).
		wantObserved    *string
		wantTransitions int32
		wantAcquire     time.Time
		wantRenew       time.Time
	}{{
		name:            "missing lease is created with us as first holder",
		steps:           []step{{wantAcquired: true}},
		wantHolder:      me,
		wantTransitions: 0,
		wantAcquire:     t0, wantRenew: t0,
	}, {
		name:            "released lease is free at once",
		existing:        leaseHeldBy("", ptr(int32(1)), t0.Add(-time.Second), t0.Add(-time.Second), 3),
		steps:           []step{{wantAcquired: true}},
		wantHolder:      me,
		wantTransitions: 4,
		wantAcquire:     t0, wantRenew: t0,
	}, {
		name:     "held lease is not taken before leaseDurationSeconds",
		existing: leaseHeldBy(other, fifteen, t0, t0, 2),
		steps: []step{
			{wantAcquired: false},
			{advance: 14 * time.Second, wantAcquired: false},
		},
		wantHolder: other, wantTransitions: 2, wantAcquire: t0, wantRenew: t0,
	}, {
		name:     "lease unchanged for leaseDurationSeconds of local time is taken over",
		existing: leaseHeldBy(other, fifteen, t0, t0, 2),
		steps: []step{
			{wantAcquired: false},
			{advance: 15 * time.Second, wantAcquired: true},
		},
		wantHolder:      me,
		wantTransitions: 3,
		wantAcquire:     t0.Add(15 * time.Second), wantRenew: t0.Add(15 * time.Second),
	}, {
		name:     "a holder that keeps renewing keeps the lease",
		existing: leaseHeldBy(other, fifteen, t0, t0, 2),
		steps: []step{
			{wantAcquired: false},
			{advance: 10 * time.Second, before: renewByOther, wantAcquired: false},
			// 20 s since we first looked, but only 10 s since it changed.
			{advance: 10 * time.Second, wantAcquired: false},
			{advance: 5 * time.Second, wantAcquired: true},
		},
		wantHolder:      me,
		wantTransitions: 3,
		wantAcquire:     t0.Add(25 * time.Second), wantRenew: t0.Add(25 * time.Second),
	}, {
		// The holder's clock is an hour behind ours. Its renewTime looks
		// ancient, but we count from when we saw it change, so it is live.
		name:     "remote clock skew does not expire a live lease",
		existing: leaseHeldBy(other, fifteen, t0.Add(-time.Hour), t0.Add(-time.Hour), 2),
		steps: []step{
			{wantAcquired: false},
			{advance: 10 * time.Second, before: func(s *fakeLeaseStore, now time.Time) {
				s.put(leaseHeldBy(other, fifteen, t0.Add(-time.Hour), now.Add(-time.Hour), 2))
			}, wantAcquired: false},
		},
		wantHolder: other, wantTransitions: 2, wantAcquire: t0.Add(-time.Hour), wantRenew: t0.Add(10*time.Second - time.Hour),
	}, {
		name:            "lease without leaseDurationSeconds expires as soon as it is seen",
		existing:        leaseHeldBy(other, nil, t0, t0, 7),
		steps:           []step{{wantAcquired: true}},
		wantHolder:      me,
		wantTransitions: 8,
		wantAcquire:     t0, wantRenew: t0,
	}, {
		name:            "renewing our own lease moves renewTime only",
		existing:        leaseHeldBy(me, fifteen, t0.Add(-time.Minute), t0.Add(-time.Second), 5),
		steps:           []step{{wantAcquired: true}},
		wantHolder:      me,
		wantTransitions: 5,
		wantAcquire:     t0.Add(-time.Minute), wantRenew: t0,
	}, {
		name:     "conflict on update means another candidate won",
		existing: leaseHeldBy("", ptr(int32(1)), t0, t0, 3),
		setup: func(s *fakeLeaseStore) {
			raced := false
			s.beforeUpdate = func() {
				if !raced {
					raced = true
					s.put(leaseHeldBy(other, fifteen, t0, t0, 4))
				}
			}
		},
		steps:           []step{{wantAcquired: false}},
		wantHolder:      other,
		wantObserved:    ptr(""),
		wantTransitions: 4, wantAcquire: t0, wantRenew: t0,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newFakeLeaseStore()
			if tt.existing != nil {
				store.put(tt.existing)
			}
			if tt.setup != nil {
				tt.setup(store)
			}
			clk := clock.NewFake(t0)
			le := newTestElector(t, &fakeLeaseClient{store: store}, clk, me)
			for i, s := range tt.steps {
				clk.Step(s.advance)
				if s.before != nil {
					s.before(store, clk.Now())
				}
				if got := le.tryAcquireOrRenew(context.Background()); got != s.wantAcquired {
					t.Fatalf("step %d (at +%v): acquired = %v, want %v", i, clk.Since(t0), got, s.wantAcquired)
				}
				if got := le.IsLeader(); got != s.wantAcquired {
					t.Errorf("step %d: IsLeader() = %v, want %v", i, got, s.wantAcquired)
				}
			}
			lease, err := store.get("kube-scheduler")
			if err != nil {
				t.Fatal(err)
			}
			spec := lease.Spec
			if got := *spec.HolderIdentity; got != tt.wantHolder {
				t.Errorf("holderIdentity = %q, want %q", got, tt.wantHolder)
			}
			wantObserved := tt.wantHolder
			if tt.wantObserved != nil {
				wantObserved = *tt.wantObserved
			}
			if got := le.GetLeader(); got != wantObserved {
				t.Errorf("GetLeader() = %q, want %q", got, wantObserved)
			}
			if got := *spec.LeaseTransitions; got != tt.wantTransitions {
				t.Errorf("leaseTransitions = %d, want %d", got, tt.wantTransitions)
			}
			if got, want := spec.AcquireTime.Time, tt.wantAcquire.Truncate(time.Microsecond); !got.Equal(want) {
				t.Errorf("acquireTime = %v, want %v", got, want)
			}
			if got, want := spec.RenewTime.Time, tt.wantRenew.Truncate(time.Microsecond); !got.Equal(want) {
				t.Errorf("renewTime = %v, want %v", got, want)
			}
			if tt.wantHolder == me && *spec.LeaseDurationSeconds != 15 {
				t.Errorf("leaseDurationSeconds = %d, want 15", *spec.LeaseDurationSeconds)
			}
		})
	}
}

// A leader renews with a single conditional update of the version it last
// wrote (upstream's fast path), and falls back to reading the Lease when
// that version is stale.
func TestRenewFastPath(t *testing.T) {
	store := newFakeLeaseStore()
	leases := &fakeLeaseClient{store: store}
	clk := clock.NewFake(t0)
	le := newTestElector(t, leases, clk, me)
	if !le.tryAcquireOrRenew(context.Background()) {
		t.Fatal("could not create the lease")
	}
	gets := leases.count("get")

	clk.Step(2 * time.Second)
	if !le.tryAcquireOrRenew(context.Background()) {
		t.Fatal("renew failed")
	}
	if got := leases.count("get"); got != gets {
		t.Errorf("renew read the lease (%d gets, want %d): the fast path was not taken", got, gets)
	}

	// Someone else (an admin with kubectl) hands the lease to another
	// holder: our cached version is stale, the fast path conflicts, the
	// slow path reads the new holder and we are no longer leader.
	current, _ := store.get("kube-scheduler")
	current.Spec.HolderIdentity = ptr(other)
	store.put(current)
	clk.Step(2 * time.Second)
	if le.tryAcquireOrRenew(context.Background()) {
		t.Fatal("renewed a lease that another candidate now holds")
	}
	if le.IsLeader() {
		t.Error("IsLeader() = true after seeing another holder")
	}
	if got := le.GetLeader(); got != other {
		t.Errorf("GetLeader() = %q, want %q", got, other)
	}
}

// IsLeader turns false by itself once the last renewal is RenewDeadline
// old, even before the renew loop notices.
func TestIsLeaderExpiresAtRenewDeadline(t *testing.T) {
	clk := clock.NewFake(t0)
	le := newTestElector(t, &fakeLeaseClient{store: newFakeLeaseStore()}, clk, me)
	if !le.tryAcquireOrRenew(context.Background()) {
		t.Fatal("acquire failed")
	}
	clk.Step(10*time.Second - time.Nanosecond)
	if !le.IsLeader() {
		t.Error("IsLeader() = false just before the renew deadline")
	}
	clk.Step(time.Nanosecond)
	if le.IsLeader() {
		t.Error("IsLeader() = true at the renew deadline")
	}
}

func TestReleaseWritesAFreeLease(t *testing.T) {
	store := newFakeLeaseStore()
	clk := clock.NewFake(t0)
	le := newTestElector(t, &fakeLeaseClient{store: store}, clk, me)
	if !le.tryAcquireOrRenew(context.Background()) {
		t.Fatal("acquire failed")
	}
	clk.Step(3 * time.Second)
	le.release()

	lease, _ := store.get("kube-scheduler")
	spec := lease.Spec
	if spec.HolderIdentity == nil || *spec.HolderIdentity != "" {
		t.Errorf("holderIdentity = %v, want \"\"", spec.HolderIdentity)
	}
	if *spec.LeaseDurationSeconds != 1 || *spec.LeaseTransitions != 0 {
		t.Errorf("leaseDurationSeconds = %d, leaseTransitions = %d; want 1 and 0",
			*spec.LeaseDurationSeconds, *spec.LeaseTransitions)
	}
	want := t0.Add(3 * time.Second).Truncate(time.Microsecond)
	if !spec.RenewTime.Equal(want) || !spec.AcquireTime.Equal(want) {
		t.Errorf("renewTime %v, acquireTime %v; want both %v", spec.RenewTime, spec.AcquireTime, want)
	}

	// Someone else's lease is never released on their behalf.
	store.put(leaseHeldBy(other, ptr(int32(15)), t0, t0, 1))
	writes := len(store.history())
	le.release()
	if got := len(store.history()); got != writes {
		t.Errorf("release wrote %d times to a lease held by another candidate", got-writes)
	}
}

// The last renew, cut off by the cancelled context on the client's side,
// can still land on the server after release has read the Lease; release
// reads it again and still hands it back rather than leaving it held.
func TestReleaseRetriesAfterALateRenewLands(t *testing.T) {
	store := newFakeLeaseStore()
	clk := clock.NewFake(t0)
	le := newTestElector(t, &fakeLeaseClient{store: store}, clk, me)
	if !le.tryAcquireOrRenew(context.Background()) {
		t.Fatal("acquire failed")
	}
	lateRenewLanded := false
	store.beforeUpdate = func() {
		if lateRenewLanded {
			return
		}
		lateRenewLanded = true
		held, _ := store.get("kube-scheduler")
		store.put(held) // the same holder, a newer resourceVersion
	}
	le.release()

	lease, _ := store.get("kube-scheduler")
	if h := lease.Spec.HolderIdentity; h == nil || *h != "" {
		t.Errorf("holderIdentity after release = %v, want \"\" (released despite the conflict)", h)
	}
}
