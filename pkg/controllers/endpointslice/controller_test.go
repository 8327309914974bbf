package endpointslice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework/controllertest"
)

// slicesPath is where the controller writes EndpointSlices of "default".
const slicesPath = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"

// action is one request the controller sent.
type action struct {
	verb, path string
	body       []byte
}

func (a action) String() string { return a.verb + " " + a.path }

// fakeAPI is a stand-in apiserver that records requests and accepts them,
// unless failures says to answer a "VERB path" with a given Status. A
// created slice gets a name, a UID and generation 1, as the apiserver
// would give it.
type fakeAPI struct {
	mu       sync.Mutex
	actions  []action
	created  int
	failures map[string]string // "VERB path" → Status JSON
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	f.mu.Lock()
	f.actions = append(f.actions, action{verb: req.Method, path: req.URL.Path, body: body})
	status, fail := f.failures[req.Method+" "+req.URL.Path]
	f.created++
	n := f.created
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case fail:
		var s api.Status
		_ = json.Unmarshal([]byte(status), &s)
		w.WriteHeader(int(s.Code))
		_, _ = w.Write([]byte(status))
	case req.Method == http.MethodDelete:
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Success"}`))
	case req.Method == http.MethodPost:
		var slice api.EndpointSlice
		_ = json.Unmarshal(body, &slice)
		slice.Name = fmt.Sprintf("%s%05d", slice.GenerateName, n)
		slice.UID, slice.Generation = fmt.Sprintf("uid-created-%d", n), 1
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(slice)
	default:
		_, _ = w.Write(body)
	}
}

func (f *fakeAPI) recorded() []action {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.actions)
}

