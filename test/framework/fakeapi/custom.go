package fakeapi

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// This file lets a test add resources kplane has no Go type for — a
// made-up custom resource such as widgets.example.com — and serves the
// discovery documents that list them beside the built-in ones, as the
// apiserver does once a CustomResourceDefinition is established.

// customResource is a resource added with WithCustomResource.
type customResource struct {
	resource client.Resource
	verbs    []string
	// newObject, when set (WithKind), gives the Go type its objects
	// decode into; without it they are JSON maps.
	newObject func() api.Object
}

// allVerbs are the verbs discovery lists for a resource served in full.
var allVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// WithCustomResource makes the server serve res, a resource with no Go
// type, whose objects are kept as JSON maps (a strategic merge patch of
// one is refused with 415, as the apiserver refuses it for custom
// resources), and list it in discovery with verbs (none given: every
// verb). Objects of it are *api.CustomObject values with apiVersion
// and kind set; Add stores them.
func WithCustomResource(res client.Resource, verbs ...string) Option {
	if len(verbs) == 0 {
		verbs = allVerbs
	}
	return func(s *Server) { s.custom[res.Resource] = customResource{resource: res, verbs: verbs} }
}

// SetCustomResources replaces the custom resources the server serves and
// lists in discovery by resources, each with every verb: a test adds or
// removes one between two discovery reads, as creating or deleting a CRD
// would. Objects already stored stay.
func (s *Server) SetCustomResources(resources ...client.Resource) {
	custom := map[string]customResource{}
	for _, r := range resources {
		custom[r.Resource] = customResource{resource: r, verbs: allVerbs}
	}
	s.customMu.Lock()
	defer s.customMu.Unlock()
	s.custom = custom
}

// resourceNamed returns the built-in or custom resource with plural name;
// any goroutine may call it.
func (s *Server) resourceNamed(plural string) (client.Resource, bool) {
	if _, ok := kinds[plural]; ok {
		return resources[plural], true
	}
	c, ok := s.customResources()[plural]
	return c.resource, ok
}

// objectResource returns the resource serving obj: by its Go type, or, for
// an *api.CustomObject, by its apiVersion and kind among the custom
// resources.
func (s *Server) objectResource(obj api.Object) (client.Resource, bool) {
	u, ok := obj.(*api.CustomObject)
	if !ok {
		if res, ok := resourceOf(obj); ok {
			return res, true
		}
		for _, c := range s.customResources() {
			if c.newObject != nil && reflect.TypeOf(c.newObject()) == reflect.TypeOf(obj) {
				return c.resource, true
			}
		}
		return client.Resource{}, false
	}
	for _, c := range s.customResources() {
		if c.resource.GroupVersion() == u.APIVersion && c.resource.Kind == u.Kind {
			return c.resource, true
		}
	}
	return client.Resource{}, false
}

// isDiscoveryPath reports whether path is a discovery document: /api or
// /apis.
func isDiscoveryPath(path string) bool {
	path = strings.TrimSuffix(path, "/")
	return path == "/api" || path == "/apis"
}

// discovery answers /api or /apis in the aggregated form
// (apidiscovery.k8s.io/v2 APIGroupDiscoveryList): the core group for /api,
// every other group for /apis, the built-in resources first and then the
// custom ones. The caller holds s.mu.
func (s *Server) discovery(path string) []byte {
	type resource struct {
		Resource     string   `json:"resource"`
		Scope        string   `json:"scope"`
		Verbs        []string `json:"verbs"`
		ResponseKind struct {
			Kind string `json:"kind"`
		} `json:"responseKind"`
	}
	type version struct {
		Version   string     `json:"version"`
		Resources []resource `json:"resources"`
	}
	type group struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Versions []version `json:"versions"`
	}
	core := strings.TrimSuffix(path, "/") == "/api"
	var groups []*group
	byGroupVersion := map[string]*version{}
	add := func(res client.Resource, verbs []string) {
		if (res.Group == "") != core {
			return
		}
		v, ok := byGroupVersion[res.GroupVersion()]
		if !ok {
			g := &group{}
			for _, existing := range groups {
				if existing.Metadata.Name == res.Group {
					g = existing
				}
			}
			if g.Metadata.Name == "" && len(g.Versions) == 0 {
				g.Metadata.Name = res.Group
				groups = append(groups, g)
			}
			g.Versions = append(g.Versions, version{Version: res.Version})
			v = &g.Versions[len(g.Versions)-1]
			byGroupVersion[res.GroupVersion()] = v
		}
		r := resource{Resource: res.Resource, Scope: "Cluster", Verbs: verbs}
		if res.Namespaced {
			r.Scope = "Namespaced"
		}
		r.ResponseKind.Kind = res.Kind
		v.Resources = append(v.Resources, r)
	}
	for _, res := range client.BuiltinResources() {
		add(res, allVerbs)
	}
	for _, c := range s.sortedCustom() {
		add(c.resource, c.verbs)
	}
	items := make([]group, 0, len(groups))
	for _, g := range groups {
		items = append(items, *g)
	}
	body, _ := json.Marshal(map[string]any{
		"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "items": items,
	})
	return body
}

// sortedCustom returns the custom resources sorted, so that discovery
// reads the same every time; the caller holds s.mu.
func (s *Server) sortedCustom() []customResource {
	custom := s.customResources()
	out := make([]customResource, 0, len(custom))
	for _, r := range custom {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b customResource) int { return strings.Compare(a.resource.String(), b.resource.String()) })
	return out
}

// serveDiscovery records a discovery request as a get of "discovery"
// named by its path (so FailOn(VerbGet, "discovery", "", err) makes
// discovery fail) and answers it.
func (s *Server) serveDiscovery(w http.ResponseWriter, r *http.Request) {
	action := Action{Verb: VerbGet, Resource: "discovery", Name: r.URL.Path, Query: r.URL.Query()}
	s.mu.Lock()
	var err error
	for _, react := range s.reactors {
		if err = react(action); err != nil {
			break
		}
	}
	var body []byte
	if err == nil {
		body = s.discovery(r.URL.Path)
	}
	action.Err = err
	s.actions = append(s.actions, action)
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// errStrategicMergeOfCustom is the apiserver's answer to a strategic merge
// patch of a custom resource, which has no Go type to read patch
// strategies from.
func errStrategicMergeOfCustom() error {
	return apierrors.NewUnsupportedMediaType(string(client.StrategicMergePatchType))
}

// customResources returns the custom resources the server serves now. The
// map is replaced whole, never changed, once the server serves: callers
// may read it without a lock.
func (s *Server) customResources() map[string]customResource {
	s.customMu.RLock()
	defer s.customMu.RUnlock()
	return s.custom
}
