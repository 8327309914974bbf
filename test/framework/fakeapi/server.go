package fakeapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"kplane/pkg/debug"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/informer"
)

// Server is a recording stand-in for the apiserver; see the package
// comment. Its methods are safe for concurrent use, as a controller's
// parallel creates (slow start) need.
type Server struct {
	client *client.Client
	clock  clock.Clock
	// informers is the factory Informers returns, built on first use.
	informers     *informer.SharedInformerFactory
	informersOnce sync.Once
	// journal is the debug journal the informers carry, so a test reads
	// the decisions the controller under test recorded.
	journal *debug.Journal

	mu sync.Mutex
	// objects holds every stored object as decoded JSON, by storeKey.
	objects map[string]map[string]any
	// resourceVersion is the last one handed out; every write takes the next.
	resourceVersion int
	// generated counts the names made up from generateName.
	generated int
	// actions are the requests received, oldest first; checked is how
	// many of them ExpectActions has already compared.
	actions []Action
	checked int
	// reactors see each request before it is served; see React.
	reactors []func(Action) error
	// custom are the resources added with WithCustomResource or
	// SetCustomResources, by plural (custom.go).
	custom map[string]customResource
	// customMu guards the custom field, which SetCustomResources replaces
	// while the server serves; it is its own lock because reactors run
	// under mu and may look resources up (through Cache, say).
	customMu sync.RWMutex
	// t reports requests the fake cannot serve.
	t testing.TB
}

// Option configures a Server.
type Option func(*Server)

// WithClock stamps creationTimestamp and deletionTimestamp from clk
// instead of the wall clock; pass the fake clock the controller uses.
func WithClock(clk clock.Clock) Option {
	return func(s *Server) { s.clock = clk }
}

// New starts a Server for the test; it stops when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{clock: clock.Real{}, objects: map[string]map[string]any{}, custom: map[string]customResource{}, t: t}
	for _, opt := range opts {
		opt(s)
	}
	s.journal = debug.NewJournal("fakeapi", 1000, s.clock)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := client.New(&client.Config{Host: srv.URL, MaxRetries: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("fakeapi: client: %v", err)
	}
	t.Cleanup(c.Close)
	s.client = c
	return s
}

// Journal returns the debug journal of the informers Informers returns: a
// controller built on them records its decisions and syncs there, and a
// test reads them with Decisions or Journal().After(0).
func (s *Server) Journal() *debug.Journal { return s.journal }

// Decisions returns the decision records in the journal about key, oldest
// first.
func (s *Server) Decisions(key string) []debug.Record {
	records, _ := s.journal.After(0)
	var out []debug.Record
	for _, r := range records {
		if r.Type == debug.TypeDecision && r.Key == key {
			out = append(out, r)
		}
	}
	return out
}

// Client returns the client a controller under test is given: a real
// *client.Client whose requests this server answers.
func (s *Server) Client() *client.Client { return s.client }

// Add stores objects as the apiserver would hold them, without recording
// an action: the state a test starts from. Objects keep the
// resourceVersion they have, so a write based on them succeeds and one
// based on an older copy conflicts.
func (s *Server) Add(t testing.TB, objects ...api.Object) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, obj := range objects {
		res, ok := s.objectResource(obj)
		if !ok {
			t.Fatalf("fakeapi: Add of %T: not a kind the server serves", obj)
		}
		m, err := toMap(obj)
		if err != nil {
			t.Fatalf("fakeapi: Add: %v", err)
		}
		setTypeMeta(m, res)
		meta := obj.GetObjectMeta()
		s.objects[storeKey(res.Resource, meta.Namespace, meta.Name)] = m
	}
}

// Get returns the object the server holds as T, and whether there is one.
func Get[T api.Object](t testing.TB, s *Server, namespace, name string) (T, bool) {
	t.Helper()
	res := resourceFor[T](t, s, "Get")
	s.mu.Lock()
	m, found := s.objects[storeKey(res.Resource, namespace, name)]
	s.mu.Unlock()
	if !found {
		var zero T
		return zero, false
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("fakeapi: Get: %v", err)
	}
	return decode[T](t, "get "+res.Resource+" "+name, "object", data), true
}

