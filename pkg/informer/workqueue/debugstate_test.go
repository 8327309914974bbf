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
