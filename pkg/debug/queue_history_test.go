package debug_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/debug"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// controllerQueue is a controller's queue as controllerutil.NewQueue
// builds it: its moves traced into the component's journal.
func controllerQueue(t *testing.T, j *debug.Journal, name string) *workqueue.Queue[string] {
	t.Helper()
	q := workqueue.New(workqueue.Options[string]{
		Name: name, Clock: clock.NewFake(time.Unix(1000, 0)), Journal: j,
		Trace: informer.Tracer(j.Trace).QueueTrace(name),
	})
	t.Cleanup(q.ShutDown)
	return q
}

// process runs one worker step with the controllers' own loop, so the
// sync record is the one a real controller writes.
func process(q *workqueue.Queue[string], err error) {
	controllerutil.ProcessNext(context.Background(), q, func(context.Context, string) error { return err }, slog.New(slog.DiscardHandler))
}

// replay feeds the whole journal to a new history.
func replay(j *debug.Journal, perQueue int) *debug.QueueHistory {
	h := debug.NewQueueHistory(perQueue)
	records, _ := j.After(0)
	for _, r := range records {
		h.Add(r)
	}
	return h
}

// states is a passage in short: "key: state state …", with "(open)" for a
// passage not yet done.
func states(passages []debug.KeyPassage) []string {
	var out []string
	for _, p := range passages {
		var words []string
		for _, s := range p.Steps {
			words = append(words, s.State)
		}
		line := p.Key + ": " + strings.Join(words, " ")
		if !p.Finished {
			line += " (open)"
		}
		out = append(out, line)
	}
	return out
}

