package apiserver

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"kplane/pkg/store"
	"kplane/pkg/store/cache"
)

// The resources CustomResourceDefinitions add. The built-in registry
// (resources.go) is fixed when the server starts; these come and go while
// it serves, as the CRD controller (crd_controller.go) establishes and
// removes CRDs. They live in a customResourceSet that is never changed
// once published: a change builds a new set and swaps the pointer, so a
// request reads whichever set was current when it looked, without a lock
// (copy-on-write). Writers — only the CRD controller, but tests too — take
// customResources.mu so that two changes do not lose one another.
//
// Discovery, RBAC and the request path see these through lookupResource,
// cacheFor and discoverableResources; the OpenAPI documents through each
// set's own view, openapi (openapi_customresources.go).

// customResources is the server's current customResourceSet.
type customResources struct {
	current atomic.Pointer[customResourceSet]
	mu      sync.Mutex // serialises replacing current
}

// customResourceSet is one published state of the custom resources.
// Nothing in it changes after it is published.
type customResourceSet struct {
	// byPath finds a served version: "stable.example.com/v1/crontabs".
	byPath map[string]*resource
	// byCRD holds what each established CRD serves, by CRD name.
	byCRD map[string]*servedCRD
	// discovery is every served resource in discovery order: by group,
	// then by version priority within the group (v2 before v1beta1).
	discovery []*resource
	// openapi is the OpenAPI documents of this set, built the first time
	// a client asks for them (the only part filled in after publishing,
	// once, behind its sync.Once).
	openapi *customOpenAPI
}

// servedCRD is what one CRD serves: a resource per served version, each
// with its own watch cache over the same etcd keys (objects are stored in
// the storage version and read in each version's own apiVersion).
type servedCRD struct {
	// fingerprint identifies the CRD state the resources were built from;
	// a CRD whose fingerprint changes is served anew.
	fingerprint string
	resources   []*resource
	caches      map[*resource]*cache.Cache
	// stop ends the watch caches.
	stop context.CancelFunc
}

// set returns the current set (an empty one before the first change).
func (c *customResources) set() *customResourceSet {
	if set := c.current.Load(); set != nil {
		return set
	}
	return &customResourceSet{}
}

// lookupResource finds the resource served at group/version/plural:
// built-in, or added by a CRD.
func (s *Server) lookupResource(group, version, plural string) *resource {
	if res := s.reg.lookup(group, version, plural); res != nil {
		return res
	}
	return s.custom.set().byPath[group+"/"+version+"/"+plural]
}

// cacheFor returns the watch cache of res, or nil when res is no longer
// served (its CRD was just removed).
func (s *Server) cacheFor(res *resource) *cache.Cache {
	if res.custom == nil {
		return s.caches[res]
	}
	served := s.custom.set().byCRD[res.custom.crdName]
	if served == nil {
		return nil
	}
	return served.caches[res]
}

// discoverableResources lists every resource discovery shows: the
// built-ins, then the custom resources.
func (s *Server) discoverableResources() []*resource {
	custom := s.custom.set().discovery
	if len(custom) == 0 {
		return s.reg.discoverable()
	}
	return append(slices.Clip(s.reg.discoverable()), custom...)
}

// servedGroupVersionsAll lists the group/versions of discoverableResources.
func (s *Server) servedGroupVersionsAll() []string {
	custom := s.custom.set().discovery
	if len(custom) == 0 {
		return s.reg.servedGroupVersions()
	}
	return append(slices.Clip(s.reg.servedGroupVersions()), groupVersionsOf(custom)...)
}

// cacheLoadTimeout bounds how long serving a CRD waits for its caches'
// first list.
const cacheLoadTimeout = 30 * time.Second

// serveCustomResources publishes resources (the served versions of the CRD
// named crdName, built from the CRD state fingerprint) with a watch cache
// each, replacing what the CRD served before. A CRD already served from
// the same fingerprint is left as it is. It returns once the new caches
// have loaded.
func (s *Server) serveCustomResources(ctx context.Context, crdName, fingerprint string, resources []*resource) error {
	s.custom.mu.Lock()
	defer s.custom.mu.Unlock()
	old := s.custom.set()
	if served := old.byCRD[crdName]; served != nil && served.fingerprint == fingerprint {
		return nil
	}
	cacheCtx, stop := context.WithCancel(s.ctx)
	served := &servedCRD{fingerprint: fingerprint, resources: resources, caches: map[*resource]*cache.Cache{}, stop: stop}
	for _, res := range resources {
		served.caches[res] = s.startCache(cacheCtx, res)
	}
	for res, c := range served.caches {
		select {
		case <-c.Ready():
		case <-ctx.Done():
			stop()
			return ctx.Err()
		case <-time.After(cacheLoadTimeout):
			stop()
			return fmt.Errorf("watch cache for %s did not load", res.qualified())
		}
	}
	s.custom.current.Store(old.with(crdName, served))
	if previous := old.byCRD[crdName]; previous != nil {
		previous.stop()
	}
	return nil
}

