package ctl

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kplane/pkg/clock"
	"kplane/pkg/debug"
	"kplane/pkg/informer/workqueue"
)

// fakeCluster serves a journal per component over httptest and gives the
// debugAccess that finds them, as debug.Connect finds a real cluster's.
func fakeCluster(t *testing.T, journals ...*debug.Journal) debugAccess {
	t.Helper()
	var endpoints []debug.Endpoint
	for _, j := range journals {
		srv := httptest.NewServer(j.Handler(nil, false))
		t.Cleanup(srv.Close)
		endpoints = append(endpoints, debug.Endpoint{Component: j.Component(), URL: srv.URL})
	}
	return func(string) (*debug.Client, []debug.Endpoint, error) { return &debug.Client{}, endpoints, nil }
}

// queuesFixture is a controller-manager whose deployment queue holds
// default/web in processing (re-added meanwhile), default/api queued for
// 3s, and default/db waiting after two failures; and a kubelet without
// queues.
func queuesFixture(t *testing.T) debugAccess {
	clk := clock.NewFake(time.Unix(1000, 0))
	cm := debug.NewJournal("controller-manager", 10, clk)
	q := workqueue.New(workqueue.Options[string]{Name: "deployment", Clock: clk, Journal: cm})
	t.Cleanup(q.ShutDown)
	workqueue.New(workqueue.Options[string]{Name: "replicaset", Clock: clk, Journal: cm}).ShutDown()
	q.Add("default/web")
	q.Get()
	clk.Step(time.Second)
	q.Add("default/api")
	q.Add("default/web")
	clk.Step(3 * time.Second)
	// Parked after the last step, so it stays waiting: the fake clock
	// does not move again.
	q.AddRateLimited("default/db")
	q.AddRateLimited("default/db")
	return fakeCluster(t, cm, debug.NewJournal("kubelet-node1", 10, clk))
}

func TestQueuesPrintsATablePerComponent(t *testing.T) {
	var out bytes.Buffer
	if err := runQueues(context.Background(), IOStreams{Out: &out}, queuesFixture(t), queuesOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `controller-manager
QUEUE        DEPTH   DIRTY   PROCESSING   WAITING   OLDEST
deployment   1       1       1            1         default/api (3.0s)
replicaset   0       0       0            0         <none>

No workqueues in: kubelet-node1
`
	if out.String() != want {
		t.Errorf("ctl queues printed:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestQueuesWideListsEveryKeyWithItsRetriesAndDelay(t *testing.T) {
	var out bytes.Buffer
	if err := runQueues(context.Background(), IOStreams{Out: &out}, queuesFixture(t), queuesOptions{output: "wide", component: "controller-manager"}); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{
		"QUEUE        KEY           STATE        RETRIES   DELAY   FOR",
		"deployment   default/web   processing   0         -       4.0s",
		"deployment   default/web   dirty        0         -       -",
		"deployment   default/api   queued       0         -       3.0s",
		"deployment   default/db    waiting      2         5ms     -",
	} {
		if !strings.Contains(out.String(), row+"\n") {
			t.Errorf("ctl queues -o wide has no row %q:\n%s", row, out.String())
		}
	}
}

func TestQueuesJSONIsWhatTheDebugAPIAnswers(t *testing.T) {
	var out bytes.Buffer
	if err := runQueues(context.Background(), IOStreams{Out: &out}, queuesFixture(t), queuesOptions{output: "json"}); err != nil {
		t.Fatal(err)
	}
	var got []debug.ComponentQueues
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("decode %s: %v", out.String(), err)
	}
	if len(got) != 2 || got[0].Component != "controller-manager" || len(got[0].Queues) != 2 ||
		got[0].Queues[0].Processing[0].Key != "default/web" || got[0].Queues[0].Waiting[0].Retries != 2 {
		t.Errorf("ctl queues -o json = %+v", got)
	}
}

func TestQueuesRefusesWhatItCannotShow(t *testing.T) {
	access := queuesFixture(t)
	if err := runQueues(context.Background(), IOStreams{Out: &bytes.Buffer{}}, access, queuesOptions{output: "yaml"}); err == nil || !strings.Contains(err.Error(), "allowed formats are: json,wide") {
		t.Errorf("-o yaml: err %v, want kubectl's message naming the formats", err)
	}
	if err := runQueues(context.Background(), IOStreams{Out: &bytes.Buffer{}}, access, queuesOptions{component: "scheduler"}); err == nil || !strings.Contains(err.Error(), `no component "scheduler"`) {
		t.Errorf("--component scheduler: err %v, want one naming it", err)
	}
}

// cancelAfter is an output that cancels the command's context once it has
// received n writes of a table header.
type cancelAfter struct {
	bytes.Buffer
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	if strings.HasPrefix(string(p), "QUEUE") {
		if c.n--; c.n == 0 {
			c.cancel()
		}
	}
	return c.Buffer.Write(p)
}

func TestQueuesWatchPrintsAgainUntilInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	out := &cancelAfter{n: 2, cancel: cancel}
	if err := runQueues(ctx, IOStreams{Out: out}, queuesFixture(t), queuesOptions{watch: true, interval: time.Millisecond, component: "controller-manager"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), "controller-manager\nQUEUE"); got != 2 {
		t.Errorf("-w printed %d tables, want 2 (then Ctrl-C):\n%s", got, out.String())
	}
}
