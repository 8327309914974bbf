package apiserver

import (
	"reflect"
	"slices"
	"sort"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/store/keys"
)

// resource describes one REST resource the apiserver serves: where it lives
// in the URL space and in etcd, what Go type holds it, and the few rules that
// differ between kinds (status subresource, generation, scale). Everything
// else — get, list, watch, create, update, patch, delete — is the same code
// for every resource; that is the point of Kubernetes' uniform API.
type resource struct {
	group   string // "" for the core group
	version string
	kind    string
	plural  string // the path segment and the etcd key segment: "deployments"
	// etcdResource, when set, replaces plural in the etcd keys: upstream
	// stores CRDs and custom resources under <group>/<plural>
	// ("apiextensions.k8s.io/customresourcedefinitions").
	etcdResource string
	singular     string
	shortNames   []string
	categories   []string // "all" puts the kind in `kubectl get all`
	namespaced   bool

	// newObject returns an empty object of the Go type that holds this kind.
	newObject func() api.Object

	// hasStatus says the kind has a status subresource: PUT on the object
	// keeps the stored status, PUT on /status keeps everything but status.
	hasStatus bool
	// tracksGeneration says metadata.generation counts spec changes.
	tracksGeneration bool
	// scale, when set, serves the autoscaling/v1 Scale subresource.
	scale *scaleAccess
	// clearStatusOnCreate drops a status sent with a create, as upstream's
	// strategies do for workloads (a new Deployment has no status yet).
	clearStatusOnCreate bool
	// allowCreateOnUpdate lets PUT create a missing object (Endpoints, Lease, Event).
	allowCreateOnUpdate bool
	// returnDeletedObject answers a delete with the object rather than a Status.
	returnDeletedObject bool
	// selectableFields lists the field selector keys beyond metadata.name and
	// metadata.namespace; fieldsOf computes their values for one object.
	selectableFields []string
	fieldsOf         func(obj api.Object) map[string]string
	// conversion, when set, says this kind is another representation of
	// a kind stored under the same etcd keys — events.k8s.io/v1 Event is
	// core/v1 Event — and how to convert between the two (conversion.go).
	conversion *conversion
	// createOnly marks a resource that is a question rather than a thing:
	// the access and token reviews. POST answers it at once and nothing is
	// stored, so it has no etcd keys, no watch cache and no other verb
	// (upstream's storage-less "virtual" resources). It is listed in
	// discovery only; its handlers are routed by name (router.go).
	createOnly bool
	// probed marks componentstatuses: a read-only resource whose get and
	// list probe the components there and then (componentstatus.go).
	// Nothing is stored; like createOnly it is in discovery and routed by
	// name.
	probed bool
	// custom is set on the resources CustomResourceDefinitions add
	// (customresource_resource.go); they hold api.CustomObjects.
	custom *customResourceInfo
}

// groupVersion is "v1" for the core group, "apps/v1" otherwise.
func (r *resource) groupVersion() string {
	if r.group == "" {
		return r.version
	}
	return r.group + "/" + r.version
}

// qualified is the name errors print: "deployments.apps", or "pods".
func (r *resource) qualified() apierrors.Resource {
	return apierrors.Resource{Group: r.group, Resource: r.plural}
}

// goType is the struct type behind the kind, for decoding and patching.
func (r *resource) goType() reflect.Type {
	return reflect.TypeOf(r.newObject()).Elem()
}

// keyPrefix is the etcd prefix of every object of this resource, or of those
// in one namespace: /registry/pods/ or /registry/pods/default/.
// The layout is package keys', which `ctl etcd` reads too.
func (r *resource) keyPrefix(namespace string) string {
	if !r.namespaced {
		namespace = ""
	}
	return keys.Prefix(r.storageName(), namespace)
}

// storageName is the resource's segment of its etcd keys.
func (r *resource) storageName() string {
	if r.etcdResource != "" {
		return r.etcdResource
	}
	return r.plural
}

// key is where one object is stored in etcd.
func (r *resource) key(namespace, name string) string {
	if !r.namespaced {
		namespace = ""
	}
	return keys.Object(r.storageName(), namespace, name)
}

// verbs lists what the resource supports, for discovery.
func (r *resource) verbs() []string {
	if r.createOnly {
		return []string{"create"}
	}
	if r.probed {
		return []string{"get", "list"}
	}
	return []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
}

