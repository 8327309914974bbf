package dns

import (
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"kplane/pkg/api"
)

// Table is the DNS's lookup table: the cluster's Services with their
// EndpointSlices, its Namespaces, and the reverse index that PTR queries
// read. The informers' event handlers change it one object at a time
// (SetService, SetEndpointSlice, …); the Resolver reads it on every query.
//
// Invariants, each kept under mu by the one method that changes an entry
// (refresh):
//   - views[key] is buildView of entries[key], or absent when the entry
//     holds neither a Service nor a slice.
//   - clusterIPOwners[ip] holds key iff views[key] exists and lists ip
//     among its cluster IPs; endpointNames[ip] holds the name
//     hostname.service.namespace.svc.zone iff some view lists an endpoint
//     with that ip and hostname.
//
// Reads hold the read lock only to fetch a view or an index entry; views
// are never modified once built, so answering from one needs no lock.
type Table struct {
	// zone is the cluster domain, fully qualified: "cluster.local.".
	zone string
	// now stamps changes for the SOA serial.
	now func() time.Time

	mu sync.RWMutex
	// namespaces are the namespaces that exist: a name in any other
	// namespace is NXDOMAIN, as CoreDNS's namespaceExposed decides.
	namespaces map[string]struct{}
	// entries are the objects of each Service ("namespace/name"), as the
	// informers last delivered them.
	entries map[string]*entry
	// sliceOwners maps a slice ("namespace/name") to the Service key its
	// kubernetes.io/service-name label named, so that a slice relabelled
	// or deleted leaves the right entry.
	sliceOwners map[string]string
	// views are the entries as DNS reads them.
	views map[string]*serviceView
	// clusterIPOwners and endpointNames are the reverse index.
	clusterIPOwners map[netip.Addr]map[string]struct{}
	endpointNames   map[netip.Addr]map[string]struct{}

	// serial is the SOA serial: the Unix time of the last change, as
	// CoreDNS's kubernetes plugin serves it.
	serial atomic.Uint32
	// synced is set once the informers' first lists are in the table.
	synced atomic.Bool
}

// entry is one Service's objects: the Service (nil until it is known)
// and its EndpointSlices by name.
type entry struct {
	service *api.Service
	slices  map[string]*api.EndpointSlice
}

// NewTable returns an empty table for the cluster domain zone
// ("cluster.local"). now, if nil, is the wall clock.
func NewTable(zone string, now func() time.Time) *Table {
	if now == nil {
		now = time.Now
	}
	t := &Table{
		zone:            fqdnOf(zone),
		now:             now,
		namespaces:      map[string]struct{}{},
		entries:         map[string]*entry{},
		sliceOwners:     map[string]string{},
		views:           map[string]*serviceView{},
		clusterIPOwners: map[netip.Addr]map[string]struct{}{},
		endpointNames:   map[netip.Addr]map[string]struct{}{},
	}
	t.touch()
	return t
}

// Zone is the table's cluster domain, fully qualified.
func (t *Table) Zone() string { return t.zone }

// SetNamespace records that namespace exists.
func (t *Table) SetNamespace(namespace string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.namespaces[namespace] = struct{}{}
	t.touch()
}

// DeleteNamespace records that namespace is gone.
func (t *Table) DeleteNamespace(namespace string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.namespaces, namespace)
	t.touch()
}

// SetService adds or replaces a Service. svc is the informer's cached
// object: the table keeps it and never modifies it.
func (t *Table) SetService(svc *api.Service) {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := svc.Namespace + "/" + svc.Name
	t.entryFor(key).service = svc
	t.refresh(key)
}

// DeleteService removes the Service namespace/name; its slices stay
// until they are deleted too.
func (t *Table) DeleteService(namespace, name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := namespace + "/" + name
	if e, ok := t.entries[key]; ok {
		e.service = nil
		t.refresh(key)
	}
}

// SetEndpointSlice adds or replaces an EndpointSlice, under the Service
// its kubernetes.io/service-name label names. A slice without the label
// belongs to no Service and is dropped.
func (t *Table) SetEndpointSlice(slice *api.EndpointSlice) {
	t.mu.Lock()
	defer t.mu.Unlock()
	sliceKey := slice.Namespace + "/" + slice.Name
	t.removeSlice(sliceKey, slice.Name)
	service := slice.Labels[api.LabelServiceName]
	if service == "" {
		return
	}
	key := slice.Namespace + "/" + service
	e := t.entryFor(key)
	if e.slices == nil {
		e.slices = map[string]*api.EndpointSlice{}
	}
	e.slices[slice.Name] = slice
	t.sliceOwners[sliceKey] = key
	t.refresh(key)
}

// DeleteEndpointSlice removes the EndpointSlice namespace/name.
func (t *Table) DeleteEndpointSlice(namespace, name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.removeSlice(namespace+"/"+name, name)
}

// removeSlice takes the slice out of the entry that holds it, if any.
func (t *Table) removeSlice(sliceKey, name string) {
	owner, ok := t.sliceOwners[sliceKey]
	if !ok {
		return
	}
	delete(t.sliceOwners, sliceKey)
	if e, ok := t.entries[owner]; ok {
		delete(e.slices, name)
		t.refresh(owner)
	}
}

