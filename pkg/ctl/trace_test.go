package ctl

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"kplane/pkg/debug"
	"kplane/pkg/debug/trace"
)

// at is a moment of the hand-made records, ms after a fixed start.
func at(ms int) time.Time { return time.Unix(1000, 0).Add(time.Duration(ms) * time.Millisecond) }

func TestFollowedSetFollowsTheOwnershipChain(t *testing.T) {
	s := trace.NewFollowedSet("deployments.apps", "default", "web", "")
	records := []struct {
		r    debug.Record
		want bool
		why  string
	}{
		{debug.Record{Type: debug.TypeWrite, Stage: "create", Resource: "deployments.apps", Key: "default/web", UID: "u-dep"}, true,
			"the named object's create; its uid is learnt"},
		{debug.Record{Type: debug.TypeWrite, Stage: "create", Resource: "services", Key: "default/other", UID: "u-svc"}, false,
			"an unrelated object"},
		{debug.Record{Type: debug.TypeTrace, Stage: "watch", Resource: "deployments.apps", Key: "default/web"}, true,
			"an informer stage of the named object"},
		{debug.Record{Type: debug.TypeTrace, Stage: "sync", Actor: "deployment", Key: "default/web"}, true,
			"a sync knows only the key"},
		{debug.Record{Type: debug.TypeWrite, Stage: "create", Resource: "replicasets.apps", Key: "default/web-5d8", UID: "u-rs", Owners: []string{"u-dep"}}, true,
			"a ReplicaSet the Deployment owns is followed"},
		{debug.Record{Type: debug.TypeTrace, Stage: "enqueue", Actor: "replicaset", Key: "default/web-5d8"}, true,
			"and its workqueue steps"},
		{debug.Record{Type: debug.TypeWrite, Stage: "create", Resource: "pods", Key: "default/web-5d8-x7k2p", UID: "u-pod", Owners: []string{"u-rs"}}, true,
			"a pod the ReplicaSet owns is followed"},
		{debug.Record{Type: debug.TypeWrite, Stage: "bind", Actor: "default-scheduler", Resource: "pods", Key: "default/web-5d8-x7k2p"}, true,
			"the pod's binding names no uid, only the pod"},
		{debug.Record{Type: debug.TypeDecision, Actor: "default-scheduler", Resource: "pods", Key: "default/web-5d8-x7k2p", UID: "u-pod"}, true,
			"a decision about the pod"},
		{debug.Record{Type: debug.TypeWrite, Stage: "create", Resource: "pods", Key: "default/lonely", UID: "u-lonely"}, false,
			"a pod nobody followed owns"},
		{debug.Record{Type: debug.TypeWrite, Stage: "create", Resource: "pods", Key: "other/web-5d8-x7k2p", UID: "u-elsewhere", Owners: []string{"u-rs"}}, false,
			"another namespace (never owned by a namespaced owner)"},
		{debug.Record{Type: debug.TypeEvent, Message: "became leader"}, false,
			"a component's own event"},
	}
	for _, tc := range records {
		if got := s.Observe(&tc.r); got != tc.want {
			t.Errorf("%s: observe(%s %s %s) = %v, want %v", tc.why, tc.r.Stage, tc.r.Resource, tc.r.Key, got, tc.want)
		}
	}
}

func TestFollowedSetKnowsAnExistingObjectByUID(t *testing.T) {
	s := trace.NewFollowedSet("replicasets.apps", "default", "web-5d8", "u-rs")
	pod := debug.Record{Type: debug.TypeWrite, Stage: "create", Resource: "pods", Key: "default/web-5d8-abcde", UID: "u-pod", Owners: []string{"u-rs"}}
	if !s.Observe(&pod) {
		t.Fatal("a pod owned by the followed ReplicaSet (known by uid from the start) was not followed")
	}
}