// fixture is a controller whose listers hold the given objects (filled by
// hand, no informer runs) and whose client talks to a fakeAPI.
type fixture struct {
	api      *fakeAPI
	ctrl     *Controller
	events   *events.FakeRecorder
	indexers map[string]informer.Indexer // by Go type name
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	fake := &fakeAPI{failures: map[string]string{}}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	c, err := client.New(&client.Config{Host: srv.URL, MaxRetries: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	factory := informer.NewSharedInformerFactory(c, 0)
	recorder := &events.FakeRecorder{}
	ctrl, err := New(c, factory, recorder, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	return &fixture{api: fake, ctrl: ctrl, events: recorder, indexers: map[string]informer.Indexer{
		"Service":       factory.Services().Informer().GetIndexer(),
		"Pod":           factory.Pods().Informer().GetIndexer(),
		"Node":          factory.Nodes().Informer().GetIndexer(),
		"EndpointSlice": factory.EndpointSlices().Informer().GetIndexer(),
	}}
}

// add puts objects in the listers; node-1 is always there.
func (f *fixture) add(t *testing.T, objs ...api.Object) {
	t.Helper()
	for _, obj := range objs {
		kind := strings.TrimPrefix(fmt.Sprintf("%T", obj), "*api.")
		if err := f.indexers[kind].Add(obj); err != nil {
			t.Fatal(err)
		}
	}
}

func (f *fixture) sync(t *testing.T) error {
	t.Helper()
	return f.ctrl.sync(context.Background(), "default/web")
}

// decodeSlice reads the body of a recorded write.
func decodeSlice(t *testing.T, a action) *api.EndpointSlice {
	t.Helper()
	var s api.EndpointSlice
	if err := json.Unmarshal(a.body, &s); err != nil {
		t.Fatalf("decode %s body: %v", a, err)
	}
	return &s
}

// A Service without slices gets one, created with generateName and
// holding its pods.
func TestSyncCreatesSlice(t *testing.T) {
	f := newFixture(t)
	f.add(t, testNode("node-1"), controllertest.WebService(),
		controllertest.WebPod("a", "10.244.1.2"),
		controllertest.WebPod("b", "10.244.1.3", controllertest.NotReady),
		controllertest.WebPod("stranger", "10.244.1.4", controllertest.WithLabels(map[string]string{"app": "other"})))
	if err := f.sync(t); err != nil {
		t.Fatalf("sync: %v", err)
	}
	acts := f.api.recorded()
	if len(acts) != 1 || acts[0].String() != "POST "+slicesPath {
		t.Fatalf("actions %v, want one POST of an endpointslice", acts)
	}
	s := decodeSlice(t, acts[0])
	if s.GenerateName != "web-" || s.Name != "" {
		t.Errorf("name %q generateName %q, want generateName web-", s.Name, s.GenerateName)
	}
	if got, want := summary([]*api.EndpointSlice{s}), "web-*: 10.244.1.2(a) !10.244.1.3(b) | http/8080"; got != want {
		t.Errorf("created %s, want %s", got, want)
	}
	if s.Endpoints[0].Zone == nil || *s.Endpoints[0].Zone != "zone-a" {
		t.Errorf("endpoint zone %v, want the node's zone-a", s.Endpoints[0].Zone)
	}
}

// Slices that already say the right thing are not written again.
func TestSyncSkipsUpToDateSlices(t *testing.T) {
	f := newFixture(t)
	f.add(t, testNode("node-1"), controllertest.WebService(), controllertest.WebPod("a", "10.244.1.2"),
		storedSlice("web-a", endpointOf("a", "10.244.1.2")))
	if err := f.sync(t); err != nil {
		t.Fatalf("sync: %v", err)
	}
	if acts := f.api.recorded(); len(acts) != 0 {
		t.Fatalf("actions %v, want none", acts)
	}
}

// A changed pod updates its slice with the cached resourceVersion; a slice
// left without endpoints is deleted.
func TestSyncUpdatesAndDeletesSlices(t *testing.T) {
	f := newFixture(t)
	f.add(t, testNode("node-1"), controllertest.WebService(), controllertest.WebPod("a", "10.244.1.2", controllertest.NotReady),
		storedSlice("web-a", endpointOf("a", "10.244.1.2")), storedSlice("web-b", endpointOf("gone", "10.244.1.9")))
	if err := f.sync(t); err != nil {
		t.Fatalf("sync: %v", err)
	}
	acts := f.api.recorded()
	if len(acts) != 2 || acts[0].String() != "PUT "+slicesPath+"/web-a" || acts[1].String() != "DELETE "+slicesPath+"/web-b" {
		t.Fatalf("actions %v, want PUT web-a then DELETE web-b", acts)
	}
	s := decodeSlice(t, acts[0])
	if s.ResourceVersion != "5" || *s.Endpoints[0].Conditions.Ready {
		t.Errorf("update: resourceVersion %q, endpoint %s", s.ResourceVersion, asJSON(s.Endpoints[0]))
	}
}

// Services without a selector, ExternalName Services and deleted Services
// get no writes.
func TestSyncLeavesOtherServicesAlone(t *testing.T) {
	noSelector := controllertest.WebService(func(s *api.Service) { s.Spec.Selector = nil })
	external := controllertest.WebService(func(s *api.Service) { s.Spec.Type = api.ServiceTypeExternalName })
	for name, svc := range map[string]*api.Service{"no selector": noSelector, "ExternalName": external, "deleted": nil} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.add(t, testNode("node-1"), controllertest.WebPod("a", "10.244.1.2"), storedSlice("web-a"))
			if svc != nil {
				f.add(t, svc)
			}
			if err := f.sync(t); err != nil {
				t.Fatalf("sync: %v", err)
			}
			if acts := f.api.recorded(); len(acts) != 0 {
				t.Fatalf("actions %v, want none", acts)
			}
		})
	}
}

// A Service being deleted gets no new slices: the garbage collector is
// deleting them.
func TestSyncCreatesNothingForDeletingService(t *testing.T) {
	f := newFixture(t)
	f.add(t, testNode("node-1"), controllertest.WebService(terminatingService), controllertest.WebPod("a", "10.244.1.2"))
	if err := f.sync(t); err != nil {
		t.Fatalf("sync: %v", err)
	}
	if acts := f.api.recorded(); len(acts) != 0 {
		t.Fatalf("actions %v, want none", acts)
	}
}

func terminatingService(s *api.Service) {
	now := api.Now()
	s.DeletionTimestamp = &now
}

