package leaderelection

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// lockedRand is a seeded source shared by the chaos goroutines.
type lockedRand struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (l *lockedRand) duration(lo, hi time.Duration) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return lo + time.Duration(l.r.Int64N(int64(hi-lo)))
}

func (l *lockedRand) intN(n int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.IntN(n)
}

// workGuard is the thing leader election protects: it fails the test if two
// candidates' OnStartedLeading work ever runs at the same moment.
type workGuard struct {
	t            *testing.T
	mu           sync.Mutex
	working      string
	acquisitions int
}

func (g *workGuard) enter(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.working != "" {
		g.t.Errorf("%v: %s started leading while %s was still leading", time.Now().Format(time.StampMilli), id, g.working)
	}
	g.working = id
	g.acquisitions++
}

func (g *workGuard) leave(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.working == id {
		g.working = ""
	}
}

// chaosMember is one "process" that is restarted with a fresh identity
// whenever its elector's Run returns.
type chaosMember struct {
	client *fakeLeaseClient
	mu     sync.Mutex
	le     *LeaderElector
	cancel context.CancelFunc
}

func (m *chaosMember) current() (*LeaderElector, context.CancelFunc) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.le, m.cancel
}

// sleepCtx sleeps d of bubble time, or less if ctx ends first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// TestNeverTwoLeadersUnderChaos runs three candidates for two hours of fake
// time while a chaos loop crashes them (with and without release), cuts
// them off from the apiserver, makes their requests hang, and delays their
// requests by up to 3 s each way — so writes land after their caller gave
// up and responses arrive late. Throughout, it checks the property leader
// election exists for: no two candidates run their leading work, or report
// IsLeader, at the same moment.
func TestNeverTwoLeadersUnderChaos(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("chaos seed %d", seed)
	synctest.Test(t, func(t *testing.T) {
		rng := &lockedRand{r: rand.New(rand.NewPCG(seed, 0))}
		store := newFakeLeaseStore()
		guard := &workGuard{t: t}
		ctx, stopAll := context.WithCancel(context.Background())
		var wg sync.WaitGroup

		members := make([]*chaosMember, 3)
		for i := range members {
			m := &chaosMember{client: &fakeLeaseClient{store: store}}
			members[i] = m
			wg.Go(func() {
				for incarnation := 0; ctx.Err() == nil; incarnation++ {
					id := fmt.Sprintf("node-%d_%d", i, incarnation)
					le, err := New(Config{
						Leases: m.client, Namespace: "kube-system", Name: "kube-scheduler", Identity: id,
						LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
						ReleaseOnCancel: rng.intN(2) == 0, Logger: discardLogger(),
						Callbacks: Callbacks{OnStartedLeading: func(ctx context.Context) {
							guard.enter(id)
							<-ctx.Done()
							guard.leave(id)
						}},
					})
					if err != nil {
						t.Error(err)
						return
					}
					runCtx, cancel := context.WithCancel(ctx)
					m.mu.Lock()
					m.le, m.cancel = le, cancel
					m.mu.Unlock()
					le.Run(runCtx)
					cancel()
					if !sleepCtx(ctx, rng.duration(0, 10*time.Second)) {
						return
					}
				}
			})
		}

		// The chaos loop: every few seconds, do something bad to someone.
		wg.Go(func() {
			var faults sync.WaitGroup
			defer faults.Wait()
			for sleepCtx(ctx, rng.duration(time.Second, 40*time.Second)) {
				m := members[rng.intN(len(members))]
				lasting := rng.duration(time.Second, 25*time.Second)
				switch rng.intN(4) {
				case 0: // crash (released or not, as the incarnation chose)
					if _, cancel := m.current(); cancel != nil {
						cancel()
					}
				case 1:
					m.client.setFail(true)
					faults.Go(func() { sleepCtx(ctx, lasting); m.client.setFail(false) })
				case 2:
					m.client.setHang(true)
					faults.Go(func() { sleepCtx(ctx, lasting); m.client.setHang(false) })
				case 3:
					m.client.setDelay(func() time.Duration { return rng.duration(0, 3*time.Second) })
					faults.Go(func() { sleepCtx(ctx, lasting); m.client.setDelay(nil) })
				}
			}
		})

		// The checker samples IsLeader on every live elector.
		const sample = 50 * time.Millisecond
		var samples, ledSamples, doubleSamples int
		wg.Go(func() {
			for sleepCtx(ctx, sample) {
				var leaders []string
				for _, m := range members {
					if le, _ := m.current(); le != nil && le.IsLeader() {
						leaders = append(leaders, le.Identity())
					}
				}
				samples++
				if len(leaders) > 0 {
					ledSamples++
				}
				if len(leaders) > 1 {
					if doubleSamples == 0 {
						t.Errorf("%v: IsLeader() is true for %q at once", time.Now().Format(time.StampMilli), leaders)
					}
					doubleSamples++
				}
			}
		})

		time.Sleep(2 * time.Hour)
		stopAll()
		wg.Wait()
		for _, m := range members {
			m.client.inFlight.Wait()
		}

		if doubleSamples > 0 {
			t.Errorf("two leaders at once in %d samples of %v", doubleSamples, sample)
		}
		transitions := *storedLease(t, store).LeaseTransitions
		t.Logf("%d acquisitions, %d lease transitions, a leader during %.0f%% of the run",
			guard.acquisitions, transitions, 100*float64(ledSamples)/float64(samples))
		// The run must actually have exercised hand-overs, or it proves nothing.
		if guard.acquisitions < 20 || transitions < 20 {
			t.Errorf("only %d acquisitions and %d transitions in two hours of chaos", guard.acquisitions, transitions)
		}
		// Liveness: despite the chaos, someone leads most of the time.
		if led := float64(ledSamples) / float64(samples); led < 0.5 {
			t.Errorf("a leader existed only %.0f%% of the time", 100*led)
		}
	})
}