func TestReorderBufferMergesStreamsByTime(t *testing.T) {
	b := &reorderBuffer{window: 300 * time.Millisecond}
	now := at(0)
	// The controller-manager's record of a step at 10 ms arrives first; the
	// apiserver's write at 5 ms, which caused it, arrives 100 ms later over
	// its own connection.
	b.push(debug.Record{Component: "controller-manager", Seq: 1, Time: at(10), Stage: "watch"}, now)
	if got := b.release(now.Add(100 * time.Millisecond)); len(got) != 0 {
		t.Fatalf("released %v before the window passed", got)
	}
	b.push(debug.Record{Component: "apiserver", Seq: 7, Time: at(5), Stage: "create"}, now.Add(100*time.Millisecond))
	b.push(debug.Record{Component: "apiserver", Seq: 8, Time: at(5), Stage: "fanout"}, now.Add(100*time.Millisecond))
	// At 300 ms the first arrival's window is over, but the records dated
	// before it arrived later: they hold it back until theirs is over too.
	if got := b.release(now.Add(300 * time.Millisecond)); len(got) != 0 {
		t.Fatalf("released %v while an older record was still in its window", stagesOf(got))
	}
	got := b.release(now.Add(400 * time.Millisecond))
	if s := stagesOf(got); s != "create fanout watch" {
		t.Fatalf("released %q, want the apiserver's create and fanout (same time, in Seq order), then the watch", s)
	}
	b.push(debug.Record{Component: "scheduler", Seq: 1, Time: at(50), Stage: "bind"}, now.Add(500*time.Millisecond))
	if s := stagesOf(b.drain()); s != "bind" {
		t.Fatalf("drain gave %q, want what was still held", s)
	}
}

func stagesOf(records []debug.Record) string {
	var stages []string
	for _, r := range records {
		stages = append(stages, r.Stage)
	}
	return strings.Join(stages, " ")
}

func TestTracerPrintsTheFollowedRecordsInTimeOrder(t *testing.T) {
	var out bytes.Buffer
	tr := &tracer{
		followed: trace.NewFollowedSet("deployments.apps", "default", "web", ""),
		printer: &tracePrinter{out: &out, namespace: "default",
			kinds: map[string]string{"deployments.apps": "deployment.apps", "replicasets.apps": "replicaset.apps", "pods": "pod"}},
	}
	b := &reorderBuffer{window: time.Millisecond}
	for _, r := range []debug.Record{
		{Component: "kubelet-node1", Seq: 3, Time: at(40), Type: debug.TypeWrite, Stage: "status", Actor: "kubelet", Resource: "pods", Key: "default/web-5d8-x7k2p", ResourceVersion: "15", Message: "phase Running, ready 1/1", Detail: "took=2ms"},
		{Component: "apiserver", Seq: 1, Time: at(0), Type: debug.TypeWrite, Stage: "create", Actor: "kubernetes-admin", Resource: "deployments.apps", Key: "default/web", UID: "u-dep", ResourceVersion: "10", Detail: "etcd=create"},
		{Component: "controller-manager", Seq: 9, Time: at(10), Type: debug.TypeDecision, Actor: "deployment", Resource: "deployments.apps", Key: "default/web", Message: "new ReplicaSet 0 → 3", Lines: []string{"maxSurge 1"}},
		{Component: "controller-manager", Seq: 10, Time: at(12), Type: debug.TypeWrite, Stage: "create", Actor: "deployment", Resource: "replicasets.apps", Key: "default/web-5d8", UID: "u-rs", Owners: []string{"u-dep"}, ResourceVersion: "11"},
		{Component: "controller-manager", Seq: 11, Time: at(20), Type: debug.TypeWrite, Stage: "create", Actor: "replicaset", Resource: "pods", Key: "default/web-5d8-x7k2p", UID: "u-pod", Owners: []string{"u-rs"}, ResourceVersion: "12"},
		{Component: "scheduler", Seq: 4, Time: at(30), Type: debug.TypeWrite, Stage: "bind", Actor: "default-scheduler", Resource: "pods", Key: "default/web-5d8-x7k2p"},
		{Component: "scheduler", Seq: 5, Time: at(31), Type: debug.TypeWrite, Stage: "update", Resource: "leases.coordination.k8s.io", Key: "default/unrelated"},
	} {
		b.push(r, at(0))
	}
	if err := tr.emit(b.drain()); err != nil {
		t.Fatal(err)
	}
	want := `TIME       COMPONENT           STAGE     ACTOR                           OBJECT                              RV      DETAIL
+0.000s    apiserver           create    kubernetes-admin                deployment.apps/web                 10      etcd=create
+0.010s    controller-manager  decision  deployment                      deployment.apps/web                 -       new ReplicaSet 0 → 3
                                                                                                                     maxSurge 1
+0.012s    controller-manager  create    deployment                      replicaset.apps/web-5d8             11
+0.020s    controller-manager  create    replicaset                      pod/web-5d8-x7k2p                   12
+0.030s    scheduler           bind      default-scheduler               pod/web-5d8-x7k2p                   -
+0.040s    kubelet-node1       status    kubelet                         pod/web-5d8-x7k2p                   15      phase Running, ready 1/1  took=2ms
`
	if got := out.String(); got != want {
		t.Errorf("printed\n%s\nwant\n%s", got, want)
	}
}