// entryFor returns the entry of key, creating it.
func (t *Table) entryFor(key string) *entry {
	e, ok := t.entries[key]
	if !ok {
		e = &entry{}
		t.entries[key] = e
	}
	return e
}

// refresh rebuilds the view of key from its entry and patches the reverse
// index for this Service alone: the old view's addresses out, the new
// one's in. It is the only code that changes views and the index.
func (t *Table) refresh(key string) {
	if old, ok := t.views[key]; ok {
		t.unindex(key, old)
		delete(t.views, key)
	}
	e := t.entries[key]
	if e.service == nil && len(e.slices) == 0 {
		delete(t.entries, key)
		t.touch()
		return
	}
	namespace, name, _ := strings.Cut(key, "/")
	ordered := make([]*api.EndpointSlice, 0, len(e.slices))
	for _, s := range e.slices {
		ordered = append(ordered, s)
	}
	// Slices in name order, so that answers list endpoints in the same
	// order every time the view is rebuilt.
	sortSlices(ordered)
	v := buildView(namespace, name, e.service, ordered)
	t.views[key] = v
	t.index(key, v)
	t.touch()
}

// index adds a view's addresses to the reverse index.
func (t *Table) index(key string, v *serviceView) {
	if !v.exists {
		return
	}
	for _, ip := range v.clusterIPs {
		addTo(t.clusterIPOwners, ip, key)
	}
	for _, e := range v.endpoints {
		addTo(t.endpointNames, e.ip, e.hostname+"."+v.fqdn(t.zone))
	}
}

// unindex removes what index added for the same view.
func (t *Table) unindex(key string, v *serviceView) {
	if !v.exists {
		return
	}
	for _, ip := range v.clusterIPs {
		removeFrom(t.clusterIPOwners, ip, key)
	}
	for _, e := range v.endpoints {
		removeFrom(t.endpointNames, e.ip, e.hostname+"."+v.fqdn(t.zone))
	}
}

func addTo(index map[netip.Addr]map[string]struct{}, ip netip.Addr, value string) {
	set, ok := index[ip]
	if !ok {
		set = map[string]struct{}{}
		index[ip] = set
	}
	set[value] = struct{}{}
}

func removeFrom(index map[netip.Addr]map[string]struct{}, ip netip.Addr, value string) {
	if set, ok := index[ip]; ok {
		delete(set, value)
		if len(set) == 0 {
			delete(index, ip)
		}
	}
}

// touch moves the SOA serial to now.
func (t *Table) touch() { t.serial.Store(uint32(t.now().Unix())) }

// Serial is the SOA serial: when the table last changed, in Unix seconds.
func (t *Table) Serial() uint32 { return t.serial.Load() }

// MarkSynced records that the informers' first lists are in the table;
// until then the Resolver answers SERVFAIL rather than a NXDOMAIN that
// might be wrong (CoreDNS does the same while its API connection syncs).
func (t *Table) MarkSynced() { t.synced.Store(true) }

// Synced reports whether MarkSynced was called.
func (t *Table) Synced() bool { return t.synced.Load() }

// service returns the view of the Service namespace/name, or nil when no
// such Service exists.
func (t *Table) service(namespace, name string) *serviceView {
	t.mu.RLock()
	v := t.views[namespace+"/"+name]
	t.mu.RUnlock()
	if v == nil || !v.exists {
		return nil
	}
	return v
}

// namespaceExists reports whether namespace exists.
func (t *Table) namespaceExists(namespace string) bool {
	t.mu.RLock()
	_, ok := t.namespaces[namespace]
	t.mu.RUnlock()
	return ok
}

// reverse returns the names a PTR query for ip answers, as CoreDNS's
// serviceRecordForIP finds them: the Service whose cluster IP it is (the
// first by namespace/name, should two claim it), else every endpoint with
// that address, by name.
func (t *Table) reverse(ip netip.Addr) []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if owners := t.clusterIPOwners[ip]; len(owners) > 0 {
		keys := make([]string, 0, len(owners))
		for k := range owners {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return []string{t.views[keys[0]].fqdn(t.zone)}
	}
	names := make([]string, 0, len(t.endpointNames[ip]))
	for name := range t.endpointNames[ip] {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Counts are the table's sizes, for the debug API and logs.
type Counts struct {
	Namespaces int `json:"namespaces"`
	Services   int `json:"services"`
	Endpoints  int `json:"endpoints"`
}

// Counts returns the table's sizes.
func (t *Table) Counts() Counts {
	t.mu.RLock()
	defer t.mu.RUnlock()
	c := Counts{Namespaces: len(t.namespaces)}
	for _, v := range t.views {
		if v.exists {
			c.Services++
			c.Endpoints += len(v.endpoints)
		}
	}
	return c
}

// sortSlices orders slices by name.
func sortSlices(s []*api.EndpointSlice) {
	slices.SortFunc(s, func(a, b *api.EndpointSlice) int { return strings.Compare(a.Name, b.Name) })
}

// fqdnOf returns name lower case with a final dot.
func fqdnOf(name string) string {
	return strings.ToLower(strings.TrimSuffix(name, ".")) + "."
}
