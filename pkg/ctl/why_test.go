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
	"kplane/pkg/restmapper"
)

// whyWorld is two components' debug APIs (httptest servers over real
// journals) and `ctl why` options wired to them, with a mapper and a
// namespace set without an apiserver.
type whyWorld struct {
	cm, sched   *debug.Journal
	clock       *clock.Fake
	out, errOut bytes.Buffer
	endpoints   []debug.Endpoint
}

func newWhyWorld(t *testing.T) *whyWorld {
	t.Helper()
	w := &whyWorld{clock: clock.NewFake(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC))}
	w.cm = debug.NewJournal("controller-manager", 100, w.clock)
	w.sched = debug.NewJournal("scheduler", 100, w.clock)
	for _, j := range []*debug.Journal{w.cm, w.sched} {
		srv := httptest.NewServer(j.Handler(nil, false))
		t.Cleanup(srv.Close)
		w.endpoints = append(w.endpoints, debug.Endpoint{Component: j.Component(), URL: srv.URL})
	}
	return w
}

// why runs `ctl why arg` (with --all and -o output) against the world.
func (w *whyWorld) why(arg string, all bool, output string) error {
	w.out.Reset()
	w.errOut.Reset()
	f := newFactory(IOStreams{Out: &w.out, ErrOut: &w.errOut})
	f.mapper = restmapper.New([]restmapper.APIResource{
		{Version: "v1", Name: "pods", SingularName: "pod", Kind: "Pod", ShortNames: []string{"po"}, Namespaced: true, Preferred: true},
		{Group: "apps", Version: "v1", Name: "deployments", SingularName: "deployment", Kind: "Deployment", ShortNames: []string{"deploy"}, Namespaced: true, Preferred: true},
		{Version: "v1", Name: "nodes", SingularName: "node", Kind: "Node", ShortNames: []string{"no"}, Preferred: true},
		// A kind a CustomResourceDefinition added: discovery lists it like
		// the built-in ones.
		{Group: "examples.kplane.dev", Version: "v1alpha1", Name: "websites", SingularName: "website", Kind: "Website", ShortNames: []string{"ws"}, Namespaced: true, Preferred: true},
	})
	f.namespaceFlag = "default"
	o := &whyOptions{f: f, all: all, output: output, dataDir: "/nowhere", now: w.clock.Now,
		connect: func(string) (*debug.Client, []debug.Endpoint, error) { return &debug.Client{}, w.endpoints, nil }}
	return o.run(context.Background(), arg)
}

// decide records a decision about a deployment or pod in j, then moves
// the clock on by a second.
func (w *whyWorld) decide(j *debug.Journal, actor, resource, key, message string, lines ...string) {
	j.Decision(debug.Decision{Actor: actor, Resource: resource, Key: key, ResourceVersion: "7",
		Message: message, Lines: lines, Source: "pkg/controller/" + actor + "/x.go"})
	w.clock.Step(time.Second)
}

func TestWhyPrintsEachActorsLatestDecisionOldestFirst(t *testing.T) {
	w := newWhyWorld(t)
	w.decide(w.cm, "deployment", "deployments.apps", "default/web", "first step")
	w.decide(w.sched, "scheduler", "pods", "default/web", "a pod that shares the name: not asked about")
	w.decide(w.cm, "replicaset", "deployments.apps", "default/web", "another actor's word")
	w.decide(w.cm, "deployment", "deployments.apps", "default/other", "another deployment")
	w.decide(w.cm, "deployment", "deployments.apps", "default/web", "second step", "the arithmetic", "more of it")
	w.clock.Step(10 * time.Second)

	if err := w.why("deploy/web", false, ""); err != nil {
		t.Fatal(err)
	}
	// replicaset decided last at 12:00:02 (13 s ago), deployment at
	// 12:00:04 (11 s ago): replicaset first.
	want := `replicaset in controller-manager, 13s ago, rv=7:
  another actor's word
  mirrors upstream pkg/controller/replicaset/x.go

deployment in controller-manager, 11s ago, rv=7:
  second step
    the arithmetic
    more of it
  mirrors upstream pkg/controller/deployment/x.go
`
	if w.out.String() != want {
		t.Errorf("ctl why deploy/web printed:\n%s\nwant:\n%s", w.out.String(), want)
	}

	if err := w.why("deploy/web", true, ""); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(w.out.String(), " in controller-manager, "); got != 3 || !strings.Contains(w.out.String(), "first step") {
		t.Errorf("--all printed %d records, want all 3 about default/web:\n%s", got, w.out.String())
	}
}

func TestWhyJSON(t *testing.T) {
	w := newWhyWorld(t)
	w.decide(w.sched, "scheduler", "pods", "default/x", "n2: … = 488, chosen of 2 feasible", "n1: filtered out by TaintToleration: …")
	if err := w.why("po/x", false, "json"); err != nil {
		t.Fatal(err)
	}
	var records []debug.Record
	if err := json.Unmarshal(w.out.Bytes(), &records); err != nil {
		t.Fatalf("-o json printed %q: %v", w.out.String(), err)
	}
	if len(records) != 1 || records[0].Component != "scheduler" || records[0].Message != "n2: … = 488, chosen of 2 feasible" || len(records[0].Lines) != 1 {
		t.Errorf("records %+v", records)
	}

	// Nothing recorded: an empty array.
	if err := w.why("po/y", false, "json"); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(w.out.String()) != "[]" {
		t.Errorf("-o json with no records printed %q, want []", w.out.String())
	}
}