func TestTracerJSONAndStageFilter(t *testing.T) {
	var out bytes.Buffer
	tr := &tracer{
		followed: trace.NewFollowedSet("pods", "default", "web", "u-pod"),
		printer:  &tracePrinter{out: &out, json: true, namespace: "default"},
		stages:   []string{"bind"},
	}
	err := tr.emit([]debug.Record{
		{Component: "apiserver", Type: debug.TypeWrite, Stage: "create", Resource: "pods", Key: "default/web", UID: "u-pod"},
		{Component: "scheduler", Type: debug.TypeWrite, Stage: "bind", Resource: "pods", Key: "default/web", ResourceVersion: "8"},
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("printed %q, want the one bind record", out.String())
	}
	var r debug.Record
	if err := json.Unmarshal([]byte(lines[0]), &r); err != nil || r.Stage != "bind" || r.ResourceVersion != "8" || r.Component != "scheduler" {
		t.Fatalf("line %q decodes to %+v, %v; want the scheduler's bind at rv 8", lines[0], r, err)
	}
}

func TestRecordDetailLeavesOutWhatTheActorColumnSays(t *testing.T) {
	for _, tc := range []struct {
		r    debug.Record
		want string
	}{
		{debug.Record{Actor: "deployment", Detail: "queue=deployment event=get"}, "event=get"},
		{debug.Record{Actor: "deployment", Detail: "queue=deployment"}, ""},
		{debug.Record{Actor: "x.addPod", Detail: "handler=x.addPod method=OnAdd"}, "method=OnAdd"},
		{debug.Record{Actor: "replicaset", Detail: "queue=deployment"}, "queue=deployment"},
		{debug.Record{Message: "phase Running, ready 1/1", Detail: "took=2ms"}, "phase Running, ready 1/1  took=2ms"},
		{debug.Record{Message: "conflict", Detail: "queue=rs result=error", Actor: "rs"}, "conflict  result=error"},
	} {
		if got := trace.Detail(&tc.r); got != tc.want {
			t.Errorf("recordDetail(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}

// TestFollowedSetFollowsACustomResource: a Website is followed like a
// built-in kind — the apiserver's etcd write and watch fan-out, its own
// controller's informer, queue and decision (a process of its own with its
// debug API), and down the ownership chain to what that controller
// created and what the built-in controllers made of it.
func TestFollowedSetFollowsACustomResource(t *testing.T) {
	s := trace.NewFollowedSet("websites.examples.kplane.dev", "default", "hello", "")
	records := []struct {
		r    debug.Record
		want bool
		why  string
	}{
		{debug.Record{Component: "apiserver", Type: debug.TypeWrite, Stage: "create", Resource: "websites.examples.kplane.dev", Key: "default/hello", UID: "u-web"}, true,
			"the apiserver's etcd write of the Website; its uid is learnt"},
		{debug.Record{Component: "apiserver", Type: debug.TypeTrace, Stage: "fanout", Resource: "websites.examples.kplane.dev", Key: "default/hello"}, true,
			"the watch cache's fan-out"},
		{debug.Record{Component: "website-controller", Type: debug.TypeTrace, Stage: "store", Resource: "websites.examples.kplane.dev", Key: "default/hello"}, true,
			"the Website controller's informer"},
		{debug.Record{Component: "website-controller", Type: debug.TypeTrace, Stage: "enqueue", Actor: "website", Key: "default/hello"}, true,
			"its workqueue, which knows only the key"},
		{debug.Record{Component: "website-controller", Type: debug.TypeWrite, Stage: "create", Actor: "website", Resource: "deployments.apps", Key: "default/hello", UID: "u-dep", Owners: []string{"u-web"}}, true,
			"the Deployment the sync created, owned by the Website"},
		{debug.Record{Component: "website-controller", Type: debug.TypeDecision, Actor: "website", Resource: "websites.examples.kplane.dev", Key: "default/hello", UID: "u-web"}, true,
			"the sync's decision"},
		{debug.Record{Component: "controller-manager", Type: debug.TypeWrite, Stage: "create", Actor: "deployment", Resource: "replicasets.apps", Key: "default/hello-5d8", UID: "u-rs", Owners: []string{"u-dep"}}, true,
			"the ReplicaSet the deployment controller made of it"},
		{debug.Record{Component: "apiserver", Type: debug.TypeWrite, Stage: "create", Resource: "websites.examples.kplane.dev", Key: "default/other", UID: "u-other"}, false,
			"another Website"},
	}
	for _, tc := range records {
		if got := s.Observe(&tc.r); got != tc.want {
			t.Errorf("%s: observe(%s %s %s) = %v, want %v", tc.why, tc.r.Stage, tc.r.Resource, tc.r.Key, got, tc.want)
		}
	}
}