// stopServingCustomResources removes what the CRD named crdName served:
// its paths answer 404 and its watches end.
func (s *Server) stopServingCustomResources(crdName string) {
	s.custom.mu.Lock()
	defer s.custom.mu.Unlock()
	old := s.custom.set()
	previous := old.byCRD[crdName]
	if previous == nil {
		return
	}
	s.custom.current.Store(old.with(crdName, nil))
	previous.stop()
}

// startCache starts the watch cache of one resource, until ctx ends: the
// same decoding as the built-ins' (server.go).
func (s *Server) startCache(ctx context.Context, res *resource) *cache.Cache {
	c := cache.New(s.store, res.keyPrefix(""), func(kv store.KV) (any, error) {
		if so := s.recent.take(res, kv.Key, kv.ModRevision); so != nil {
			return so, nil
		}
		return s.decodeStored(res, kv)
	}, cache.Options{Logger: s.log, OnDispatch: s.fanoutTracer(res), Index: cacheIndexFor(res)})
	go func() {
		if err := c.Run(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("watch cache stopped", "resource", res.qualified().String(), "err", err)
		}
	}()
	return c
}

// with returns a copy of set in which the CRD crdName serves served (nil:
// nothing).
func (set *customResourceSet) with(crdName string, served *servedCRD) *customResourceSet {
	next := &customResourceSet{byPath: map[string]*resource{}, byCRD: map[string]*servedCRD{}, openapi: &customOpenAPI{}}
	for name, entry := range set.byCRD {
		if name != crdName {
			next.byCRD[name] = entry
		}
	}
	if served != nil {
		next.byCRD[crdName] = served
	}
	for _, entry := range next.byCRD {
		for _, res := range entry.resources {
			next.byPath[res.group+"/"+res.version+"/"+res.plural] = res
			next.discovery = append(next.discovery, res)
		}
	}
	sort.Slice(next.discovery, func(i, j int) bool {
		a, b := next.discovery[i], next.discovery[j]
		if a.group != b.group {
			return a.group < b.group
		}
		if a.version != b.version {
			return compareKubeVersions(a.version, b.version) > 0
		}
		return a.plural < b.plural
	})
	return next
}

// compareKubeVersions orders API versions as Kubernetes does (upstream's
// version.CompareKubeAwareVersionStrings): GA before beta before alpha,
// higher numbers first within each, and versions that do not look like
// v<N>[alpha|beta<M>] last, alphabetically. It returns >0 when a sorts
// before b.
func compareKubeVersions(a, b string) int {
	ra, ma, na, oka := parseKubeVersion(a)
	rb, mb, nb, okb := parseKubeVersion(b)
	switch {
	case oka && !okb:
		return 1
	case !oka && okb:
		return -1
	case !oka && !okb:
		return strings.Compare(b, a)
	case ra != rb:
		return ra - rb
	case ma != mb:
		return ma - mb
	}
	return na - nb
}

// parseKubeVersion reads v<major>[alpha|beta<minor>]: rank 2 for GA, 1 for
// beta, 0 for alpha.
func parseKubeVersion(v string) (rank, major, minor int, ok bool) {
	if !strings.HasPrefix(v, "v") {
		return 0, 0, 0, false
	}
	rest := v[1:]
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		major = major*10 + int(rest[i]-'0')
		i++
	}
	if i == 0 || rest[0] == '0' {
		return 0, 0, 0, false
	}
	rest = rest[i:]
	switch {
	case rest == "":
		return 2, major, 0, true
	case strings.HasPrefix(rest, "beta"):
		rank, rest = 1, rest[len("beta"):]
	case strings.HasPrefix(rest, "alpha"):
		rank, rest = 0, rest[len("alpha"):]
	default:
		return 0, 0, 0, false
	}
	if rest == "" || rest[0] == '0' {
		return 0, 0, 0, false
	}
	for _, ch := range rest {
		if ch < '0' || ch > '9' {
			return 0, 0, 0, false
		}
		minor = minor*10 + int(ch-'0')
	}
	return rank, major, minor, true
}