func TestWhyNothingDecidedSaysSo(t *testing.T) {
	w := newWhyWorld(t)
	if err := w.why("deploy/web", false, ""); err != nil {
		t.Fatal(err)
	}
	if w.out.String() != "" || w.errOut.String() != "No decision recorded about deployment.apps/web yet in namespace default.\n" {
		t.Errorf("stdout %q stderr %q", w.out.String(), w.errOut.String())
	}
	// A cluster-scoped object names no namespace.
	if err := w.why("node/n1", false, ""); err != nil {
		t.Fatal(err)
	}
	if w.errOut.String() != "No decision recorded about node/n1 yet.\n" {
		t.Errorf("stderr %q", w.errOut.String())
	}
}

func TestWhyBadInput(t *testing.T) {
	w := newWhyWorld(t)
	for arg, want := range map[string]string{
		"web":        `why takes one TYPE/NAME argument, e.g. deploy/web, not "web"`,
		"deploy/":    `why takes one TYPE/NAME argument, e.g. deploy/web, not "deploy/"`,
		"deploy/a/b": `why takes one TYPE/NAME argument, e.g. deploy/web, not "deploy/a/b"`,
		"gizmo/x":    `the server doesn't have a resource type "gizmo"`,
	} {
		if err := w.why(arg, false, ""); err == nil || err.Error() != want {
			t.Errorf("why %s: error %v, want %q", arg, err, want)
		}
	}
	if err := w.why("deploy/web", false, "yaml"); err == nil || !strings.Contains(err.Error(), "allowed formats are: json") {
		t.Errorf("-o yaml: error %v, want the allowed formats", err)
	}
	// No component announced itself: no cluster runs there.
	w.endpoints = nil
	if err := w.why("deploy/web", false, ""); err == nil || err.Error() != "no component announces a debug API in /nowhere: is the cluster running (ctl up)?" {
		t.Errorf("no endpoints: error %v", err)
	}
}

func TestWhyWarnsAboutASilentComponentAndGoesOn(t *testing.T) {
	w := newWhyWorld(t)
	w.decide(w.cm, "deployment", "deployments.apps", "default/web", "a step")
	w.endpoints = append(w.endpoints, debug.Endpoint{Component: "kubelet-gone", URL: "http://127.0.0.1:1"})
	if err := w.why("deploy/web", false, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.out.String(), "a step") || !strings.HasPrefix(w.errOut.String(), "warning: kubelet-gone debug API: ") {
		t.Errorf("stdout %q stderr %q, want the record and a warning about kubelet-gone", w.out.String(), w.errOut.String())
	}
	// Nobody answers: an error.
	w.endpoints = w.endpoints[2:]
	if err := w.why("deploy/web", false, ""); err == nil || !strings.Contains(err.Error(), "kubelet-gone") {
		t.Errorf("error %v, want kubelet-gone's", err)
	}
}

// TestWhyResolvesCustomKindsThroughDiscovery: a custom kind is named as
// discovery lists it (singular, plural, short name, resource.group), and
// the decisions of a controller in a process of its own — the Website
// controller with its own debug API — are read like the controller-manager's.
func TestWhyResolvesCustomKindsThroughDiscovery(t *testing.T) {
	w := newWhyWorld(t)
	website := debug.NewJournal("website-controller", 100, w.clock)
	srv := httptest.NewServer(website.Handler(nil, false))
	t.Cleanup(srv.Close)
	w.endpoints = append(w.endpoints, debug.Endpoint{Component: website.Component(), URL: srv.URL})
	website.Decision(debug.Decision{Actor: "website", Resource: "websites.examples.kplane.dev", Key: "default/hello", ResourceVersion: "42",
		Message: "replicas 2, image nginx:1.27, port 80: Deployment created, Service created", Source: "staging/src/k8s.io/sample-controller/controller.go"})
	w.decide(w.cm, "deployment", "deployments.apps", "default/hello", "the Deployment of the same name: not asked about")
	w.clock.Step(4 * time.Second)

	want := `website in website-controller, 5s ago, rv=42:
  replicas 2, image nginx:1.27, port 80: Deployment created, Service created
  mirrors upstream staging/src/k8s.io/sample-controller/controller.go
`
	for _, arg := range []string{"website/hello", "websites/hello", "ws/hello", "websites.examples.kplane.dev/hello", "Website/hello"} {
		if err := w.why(arg, false, ""); err != nil {
			t.Fatalf("why %s: %v", arg, err)
		}
		if got := w.out.String(); got != want {
			t.Errorf("why %s printed\n%s\nwant\n%s", arg, got, want)
		}
	}
	if err := w.why("gadget/hello", false, ""); err == nil || !strings.Contains(err.Error(), "gadget") {
		t.Errorf("why gadget/hello (no such kind) = %v, want discovery's error naming it", err)
	}
}
