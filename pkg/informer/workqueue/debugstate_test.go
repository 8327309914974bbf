package workqueue

import (
	"testing"
	"time"

	"kplane/pkg/clock"
	"kplane/pkg/debug"
)

func TestDebugStateShowsEverySetAndRegistersWithTheJournal(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	j := debug.NewJournal("controller-manager", 10, clk)
	q := New(Options[string]{Name: "deployment", Clock: clk, Journal: j})
	defer q.ShutDown()
	q.Add("default/a")
	q.Add("default/b")
	got, _ := q.Get() // default/a is processing
	q.Add(got)        // … and dirty again
	q.AddRateLimited("default/c")
	q.AddRateLimited("default/c") // second failure: retries 2

	states := j.Queues()
	if len(states) != 1 || states[0].Name != "deployment" {
		t.Fatalf("journal queues = %+v, want the deployment queue", states)
	}
	s := states[0]
	if s.Depth != 1 || len(s.Queued) != 1 || s.Queued[0].Key != "default/b" {
		t.Errorf("queued = %+v, want default/b", s.Queued)
	}
	if len(s.Processing) != 1 || s.Processing[0].Key != "default/a" || len(s.Dirty) != 1 || s.Dirty[0].Key != "default/a" {
		t.Errorf("processing %+v dirty %+v, want default/a in both", s.Processing, s.Dirty)
	}
	if len(s.Waiting) != 1 || s.Waiting[0].Key != "default/c" || s.Waiting[0].Retries != 2 || s.Waiting[0].Delay != 5*time.Millisecond {
		t.Errorf("waiting = %+v, want default/c with 2 retries due in 5ms", s.Waiting)
	}
}

func TestDebugStateSaysSinceWhenEachKeyWaitsAndIsProcessed(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	j := debug.NewJournal("controller-manager", 10, clk)
	q := New(Options[string]{Name: "deployment", Clock: clk, Journal: j})
	defer q.ShutDown()
	q.Add("default/a")
	clk.Step(time.Second)
	q.Add("default/b")
	clk.Step(time.Second)
	q.Add("default/a") // deduplicated: a keeps its place and its time
	got, _ := q.Get()  // default/a goes to processing at 1002
	clk.Step(3 * time.Second)

	s := q.DebugState()
	if !s.Now.Equal(time.Unix(1005, 0)) {
		t.Errorf("Now = %v, want the queue's clock (1005)", s.Now)
	}
	if len(s.Queued) != 1 || !s.Queued[0].Since.Equal(time.Unix(1001, 0)) {
		t.Errorf("queued = %+v, want default/b since 1001", s.Queued)
	}
	if len(s.Processing) != 1 || s.Processing[0].Key != got || !s.Processing[0].Since.Equal(time.Unix(1002, 0)) {
		t.Errorf("processing = %+v, want default/a since 1002 (when its worker got it)", s.Processing)
	}

	q.Add(got) // re-added while processing: dirty, queued again by Done
	q.Done(got)
	s = q.DebugState()
	if len(s.Queued) != 2 || s.Queued[1].Key != "default/a" || !s.Queued[1].Since.Equal(time.Unix(1005, 0)) {
		t.Errorf("queued after Done = %+v, want default/a requeued at 1005 behind default/b", s.Queued)
	}
	b, _ := q.Get()
	q.Done(b)
	if _, tracked := q.since[b]; tracked {
		t.Errorf("%s still has a since time after Done; the map would grow with every key ever seen", b)
	}
}

func TestQueueWithoutJournalKeepsNoTimes(t *testing.T) {
	q := New(Options[string]{Name: "deployment"})
	defer q.ShutDown()
	q.Add("default/a")
	if q.since != nil {
		t.Fatal("a queue without a journal keeps since times; it should not read the clock for them")
	}
	if s := q.DebugState(); len(s.Queued) != 1 || !s.Queued[0].Since.IsZero() {
		t.Errorf("queued = %+v, want default/a without a time", s.Queued)
	}
}
