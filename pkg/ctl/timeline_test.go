package ctl

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/debug"
	"kplane/pkg/debug/timeline"
)

// runTimeline runs `ctl timeline` with kinds, since and output against
// two components' journals and one Event, without an apiserver.
func runTimeline(t *testing.T, kinds []string, since time.Duration, output string) (stdout, stderr string, err error) {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 11, 28, 12, 0, 0, 0, time.Local))
	apiserver := debug.NewJournal("apiserver", 100, clk)
	cm := debug.NewJournal("controller-manager", 100, clk)
	var endpoints []debug.Endpoint
	for _, j := range []*debug.Journal{apiserver, cm} {
		srv := httptest.NewServer(j.Handler(nil, false))
		t.Cleanup(srv.Close)
		endpoints = append(endpoints, debug.Endpoint{Component: j.Component(), URL: srv.URL})
	}
	apiserver.Add(debug.Record{Type: debug.TypeWrite, Stage: "create", Actor: "admin", Resource: "deployments.apps", Key: "default/web", UID: "d1", ResourceVersion: "10"})
	clk.Step(time.Minute)
	cm.Add(debug.Record{Type: debug.TypeWrite, Stage: "create", Actor: "deployment", Resource: "replicasets.apps", Key: "default/web-5d8", UID: "r1", ResourceVersion: "11"})
	apiserver.Add(debug.Record{Type: debug.TypeWrite, Stage: "create", Actor: "system:kube-controller-manager", Resource: "replicasets.apps", Key: "default/web-5d8", UID: "r1", ResourceVersion: "11"})
	event := api.Event{
		ObjectMeta:     api.ObjectMeta{Name: "web.1", Namespace: "default", UID: "e1", ResourceVersion: "12"},
		InvolvedObject: api.ObjectReference{Kind: "Deployment", Namespace: "default", Name: "web", UID: "d1"},
		Reason:         "ScalingReplicaSet", Message: "Scaled up replica set web-5d8 to 3", Type: api.EventTypeNormal,
		Source: api.EventSource{Component: "deployment-controller"}, Count: 2, LastTimestamp: api.Time{Time: clk.Now().Add(time.Second)},
	}
	clk.Step(time.Minute)

	var out, errOut bytes.Buffer
	o := &timelineOptions{f: newFactory(IOStreams{Out: &out, ErrOut: &errOut}), kinds: kinds, since: since, output: output,
		limit: timeline.DefaultLimit, dataDir: "/nowhere", now: clk.Now,
		connect:    func(string) (*debug.Client, []debug.Endpoint, error) { return &debug.Client{}, endpoints, nil },
		listEvents: func(context.Context) ([]api.Event, error) { return []api.Event{event}, nil }}
	err = o.run(context.Background())
	return out.String(), errOut.String(), err
}

func TestTimelinePrintsWritesAndEventsInOrder(t *testing.T) {
	out, _, err := runTimeline(t, nil, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	want := `TIME          KIND   WHO                            WHAT                      NAMESPACE  OBJECT                    RV  DETAIL
12:00:00.000  write  admin                          create                    default    deployments.apps/web      10  stored
12:01:00.000  write  controller-manager/deployment  create                    default    replicasets.apps/web-5d8  11  stored as system:kube-controller-manager
12:01:01.000  event  deployment-controller          Normal ScalingReplicaSet  default    Deployment/web            -   Scaled up replica set web-5d8 to 3 (x2)
`
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

func TestTimelineFiltersByKindAndTime(t *testing.T) {
	out, _, err := runTimeline(t, []string{"write"}, 90*time.Second, "json")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1 {
		t.Fatalf("want only the ReplicaSet's write (the last 90 s, writes only), got:\n%s", out)
	}
	var e timeline.Entry
	if err := json.Unmarshal([]byte(lines[0]), &e); err != nil || e.Resource != "replicasets.apps" || e.EtcdKey != "/registry/replicasets/default/web-5d8" {
		t.Errorf("entry %+v (%v), want the ReplicaSet's create at its etcd key", e, err)
	}

	_, errOut, err := runTimeline(t, []string{"event"}, time.Second, "")
	if err != nil || !strings.Contains(errOut, "No entries found.") {
		t.Errorf("nothing in the last second: err %v, stderr %q", err, errOut)
	}
	if _, _, err := runTimeline(t, []string{"decision"}, 0, ""); err == nil || !strings.Contains(err.Error(), "the kinds are event, write") {
		t.Errorf("--kinds decision: err %v, want the kinds named", err)
	}
	if _, _, err := runTimeline(t, nil, 0, "yaml"); err == nil {
		t.Error("-o yaml: want an error")
	}
}