// A sync right after a create, on a cache that has not seen the new slice,
// waits for the cache rather than creating a second slice.
func TestSyncWaitsForStaleCache(t *testing.T) {
	f := newFixture(t)
	f.add(t, testNode("node-1"), controllertest.WebService(), controllertest.WebPod("a", "10.244.1.2"))
	if err := f.sync(t); err != nil {
		t.Fatalf("first sync: %v", err)
	}
	if err := f.sync(t); !errors.Is(err, errStaleCache) {
		t.Fatalf("second sync: %v, want a stale-cache error", err)
	}
	if acts := f.api.recorded(); len(acts) != 1 {
		t.Fatalf("actions %v, want the one create", acts)
	}
}

// A pod whose node the cache does not know is left out and the sync is
// retried; the other pods are written meanwhile.
func TestSyncSkipsPodsOnUnknownNodes(t *testing.T) {
	f := newFixture(t)
	f.add(t, testNode("node-1"), controllertest.WebService(),
		controllertest.WebPod("a", "10.244.1.2"),
		controllertest.WebPod("b", "10.244.2.2", controllertest.OnNode("node-2")))
	err := f.sync(t)
	if err == nil || !strings.Contains(err.Error(), "node-2") {
		t.Fatalf("sync: %v, want an error naming node-2", err)
	}
	acts := f.api.recorded()
	if len(acts) != 1 {
		t.Fatalf("actions %v, want one create", acts)
	}
	if got := summary([]*api.EndpointSlice{decodeSlice(t, acts[0])}); got != "web-*: 10.244.1.2(a) | http/8080" {
		t.Errorf("created %s", got)
	}
}

// A failed write records a FailedToUpdateEndpointSlices event on the
// Service and is retried with back-off.
func TestSyncFailureRecordsEvent(t *testing.T) {
	f := newFixture(t)
	f.add(t, testNode("node-1"), controllertest.WebService(), controllertest.WebPod("a", "10.244.1.2"))
	f.api.failures["POST "+slicesPath] = `{"kind":"Status","status":"Failure","reason":"InternalError","code":500,"message":"etcd is sad"}`
	f.ctrl.queue.Add("default/web")
	controllerutil.ProcessNext(context.Background(), f.ctrl.queue, f.ctrl.sync, slog.New(slog.DiscardHandler))
	if got := f.ctrl.queue.NumRequeues("default/web"); got != 1 {
		t.Errorf("requeues = %d, want 1", got)
	}
	evs := f.events.Events()
	if len(evs) != 1 || !strings.HasPrefix(evs[0], "Warning FailedToUpdateEndpointSlices Error updating Endpoint Slices for Service default/web:") {
		t.Errorf("events %q, want one FailedToUpdateEndpointSlices", evs)
	}
}

// Slice events queue the Service unless they echo the controller's own
// writes or concern a slice someone else manages. (The pod handlers are
// controllerutil.ServicePodHandlers, tested with it.)
func TestHandlersQueueServiceKeys(t *testing.T) {
	f := newFixture(t)
	queued := func() []string {
		var keys []string
		for f.ctrl.queue.Len() > 0 {
			k, _ := f.ctrl.queue.Get()
			keys = append(keys, k)
			f.ctrl.queue.Done(k)
		}
		slices.Sort(keys)
		return keys
	}
	expect := func(what string, want ...string) {
		t.Helper()
		if got := queued(); !slices.Equal(got, want) {
			t.Errorf("%s queued %v, want %v", what, got, want)
		}
	}

	own := storedSlice("web-a")
	f.ctrl.tracker.wrote(own)
	f.ctrl.addSlice(own)
	expect("addSlice (own write)")
	edited := api.DeepCopy(own)
	edited.Generation = 2
	f.ctrl.updateSlice(own, edited)
	expect("updateSlice (someone else's edit)", "default/web")
	f.ctrl.deleteSlice(edited)
	expect("deleteSlice (someone else's delete)", "default/web")
	foreign := storedSlice("manual")
	foreign.Labels[api.LabelManagedBy] = "someone-else"
	f.ctrl.addSlice(foreign)
	f.ctrl.deleteSlice(foreign)
	expect("slice managed by someone else")
}
