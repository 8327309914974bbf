package workqueue

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"kplane/pkg/clock"
)

// TestAddRateLimitedWorkerLoop runs the canonical worker loop by hand on a
// fake clock: a failing key is retried 5 ms, then 10 ms later; a success
// (Forget) brings it back to 5 ms. The retry is requested while the key is
// still processing, so it also exercises "re-add during processing".
func TestAddRateLimitedWorkerLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := clock.NewFake(epoch)
		q := New(Options[string]{
			Clock:       fake,
			RateLimiter: NewItemExponentialFailureRateLimiter[string](5*time.Millisecond, time.Second),
		})
		defer q.ShutDown()
		step := func(d time.Duration) {
			t.Helper()
			synctest.Wait()
			fake.Step(d)
			synctest.Wait()
			checkInvariants(t, q)
		}
		expect := func(what, want string) {
			t.Helper()
			if got := snapshot(q); got != want {
				t.Fatalf("%s:\n got %s\nwant %s", what, got, want)
			}
		}

		q.AddRateLimited("a") // first failure: 5 ms
		if n := q.NumRequeues("a"); n != 1 {
			t.Fatalf("NumRequeues = %d, want 1", n)
		}
		step(4 * time.Millisecond)
		expect("4ms into a 5ms back-off", "queue=[] dirty=[] processing=[]")
		step(time.Millisecond)
		expect("5ms", "queue=[a] dirty=[a] processing=[]")

		getNow(t, q)
		q.AddRateLimited("a") // sync failed again: 10 ms
		step(9 * time.Millisecond)
		expect("9ms into a 10ms back-off", "queue=[] dirty=[] processing=[a]")
		step(time.Millisecond)
		expect("retry due while still processing", "queue=[] dirty=[a] processing=[a]")
		q.Done("a")
		expect("Done requeues it", "queue=[a] dirty=[a] processing=[]")

		getNow(t, q)
		q.Forget("a") // sync succeeded
		q.Done("a")
		if n := q.NumRequeues("a"); n != 0 {
			t.Fatalf("NumRequeues after Forget = %d", n)
		}
		q.AddRateLimited("a")
		step(5 * time.Millisecond)
		expect("after Forget the back-off starts at 5ms", "queue=[a] dirty=[a] processing=[]")
	})
}

func TestAddRateLimitedUsesDefaultLimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := clock.NewFake(epoch)
		q := New(Options[string]{Clock: fake})
		defer q.ShutDown()
		q.AddRateLimited("a")
		q.AddRateLimited("a")
		if got := q.Waiting(); !slices.Equal(got, []string{"a"}) {
			t.Fatalf("waiting %v", got)
		}
		if n := q.NumRequeues("a"); n != 2 {
			t.Fatalf("NumRequeues = %d, want 2", n)
		}
		synctest.Wait()
		fake.Step(DefaultItemBaseDelay) // the earlier of 5 ms and 10 ms wins
		synctest.Wait()
		if q.Len() != 1 {
			t.Fatalf("Len = %d after 5ms, want 1", q.Len())
		}
	})
}

func TestAddRateLimitedAfterShutDown(t *testing.T) {
	q := New(Options[string]{Clock: clock.NewFake(epoch)})
	q.ShutDown()
	q.AddRateLimited("a")
	if n := q.NumRequeues("a"); n != 0 {
		t.Fatalf("AddRateLimited after ShutDown counted a failure: %d", n)
	}
	if len(q.Waiting()) != 0 || q.Len() != 0 {
		t.Fatal("AddRateLimited after ShutDown parked or queued the key")
	}
}
