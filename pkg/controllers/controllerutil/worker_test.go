package controllerutil

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/debug"
	"kplane/pkg/informer/workqueue"
)

func newTestQueue(clk clock.Clock) *workqueue.Queue[string] {
	return workqueue.New(workqueue.Options[string]{Name: "test", Clock: clk})
}

func TestProcessNextForgetsOnSuccessAndRequeuesOnError(t *testing.T) {
	clk := clock.NewFake(time.Unix(0, 0))
	q := newTestQueue(clk)
	defer q.ShutDown()
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)

	q.Add("ns/a")
	failing := func(context.Context, string) error { return errors.New("apiserver said no") }
	if !ProcessNext(ctx, q, failing, log) {
		t.Fatal("ProcessNext returned false on a live queue")
	}
	if q.NumRequeues("ns/a") != 1 {
		t.Fatalf("requeues = %d, want 1 after a failed sync", q.NumRequeues("ns/a"))
	}
	if q.Len() != 0 {
		t.Fatal("a failed key must wait for its back-off, not be queued at once")
	}
	clk.Step(time.Second) // past the first 5 ms back-off
	queued := func() bool { return q.Len() == 1 }
	for deadline := time.Now().Add(5 * time.Second); !queued() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if q.Len() != 1 {
		t.Fatal("the key did not come back after its back-off")
	}
	var synced string
	ok := func(_ context.Context, key string) error { synced = key; return nil }
	ProcessNext(ctx, q, ok, log)
	if synced != "ns/a" || q.NumRequeues("ns/a") != 0 {
		t.Fatalf("synced %q, requeues %d; want ns/a and back-off forgotten", synced, q.NumRequeues("ns/a"))
	}
}

func TestProcessNextDropsDoNotRetry(t *testing.T) {
	q := newTestQueue(clock.NewFake(time.Unix(0, 0)))
	defer q.ShutDown()
	q.Add("ns/bad")
	bad := func(context.Context, string) error { return DoNotRetry(errors.New("selector is malformed")) }
	ProcessNext(context.Background(), q, bad, slog.New(slog.DiscardHandler))
	if q.NumRequeues("ns/bad") != 0 || q.Len() != 0 {
		t.Fatal("a DoNotRetry error must not requeue the key")
	}
	if !isDoNotRetry(DoNotRetry(errors.New("x"))) || isDoNotRetry(errors.New("x")) || DoNotRetry(nil) != nil {
		t.Fatal("DoNotRetry wrapping is wrong")
	}
}

func TestRunWorkersStopsWithContext(t *testing.T) {
	q := newTestQueue(nil)
	ctx, cancel := context.WithCancel(context.Background())
	seen := make(chan string, 10)
	done := make(chan struct{})
	go func() {
		RunWorkers(ctx, q, 3, func(_ context.Context, key string) error { seen <- key; return nil }, slog.New(slog.DiscardHandler))
		close(done)
	}()
	q.Add("ns/a")
	q.Add("ns/b")
	got := map[string]bool{<-seen: true, <-seen: true}
	if !got["ns/a"] || !got["ns/b"] {
		t.Fatalf("synced %v", got)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("RunWorkers did not return after ctx was cancelled")
	}
	if !q.ShuttingDown() {
		t.Fatal("RunWorkers must shut the queue down")
	}
}

func TestProcessNextNamesTheControllerAsTheActorOfItsWrites(t *testing.T) {
	for _, tc := range []struct {
		name      string
		journal   *debug.Journal
		wantActor string
	}{
		{"debug journal on", debug.NewJournal("controller-manager", 10, nil), "replicaset"},
		// Off, the context is passed on untouched (no allocation per sync).
		{"debug journal off", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := workqueue.New(workqueue.Options[string]{Name: "replicaset", Clock: clock.NewFake(time.Unix(0, 0)), Journal: tc.journal})
			defer q.ShutDown()
			q.Add("ns/web")
			var actor string
			sync := func(ctx context.Context, _ string) error { actor = client.ActorFrom(ctx); return nil }
			ProcessNext(context.Background(), q, sync, slog.New(slog.DiscardHandler))
			if actor != tc.wantActor {
				t.Errorf("the sync's context names actor %q, want %q", actor, tc.wantActor)
			}
		})
	}
}
