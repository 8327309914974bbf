package informer

import (
	"bytes"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// traceRecorder collects trace calls.
type traceRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *traceRecorder) tracer() Tracer {
	return func(stage, key, detail string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.lines = append(r.lines, stage+" "+key+" "+detail)
	}
}

func (r *traceRecorder) recorded() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.lines)
}

// exampleEnqueuer does what a controller's handler does: compute the key,
// add it to a queue, and report the enqueue to the tracer.
type exampleEnqueuer struct {
	tracer Tracer
	mu     sync.Mutex
	queue  []string
}

func (e *exampleEnqueuer) addPod(obj api.Object) {
	key, _ := MetaNamespaceKeyFunc(obj)
	e.mu.Lock()
	e.queue = append(e.queue, key)
	e.mu.Unlock()
	e.tracer.Enqueue("example", key)
}

func TestTraceOfOneCreateHasEveryStageInOrder(t *testing.T) {
	forEachFIFO(t, func(t *testing.T, kind FIFOKind) {
		synctest.Test(t, func(t *testing.T) {
			rec := &traceRecorder{}
			lw := newFakeListWatch()
			inf := newPodInformer(lw, 0, WithTrace(rec.tracer()), WithFIFO(kind))
			e := &exampleEnqueuer{tracer: rec.tracer()}
			mustAddHandler(t, inf, ResourceEventHandlerFuncs{AddFunc: e.addPod})
			stop := runInformer(t, inf)
			defer stop()
			synctest.Wait()

			lw.create(fixturePod("default", "web"))
			synctest.Wait()

			fifo := ""
			if kind == FIFOReal {
				fifo = " fifo=real"
			}
			want := []string{
				"watch default/web resource=pods rv=1 type=ADDED",
				"delta default/web resource=pods rv=1 type=Added" + fifo,
				"pop default/web resource=pods rv=1 fifo=" + string(kind) + " deltas=1",
				"store default/web resource=pods rv=1 op=add",
				"handler default/web resource=pods rv=1 handler=informer.(*exampleEnqueuer).addPod method=OnAdd",
				"enqueue default/web queue=example",
			}
			if got := rec.recorded(); !slices.Equal(got, want) {
				t.Errorf("trace:\n got %q\nwant %q", got, want)
			}
			e.mu.Lock()
			defer e.mu.Unlock()
			if !slices.Equal(e.queue, []string{"default/web"}) {
				t.Errorf("queue %v", e.queue)
			}
		})
	})
}

func TestTraceOfARelistShowsListReplacedAndTombstone(t *testing.T) {
	forEachFIFO(t, func(t *testing.T, kind FIFOKind) {
		synctest.Test(t, func(t *testing.T) {
			rec := &traceRecorder{}
			lw := newFakeListWatch()
			gone := lw.create(fixturePod("default", "gone"))
			inf := newPodInformer(lw, 0, WithTrace(rec.tracer()), WithFIFO(kind))
			stop := runInformer(t, inf)
			defer stop()
			synctest.Wait()

			lw.hold()
			lw.breakWatches()
			synctest.Wait()
			lw.remove(gone)
			lw.compact()
			lw.release()
			passBackoff()

			got := rec.recorded()
			fifo := ""
			if kind == FIFOReal {
				fifo = " fifo=real"
			}
			want := []string{
				// initial list
				"list default/gone resource=pods rv=1 type=LIST",
				"delta default/gone resource=pods rv=1 type=Replaced" + fifo,
				"pop default/gone resource=pods rv=1 fifo=" + string(kind) + " deltas=1",
				"store default/gone resource=pods rv=1 op=add",
				// relist after 410: the pod is missing, so a tombstone
				"delta default/gone resource=pods rv=1 type=Deleted tombstone=true" + fifo,
				"pop default/gone resource=pods rv=1 fifo=" + string(kind) + " deltas=1",
				"store default/gone resource=pods rv=1 op=delete",
			}
			if !slices.Equal(got, want) {
				t.Errorf("trace:\n got %q\nwant %q", got, want)
			}
		})
	})
}