// List returns the objects of T's kind the server holds in namespace
// ("" for every namespace, and for cluster-scoped kinds), sorted by
// namespace and name: for example the pods a sync created under
// generated names.
func List[T api.Object](t testing.TB, s *Server, namespace string) []T {
	t.Helper()
	res := resourceFor[T](t, s, "List")
	s.mu.Lock()
	var encoded [][]byte
	for _, key := range s.keysOf(request{resource: res.Resource, namespace: namespace, collectionOfNamespace: namespace != ""}, labels.Everything()) {
		data, err := json.Marshal(s.objects[key])
		if err != nil {
			s.mu.Unlock()
			t.Fatalf("fakeapi: List: %v", err)
		}
		encoded = append(encoded, data)
	}
	s.mu.Unlock()
	var out []T
	for _, data := range encoded {
		out = append(out, decode[T](t, "list "+res.Resource, "object", data))
	}
	return out
}

// resourceFor returns the resource that serves T, failing the test (on
// behalf of caller) for a type kplane does not serve.
func resourceFor[T api.Object](t testing.TB, s *Server, caller string) client.Resource {
	t.Helper()
	var zero T
	res, ok := s.objectResource(zero)
	if !ok {
		t.Fatalf("fakeapi: %s of %T: not a kind kplane serves", caller, zero)
	}
	return res
}

// FailOn makes every request with this verb on resource (with its
// subresource: "deployments/status") and name answer err instead of being
// served. An empty resource or name matches any. err is sent as its
// Status if it is an *apierrors.StatusError, else as a 500.
func (s *Server) FailOn(verb, resource, name string, err error) {
	s.React(func(a Action) error {
		target := a.Resource
		if a.Subresource != "" {
			target += "/" + a.Subresource
		}
		if a.Verb == verb && (resource == "" || resource == target) && (name == "" || name == a.Name) {
			return err
		}
		return nil
	})
}

// React adds a function that sees every request before it is served (in
// the order they were added); the first non-nil error it returns is the
// answer. It decides more than FailOn can: the third create fails, or a
// pod's delete fails only after its owner's update.
func (s *Server) React(reactor func(Action) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reactors = append(s.reactors, reactor)
}

// ServeHTTP records the request, asks the reactors, then serves it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && isDiscoveryPath(r.URL.Path) {
		s.serveDiscovery(w, r)
		return
	}
	req, err := parseRequest(r, s.resourceNamed)
	if err != nil {
		s.t.Errorf("fakeapi: %s %s: %v", r.Method, r.URL, err)
		writeError(w, apierrors.NewNotFound(apierrors.Resource{Resource: r.URL.Path}, ""))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	action := Action{Verb: req.verb, Resource: req.resource, Subresource: req.subresource,
		Namespace: req.namespace, Name: req.name, Query: r.URL.Query(),
		PatchType: r.Header.Get("Content-Type"), Body: body}
	if action.Verb == VerbCreate && action.Name == "" {
		action.Name = nameOfCreate(body)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	for _, react := range s.reactors {
		if err = react(action); err != nil {
			break
		}
	}
	var code int
	var response []byte
	if err == nil {
		code, response, err = s.serve(req, &action)
	}
	action.Err = err
	s.actions = append(s.actions, action)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(response)
}

// nameOfCreate is the name a create's body asks for, or its generateName.
func nameOfCreate(body []byte) string {
	var obj struct {
		Metadata struct{ Name, GenerateName string } `json:"metadata"`
	}
	if json.Unmarshal(body, &obj) != nil {
		return ""
	}
	if obj.Metadata.Name != "" {
		return obj.Metadata.Name
	}
	return obj.Metadata.GenerateName
}

// writeError answers err as a meta/v1 Status.
func writeError(w http.ResponseWriter, err error) {
	var statusErr *apierrors.StatusError
	if !errors.As(err, &statusErr) {
		statusErr = apierrors.NewInternalError(err)
	}
	status := statusErr.Status()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(status.Code))
	_ = json.NewEncoder(w).Encode(status)
}

// storeKey is where an object lives in Server.objects.
func storeKey(resource, namespace, name string) string {
	return fmt.Sprintf("%s/%s/%s", resource, namespace, name)
}