// The journal's trace records of a real workqueue, replayed, give each
// key's passage as the queue's three sets saw it.
func TestQueueHistoryReplaysEachKeysPassage(t *testing.T) {
	tests := []struct {
		name string
		run  func(q *workqueue.Queue[string])
		want []string
	}{{
		name: "a key goes through queue, processing and its sync to done",
		run: func(q *workqueue.Queue[string]) {
			q.Add("default/web")
			process(q, nil)
		},
		want: []string{"default/web: queue processing sync done"},
	}, {
		name: "an Add while the key waits is deduplicated",
		run: func(q *workqueue.Queue[string]) {
			q.Add("default/web")
			q.Add("default/web")
		},
		want: []string{"default/web: queue (open)"},
	}, {
		name: "an Add while a worker holds the key marks it dirty, and Done queues it again",
		run: func(q *workqueue.Queue[string]) {
			q.Add("default/web")
			key, _ := q.Get()
			q.Add("default/web")
			q.Done(key)
		},
		want: []string{"default/web: queue processing dirty done", "default/web: queue (open)"},
	}, {
		name: "a second Add while the key is dirty is deduplicated",
		run: func(q *workqueue.Queue[string]) {
			q.Add("default/web")
			key, _ := q.Get()
			q.Add("default/web")
			q.Add("default/web")
			q.Done(key)
		},
		want: []string{"default/web: queue processing dirty done", "default/web: queue (open)"},
	}, {
		name: "a failed sync parks the key for a retry before its worker is done",
		run: func(q *workqueue.Queue[string]) {
			q.Add("default/web")
			process(q, errors.New("boom"))
		},
		want: []string{"default/web: queue processing sync waiting done"},
	}, {
		name: "keys have passages of their own, in the order they started",
		run: func(q *workqueue.Queue[string]) {
			q.Add("default/a")
			q.Add("default/b")
			process(q, nil)
		},
		want: []string{"default/a: queue processing sync done", "default/b: queue (open)"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := debug.NewJournal("controller-manager", 100, nil)
			tt.run(controllerQueue(t, j, "deployment"))
			if got := states(replay(j, 10).Passages("")); !slices.Equal(got, tt.want) {
				t.Errorf("passages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestQueueHistoryCountsDeduplicatedAddsAndSaysHowTheSyncEnded(t *testing.T) {
	j := debug.NewJournal("controller-manager", 100, nil)
	q := controllerQueue(t, j, "deployment")
	q.Add("default/web")
	q.Add("default/web")
	q.Add("default/web")
	process(q, errors.New("deployments.apps \"web\" is forbidden"))
	got := replay(j, 10).Passages("")
	if len(got) != 1 || got[0].Deduplicated != 2 {
		t.Fatalf("passages = %+v, want one with 2 deduplicated adds", got)
	}
	sync := got[0].Steps[2]
	if sync.State != debug.PassageSync || !strings.HasPrefix(sync.Detail, `error: deployments.apps "web" is forbidden (took `) {
		t.Errorf("sync step = %+v, want the error and how long the sync took", sync)
	}
	if got[0].Component != "controller-manager" || got[0].Queue != "deployment" || sync.Seq == 0 || sync.Time.IsZero() {
		t.Errorf("passage = %+v, want its component, queue and each step's record", got[0])
	}
}

func TestQueueHistoryKeepsTheLastPassagesOfEachQueue(t *testing.T) {
	j := debug.NewJournal("controller-manager", 100, nil)
	deployments := controllerQueue(t, j, "deployment")
	replicaSets := controllerQueue(t, j, "replicaset")
	for _, key := range []string{"default/a", "default/b", "default/c"} {
		deployments.Add(key)
		process(deployments, nil)
	}
	replicaSets.Add("default/a-1")

	h := replay(j, 2)
	if got, want := states(h.Passages("deployment")), []string{
		"default/b: queue processing sync done", "default/c: queue processing sync done",
	}; !slices.Equal(got, want) {
		t.Errorf("deployment's passages = %q, want the last two: %q", got, want)
	}
	if got := states(h.Passages("")); len(got) != 3 || got[2] != "default/a-1: queue (open)" {
		t.Errorf("every queue's passages = %q, want deployment's two, then replicaset's", got)
	}
	h.Forget("controller-manager")
	if got := h.Passages(""); len(got) != 0 {
		t.Errorf("after Forget: %+v, want none", got)
	}
}

// A key whose Add fell out of the journal's ring starts its passage at the
// first move still recorded.
func TestQueueHistoryStartsAtTheFirstRecordItHas(t *testing.T) {
	j := debug.NewJournal("controller-manager", 100, nil)
	q := controllerQueue(t, j, "deployment")
	q.Add("default/web")
	process(q, nil)
	records, _ := j.After(0)
	h := debug.NewQueueHistory(10)
	for _, r := range records[1:] {
		h.Add(r)
	}
	if got, want := states(h.Passages("")), []string{"default/web: processing sync done"}; !slices.Equal(got, want) {
		t.Errorf("passages = %q, want %q", got, want)
	}
}

// The reader reads each journal from where it stopped, and starts over
// for a component that restarted (a new endpoint, a journal from seq 1).
func TestQueueHistoryReaderReadsOnFromTheLastRecordAndStartsOverAfterARestart(t *testing.T) {
	serve := func(j *debug.Journal) debug.Endpoint {
		srv := httptest.NewServer(j.Handler(nil, false))
		t.Cleanup(srv.Close)
		return debug.Endpoint{Component: j.Component(), URL: srv.URL}
	}
	ctx := context.Background()
	c := &debug.Client{}
	before := debug.NewJournal("controller-manager", 100, nil)
	q := controllerQueue(t, before, "deployment")
	ep := serve(before)
	reader := debug.NewQueueHistoryReader(10)

	q.Add("default/web")
	if got := states(reader.Update(ctx, c, []debug.Endpoint{ep}, "")); !slices.Equal(got, []string{"default/web: queue (open)"}) {
		t.Fatalf("first read = %q", got)
	}
	process(q, nil)
	if got := states(reader.Update(ctx, c, []debug.Endpoint{ep}, "")); !slices.Equal(got, []string{"default/web: queue processing sync done"}) {
		t.Fatalf("second read = %q, want the passage finished by the records added since", got)
	}

	after := debug.NewJournal("controller-manager", 100, nil)
	controllerQueue(t, after, "deployment").Add("default/api")
	if got := states(reader.Update(ctx, c, []debug.Endpoint{serve(after)}, "")); !slices.Equal(got, []string{"default/api: queue (open)"}) {
		t.Errorf("after a restart = %q, want only the new process's passages", got)
	}
}