func TestSlogTracerLine(t *testing.T) {
	tests := []struct {
		stage, key, detail string
		want               string
	}{
		{
			StageWatch, "default/web", "resource=pods rv=12 type=ADDED",
			`level=INFO msg="watch event received" component=reflector stage=watch resource=pods key=default/web rv=12 type=ADDED`,
		},
		{
			StageHandler, "default/web", "resource=pods rv=12 handler=replicaset.(*Controller).addPod method=OnAdd",
			`level=INFO msg="handler called" component=processor stage=handler resource=pods key=default/web rv=12 handler=replicaset.(*Controller).addPod method=OnAdd`,
		},
		{
			StageEnqueue, "default/web", "queue=replicaset",
			`level=INFO msg="key enqueued" component=workqueue stage=enqueue key=default/web queue=replicaset`,
		},
		{
			"custom", "n1", "",
			`level=INFO msg=custom component=informer stage=custom key=n1`,
		},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: dropTime}))
		SlogTracer(logger)(tt.stage, tt.key, tt.detail)
		if got := strings.TrimSpace(buf.String()); got != tt.want {
			t.Errorf("line:\n got %s\nwant %s", got, tt.want)
		}
	}
}

func TestNilTracerIsOff(t *testing.T) {
	var tr Tracer
	tr.Trace(StageWatch, "k", "d") // must not panic
	tr.Enqueue("q", "k")
	if tr.WithResource("pods") != nil {
		t.Error("WithResource of a nil tracer is not nil")
	}
}

func TestQueueTrace(t *testing.T) {
	rec := &traceRecorder{}
	hook := rec.tracer().QueueTrace("deployment")
	for _, event := range []string{"add", "get", "done", "requeue-after"} {
		hook(event, "default/web")
	}
	want := []string{
		"enqueue default/web queue=deployment",
		"queue default/web queue=deployment event=get",
		"queue default/web queue=deployment event=done",
		"queue default/web queue=deployment event=requeue-after",
	}
	if got := rec.recorded(); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	var off Tracer
	if off.QueueTrace("q") != nil {
		t.Error("QueueTrace of a nil tracer is not nil")
	}
}

func dropTime(groups []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey && len(groups) == 0 {
		return slog.Attr{}
	}
	return a
}

func TestTraceOfSeveralDeltasPoppedAsOneItem(t *testing.T) {
	rec := &traceRecorder{}
	s := &sharedIndexInformer{trace: rec.tracer(), fifoKind: FIFODelta}
	v1, v2 := fixturePod("default", "web"), fixturePod("default", "web")
	v1.ResourceVersion, v2.ResourceVersion = "5", "6"
	s.tracePop(Deltas{{Type: Updated, Object: v1}})
	s.tracePop(Deltas{{Type: Updated, Object: v1}, {Type: Updated, Object: v2}})
	want := []string{"pop default/web rv=5 fifo=delta deltas=1", "pop default/web rv=6 fifo=delta deltas=2 types=Updated,Updated"}
	if got := rec.recorded(); !slices.Equal(got, want) {
		t.Errorf("trace:\n got %q\nwant %q ", got, want)
	}
}

func TestJournalRecordsTheTraceWithItsFields(t *testing.T) {
	forEachFIFO(t, func(t *testing.T, kind FIFOKind) {
		synctest.Test(t, func(t *testing.T) {
			j := debug.NewJournal("test", 100, nil)
			lw := newFakeListWatch()
			inf := newPodInformer(lw, 0, WithJournal(j), WithFIFO(kind))
			mustAddHandler(t, inf, ResourceEventHandlerFuncs{})
			stop := runInformer(t, inf)
			defer stop()
			synctest.Wait()
			lw.create(fixturePod("default", "web"))
			synctest.Wait()

			records, _ := j.After(0)
			var got []string
			for _, r := range records {
				if r.Type != debug.TypeTrace || r.Resource != "pods" || r.Key != "default/web" || r.ResourceVersion != "1" {
					t.Errorf("record %+v: want a trace of pods default/web at rv 1", r)
				}
				got = append(got, r.Stage+" "+r.Detail)
			}
			fifo := ""
			if kind == FIFOReal {
				fifo = " fifo=real"
			}
			want := []string{"watch type=ADDED", "delta type=Added" + fifo, "pop fifo=" + string(kind) + " deltas=1", "store op=add",
				"handler handler=informer.ResourceEventHandlerFuncs method=OnAdd"}
			if !slices.Equal(got, want) {
				t.Errorf("journal:\n got %q\nwant %q", got, want)
			}
		})
	})
}
