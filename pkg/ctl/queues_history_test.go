package ctl

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"kplane/pkg/clock"
	"kplane/pkg/debug"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// historyFixture is a controller-manager whose deployment queue took
// default/ng-dep through a worker (1 ms to Get, 2 ms more to Done), then
// got default/web twice, still waiting.
func historyFixture(t *testing.T) debugAccess {
	clk := clock.NewFake(time.Date(2026, 11, 28, 17, 0, 0, 0, time.UTC))
	cm := debug.NewJournal("controller-manager", 100, clk)
	q := workqueue.New(workqueue.Options[string]{Name: "deployment", Clock: clk, Journal: cm,
		Trace: informer.Tracer(cm.Trace).QueueTrace("deployment")})
	t.Cleanup(q.ShutDown)
	q.Add("default/ng-dep")
	clk.Step(time.Millisecond)
	key, _ := q.Get()
	clk.Step(2 * time.Millisecond)
	q.Done(key)
	q.Add("default/web")
	q.Add("default/web")
	return fakeCluster(t, cm, debug.NewJournal("kubelet-node1", 10, clk))
}

func TestQueuesHistoryPrintsEachKeysPassage(t *testing.T) {
	var out bytes.Buffer
	if err := runQueues(context.Background(), IOStreams{Out: &out}, historyFixture(t), queuesOptions{history: true, queue: "deployment"}); err != nil {
		t.Fatal(err)
	}
	want := `controller-manager / deployment
KEY              STARTED        PASSAGE
default/ng-dep   17:00:00.000   queue → processing +1ms → done +3ms
default/web      17:00:00.003   queue (1 more add deduplicated) … in flight
`
	if out.String() != want {
		t.Errorf("ctl queues --history:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestQueuesHistoryAsJSONAndForAnotherQueue(t *testing.T) {
	var out bytes.Buffer
	if err := runQueues(context.Background(), IOStreams{Out: &out}, historyFixture(t), queuesOptions{history: true, output: "json"}); err != nil {
		t.Fatal(err)
	}
	var passages []debug.KeyPassage
	if err := json.Unmarshal(out.Bytes(), &passages); err != nil || len(passages) != 2 || passages[0].Steps[2].State != debug.PassageDone {
		t.Fatalf("ctl queues --history -o json = %s (%v), want the two passages", out.String(), err)
	}
	out.Reset()
	if err := runQueues(context.Background(), IOStreams{Out: &out}, historyFixture(t), queuesOptions{history: true, queue: "replicaset"}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "No key has gone through a workqueue yet.\n" {
		t.Errorf("--queue replicaset printed %q", out.String())
	}
	if err := runQueues(context.Background(), IOStreams{Out: &out}, historyFixture(t), queuesOptions{queue: "replicaset"}); err == nil {
		t.Error("--queue without --history: no error")
	}
}