// subresources lists the subresource names the resource serves.
func (r *resource) subresources() []string {
	var subs []string
	if r.hasStatus {
		subs = append(subs, "status")
	}
	if r.scale != nil {
		subs = append(subs, "scale")
	}
	switch r.plural {
	case "pods":
		subs = append(subs, "binding", "eviction", "log")
	case "namespaces":
		subs = append(subs, "finalize")
	case "nodes":
		subs = append(subs, "proxy")
	case "serviceaccounts":
		subs = append(subs, "token")
	case "certificatesigningrequests":
		subs = append(subs, "approval")
	}
	return subs
}

// createOnlyPath is the route of a create-only resource:
// /apis/<group>/<version>/<plural>, or with namespaces/{namespace}/ before
// the plural when it is namespaced.
func createOnlyPath(r *resource) string {
	if r.namespaced {
		return "/apis/" + r.groupVersion() + "/namespaces/{namespace}/" + r.plural
	}
	return "/apis/" + r.groupVersion() + "/" + r.plural
}

// registry is the set of resources, indexed the ways requests look them up.
type registry struct {
	all         []*resource          // the stored resources
	virtual     []*resource          // the storage-less ones (reviews, componentstatuses), for discovery
	byPath      map[string]*resource // "apps/v1/deployments"
	byKind      map[string]*resource // "apps/v1/Deployment"
	byGoType    map[reflect.Type]*resource
	byPluralAny map[string]*resource // "deployments", for keys in etcd
	// discovery is all and virtual in discovery order, and servedGVs
	// their group/versions: computed once, as the registry never changes.
	discovery []*resource
	servedGVs []string
}

// servedGroupVersions returns every group/version discovery lists: those
// of the stored resources and of the storage-less ones. The slice is
// shared: callers must not change it.
func (reg *registry) servedGroupVersions() []string { return reg.servedGVs }

// discoverable returns every resource discovery lists, stored or not, in
// discovery order. The slice is shared: callers must not
// change it.
func (reg *registry) discoverable() []*resource { return reg.discovery }

// groupVersionsOf lists the group/versions of resources, each once, in
// their order.
func groupVersionsOf(resources []*resource) []string {
	seen := map[string]bool{}
	var gvs []string
	for _, r := range resources {
		if gv := r.groupVersion(); !seen[gv] {
			seen[gv] = true
			gvs = append(gvs, gv)
		}
	}
	return gvs
}

// lookup finds the resource served at group/version/plural.
func (reg *registry) lookup(group, version, plural string) *resource {
	return reg.byPath[group+"/"+version+"/"+plural]
}

// forObject finds the resource of a typed object.
func (reg *registry) forObject(obj api.Object) *resource {
	return reg.byGoType[reflect.TypeOf(obj).Elem()]
}

func newRegistry(resources []*resource) *registry {
	reg := &registry{
		byPath:      map[string]*resource{},
		byKind:      map[string]*resource{},
		byGoType:    map[reflect.Type]*resource{},
		byPluralAny: map[string]*resource{},
	}
	for _, r := range resources {
		if r.createOnly || r.probed {
			reg.virtual = append(reg.virtual, r)
			continue
		}
		reg.all = append(reg.all, r)
		reg.byPath[r.group+"/"+r.version+"/"+r.plural] = r
		reg.byKind[r.groupVersion()+"/"+r.kind] = r
		reg.byGoType[r.goType()] = r
		if r.conversion == nil {
			// The kind that owns the etcd keys; a converted view of it
			// shares its plural.
			reg.byPluralAny[r.plural] = r
		}
	}
	sort.SliceStable(reg.all, func(i, j int) bool { return groupOrder(reg.all[i].group) < groupOrder(reg.all[j].group) })
	reg.discovery = append(slices.Clone(reg.all), reg.virtual...)
	sort.SliceStable(reg.discovery, func(i, j int) bool { return groupOrder(reg.discovery[i].group) < groupOrder(reg.discovery[j].group) })
	reg.servedGVs = groupVersionsOf(reg.discovery)
	return reg
}

// groupOrder puts the groups in the order upstream's discovery lists them.
func groupOrder(group string) int {
	for i, g := range []string{"", "apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io", "authorization.k8s.io", "autoscaling", "batch", "certificates.k8s.io", "coordination.k8s.io", "networking.k8s.io", "policy", "rbac.authorization.k8s.io", "storage.k8s.io", "apiextensions.k8s.io", "scheduling.k8s.io"} {
		if g == group {
			return i
		}
	}
	return 100
}
