package endpoints

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
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

// action is one request the controller sent.
type action struct {
	verb, path string
	body       []byte
}

// recorder is a stand-in apiserver that records requests and accepts them
// (echoing the body), unless failures says to answer a "VERB path" with
// a given Status.
type recorder struct {
	mu       sync.Mutex
	actions  []action
	failures map[string]string // "VERB path" → Status JSON
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.actions = append(r.actions, action{verb: req.Method, path: req.URL.Path, body: body})
	status, fail := r.failures[req.Method+" "+req.URL.Path]
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if fail {
		var s api.Status
		_ = json.Unmarshal([]byte(status), &s)
		w.WriteHeader(int(s.Code))
		_, _ = w.Write([]byte(status))
		return
	}
	if req.Method == http.MethodDelete {
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Success"}`))
		return
	}
	_, _ = w.Write(body)
}

func (r *recorder) recorded() []action {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.actions)
}

// fixture is a controller whose listers hold the given objects (filled by
// hand, no informer runs) and whose client talks to a recorder.
type fixture struct {
	api      *recorder
	ctrl     *Controller
	events   *events.FakeRecorder
	services informer.Indexer
	pods     informer.Indexer
	eps      informer.Indexer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	rec := &recorder{failures: map[string]string{}}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	c, err := client.New(&client.Config{Host: srv.URL, MaxRetries: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	factory := informer.NewSharedInformerFactory(c, 0)
	fake := &events.FakeRecorder{}
	ctrl, err := New(c, factory, fake, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	return &fixture{api: rec, ctrl: ctrl, events: fake,
		services: factory.Services().Informer().GetIndexer(),
		pods:     factory.Pods().Informer().GetIndexer(),
		eps:      factory.Endpoints().Informer().GetIndexer()}
}

func (f *fixture) add(t *testing.T, objs ...api.Object) {
	t.Helper()
	for _, obj := range objs {
		var err error
		switch obj.(type) {
		case *api.Service:
			err = f.services.Add(obj)
		case *api.Pod:
			err = f.pods.Add(obj)
		case *api.Endpoints:
			err = f.eps.Add(obj)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func (f *fixture) sync(t *testing.T, key string) error {
	t.Helper()
	return f.ctrl.sync(context.Background(), key)
}

// decodeEndpoints reads the body of a recorded write.
func decodeEndpoints(t *testing.T, a action) *api.Endpoints {
	t.Helper()
	var ep api.Endpoints
	if err := json.Unmarshal(a.body, &ep); err != nil {
		t.Fatalf("decode %s %s body: %v", a.verb, a.path, err)
	}
	return &ep
}

// A Service without Endpoints gets them, with its labels and the ready and
// not-ready addresses of its pods.
func TestSyncCreatesEndpoints(t *testing.T) {
	f := newFixture(t)
	f.add(t, controllertest.WebService(),
		controllertest.WebPod("a", "10.244.1.2"),
		controllertest.WebPod("b", "10.244.1.3", controllertest.NotReady),
		controllertest.WebPod("stranger", "10.244.1.4", controllertest.WithLabels(map[string]string{"app": "other"})))
	if err := f.sync(t, "default/web"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	acts := f.api.recorded()
	if len(acts) != 1 || acts[0].verb != http.MethodPost || acts[0].path != "/api/v1/namespaces/default/endpoints" {
		t.Fatalf("actions %v, want one POST of endpoints", acts)
	}
	ep := decodeEndpoints(t, acts[0])
	want := []api.EndpointSubset{{
		Addresses:         []api.EndpointAddress{addr("a", "10.244.1.2")},
		NotReadyAddresses: []api.EndpointAddress{addr("b", "10.244.1.3")},
		Ports:             []api.EndpointPort{tcp("http", 8080)},
	}}
	if ep.Name != "web" || !maps.Equal(ep.Labels, map[string]string{"team": "shop"}) || asJSON(ep.Subsets) != asJSON(want) {
		t.Fatalf("created %s %v %s\nwant web %v %s", ep.Name, ep.Labels, asJSON(ep.Subsets), map[string]string{"team": "shop"}, asJSON(want))
	}
}

// Endpoints that already say the right thing are not written again.
func TestSyncSkipsUnchangedEndpoints(t *testing.T) {
	f := newFixture(t)
	svc := controllertest.WebService()
	pods := []*api.Pod{controllertest.WebPod("a", "10.244.1.2"), controllertest.WebPod("b", "10.244.1.3")}
	current := &api.Endpoints{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "7", Labels: map[string]string{"team": "shop"}},
		Subsets:    desiredSubsets(svc, pods),
	}
	f.add(t, svc, pods[0], pods[1], current)
	if err := f.sync(t, "default/web"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	if acts := f.api.recorded(); len(acts) != 0 {
		t.Fatalf("actions %v, want none", acts)
	}
}

// Changed subsets or labels are written with the cached resourceVersion.
func TestSyncUpdatesChangedEndpoints(t *testing.T) {
	for name, current := range map[string]*api.Endpoints{
		"stale subsets": {
			ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "7", Labels: map[string]string{"team": "shop"}},
			Subsets:    []api.EndpointSubset{{Addresses: []api.EndpointAddress{addr("gone", "10.244.9.9")}, Ports: []api.EndpointPort{tcp("http", 8080)}}},
		},
		"stale labels": {
			ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "7", Labels: map[string]string{"team": "old"}},
			Subsets:    []api.EndpointSubset{{Addresses: []api.EndpointAddress{addr("a", "10.244.1.2")}, Ports: []api.EndpointPort{tcp("http", 8080)}}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.add(t, controllertest.WebService(), controllertest.WebPod("a", "10.244.1.2"), current)
			if err := f.sync(t, "default/web"); err != nil {
				t.Fatalf("sync: %v", err)
			}
			acts := f.api.recorded()
			if len(acts) != 1 || acts[0].verb != http.MethodPut || acts[0].path != "/api/v1/namespaces/default/endpoints/web" {
				t.Fatalf("actions %v, want one PUT", acts)
			}
			ep := decodeEndpoints(t, acts[0])
			if ep.ResourceVersion != "7" {
				t.Errorf("update resourceVersion %q, want the cached 7", ep.ResourceVersion)
			}
			if !maps.Equal(ep.Labels, map[string]string{"team": "shop"}) || len(ep.Subsets) != 1 || ep.Subsets[0].Addresses[0].IP != "10.244.1.2" {
				t.Errorf("update wrote labels %v subsets %s", ep.Labels, asJSON(ep.Subsets))
			}
		})
	}
}

// A deleted Service takes its Endpoints along.
func TestSyncDeletesEndpointsOfDeletedService(t *testing.T) {
	f := newFixture(t)
	if err := f.sync(t, "default/web"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	acts := f.api.recorded()
	if len(acts) != 1 || acts[0].verb != http.MethodDelete || acts[0].path != "/api/v1/namespaces/default/endpoints/web" {
		t.Fatalf("actions %v, want one DELETE of endpoints/web", acts)
	}
	// Already gone is fine.
	f.api.failures["DELETE /api/v1/namespaces/default/endpoints/web"] = `{"kind":"Status","status":"Failure","reason":"NotFound","code":404}`
	if err := f.sync(t, "default/web"); err != nil {
		t.Fatalf("sync with endpoints already gone: %v", err)
	}
}

// Services without a selector, and ExternalName Services, are left alone.
func TestSyncLeavesForeignEndpointsAlone(t *testing.T) {
	noSelector := controllertest.WebService(func(s *api.Service) { s.Spec.Selector = nil })
	external := controllertest.WebService(func(s *api.Service) { s.Spec.Type = api.ServiceTypeExternalName })
	for _, svc := range []*api.Service{noSelector, external} {
		f := newFixture(t)
		f.add(t, svc, controllertest.WebPod("a", "10.244.1.2"))
		if err := f.sync(t, "default/web"); err != nil {
			t.Fatalf("sync: %v", err)
		}
		if acts := f.api.recorded(); len(acts) != 0 {
			t.Fatalf("service %+v: actions %v, want none", svc.Spec, acts)
		}
	}
}

// A headless Service's Endpoints carry the headless label.
func TestSyncLabelsHeadlessEndpoints(t *testing.T) {
	f := newFixture(t)
	f.add(t, controllertest.WebService(controllertest.Headless), controllertest.WebPod("a", "10.244.1.2"))
	if err := f.sync(t, "default/web"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	acts := f.api.recorded()
	if len(acts) != 1 {
		t.Fatalf("actions %v, want one create", acts)
	}
	if ep := decodeEndpoints(t, acts[0]); !maps.Equal(ep.Labels, map[string]string{"team": "shop", headlessLabel: ""}) {
		t.Fatalf("labels %v", ep.Labels)
	}
}

// A create refused because the namespace is terminating is dropped without
// an event (the Service goes with the namespace); other failures, a plain
// Forbidden included, record an event and are retried with back-off, as
// upstream does.
func TestSyncCreateFailures(t *testing.T) {
	const namespaceTerminating = `{"kind":"Status","status":"Failure","reason":"Forbidden","code":403,` +
		`"message":"endpoints \"web\" is forbidden: unable to create new content in namespace default because it is being terminated",` +
		`"details":{"name":"web","kind":"endpoints","causes":[{"reason":"NamespaceTerminating","field":"metadata.namespace"}]}}`
	const forbidden = `{"kind":"Status","status":"Failure","reason":"Forbidden","code":403,"message":"endpoints \"web\" is forbidden: no"}`
	const internal = `{"kind":"Status","status":"Failure","reason":"InternalError","code":500,"message":"etcd is sad"}`
	for _, tc := range []struct {
		name         string
		status       string
		wantRequeues int
		wantEvent    bool
	}{
		{"terminating namespace is dropped", namespaceTerminating, 0, false},
		{"other forbidden is retried", forbidden, 1, true},
		{"server error is retried", internal, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.add(t, controllertest.WebService(), controllertest.WebPod("a", "10.244.1.2"))
			f.api.failures["POST /api/v1/namespaces/default/endpoints"] = tc.status
			f.ctrl.queue.Add("default/web")
			controllerutil.ProcessNext(context.Background(), f.ctrl.queue, f.ctrl.sync, slog.New(slog.DiscardHandler))
			if got := f.ctrl.queue.NumRequeues("default/web"); got != tc.wantRequeues {
				t.Errorf("requeues = %d, want %d", got, tc.wantRequeues)
			}
			evs := f.events.Events()
			if tc.wantEvent && (len(evs) != 1 || !strings.HasPrefix(evs[0], "Warning FailedToCreateEndpoint Failed to create endpoint for service default/web:")) {
				t.Errorf("events %q, want one FailedToCreateEndpoint", evs)
			}
			if !tc.wantEvent && len(evs) != 0 {
				t.Errorf("events %q, want none", evs)
			}
		})
	}
}

// Service and Endpoints events queue the Service's key, once however many
// arrive before a worker takes it. (The pod handlers are
// controllerutil.ServicePodHandlers, tested with it.)
func TestHandlersQueueServiceKeys(t *testing.T) {
	f := newFixture(t)
	f.ctrl.deleteEndpoints(&api.Endpoints{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"}})
	f.ctrl.updateService(controllertest.WebService(), controllertest.WebService())
	f.ctrl.deleteService(informer.DeletedFinalStateUnknown{Key: "default/web", Obj: controllertest.WebService()})
	var queued []string
	for f.ctrl.queue.Len() > 0 {
		k, _ := f.ctrl.queue.Get()
		queued = append(queued, k)
		f.ctrl.queue.Done(k)
	}
	if !slices.Equal(queued, []string{"default/web"}) {
		t.Errorf("endpoints delete, service update and delete (tombstone) queued %v, want [default/web] once", queued)
	}
}
