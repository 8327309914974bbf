// Package restmapper turns what a user types — `po`, `pods`, `Pod`,
// `deployments.apps`, `deploy` — and what a YAML file says — `apiVersion:
// apps/v1, kind: Deployment` — into the REST resource that serves it, from
// the apiserver's discovery documents. It is kplane's version of
// client-go's RESTMapper (k8s.io/client-go/restmapper) and kubectl's
// shortcut expander, shared by ctl and by the components that work on
// every resource the server serves (the garbage collector, the namespace
// controller, the web view).
//
// Nothing about resources is hard-coded: the names, short names, kinds,
// scopes, verbs and categories all come from the server (discovery.go), so
// a resource the server adds is usable at once, and `ctl api-resources`
// prints what the server says.
package restmapper

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"kplane/pkg/client"
)

// APIResource is one resource as discovery describes it.
type APIResource struct {
	Group, Version string
	// Name is the plural name used in URLs: "deployments".
	Name string
	// SingularName is "deployment"; Kind is "Deployment".
	SingularName, Kind string
	ShortNames         []string
	Namespaced         bool
	Verbs              []string
	// Categories group resources for `ctl get all`.
	Categories []string
	// Preferred marks the server's preferred version of the group; only
	// those are offered when a name does not say which version.
	Preferred bool
}

// GroupVersion is the resource's apiVersion: "v1" or "apps/v1".
func (r APIResource) GroupVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// GroupResource is how errors name the resource: "pods",
// "deployments.apps".
func (r APIResource) GroupResource() string {
	if r.Group == "" {
		return r.Name
	}
	return r.Name + "." + r.Group
}

// KindName is how kubectl names an object of this resource in messages
// and in -o name: the lowercase kind, qualified by its group —
// "pod/x", "deployment.apps/x", "job.batch/x".
func (r APIResource) KindName() string {
	kind := strings.ToLower(r.Kind)
	if r.Group == "" {
		return kind
	}
	return kind + "." + r.Group
}

// Client is the resource as pkg/client addresses it.
func (r APIResource) Client() client.Resource {
	return client.Resource{Group: r.Group, Version: r.Version, Resource: r.Name, Kind: r.Kind, Namespaced: r.Namespaced}
}

// Path is the REST path of the collection (name "") or of one object:
// /api/v1/namespaces/default/pods/x, /apis/apps/v1/deployments. namespace
// is ignored for cluster-scoped resources and may be "" for a list across
// all namespaces.
func (r APIResource) Path(namespace, name string) string {
	var b strings.Builder
	if r.Group == "" {
		b.WriteString("/api/")
	} else {
		b.WriteString("/apis/" + r.Group + "/")
	}
	b.WriteString(r.Version)
	if r.Namespaced && namespace != "" {
		b.WriteString("/namespaces/" + url.PathEscape(namespace))
	}
	b.WriteString("/" + r.Name)
	if name != "" {
		b.WriteString("/" + url.PathEscape(name))
	}
	return b.String()
}

// HasVerb reports whether the resource supports verb ("list", "watch", …).
func (r APIResource) HasVerb(verb string) bool {
	for _, v := range r.Verbs {
		if v == verb {
			return true
		}
	}
	return false
}

// Mapper answers name and kind questions from one discovery snapshot.
type Mapper struct {
	// resources in discovery order: groups as the server lists them (core
	// first), each group's preferred version first.
	resources []APIResource
}

// New returns a Mapper over resources, in discovery order.
func New(resources []APIResource) *Mapper {
	return &Mapper{resources: resources}
}

// Resources returns the preferred version of every resource, in discovery
// order.
func (m *Mapper) Resources() []APIResource {
	var out []APIResource
	for _, r := range m.resources {
		if r.Preferred {
			out = append(out, r)
		}
	}
	return out
}

// NoResourceMatchError says no resource answers to a name.
type NoResourceMatchError struct {
	// Resource is the name as typed (lowercased), Group and Version the
	// qualifiers it carried, if any.
	Resource, Group, Version string
}

// Error words the failure as kubectl does.
func (e *NoResourceMatchError) Error() string {
	switch {
	case e.Group != "" && e.Version != "":
		return fmt.Sprintf("the server doesn't have a resource type %q in group %q and version %q", e.Resource, e.Group, e.Version)
	case e.Group != "":
		return fmt.Sprintf("the server doesn't have a resource type %q in group %q", e.Resource, e.Group)
	default:
		return fmt.Sprintf("the server doesn't have a resource type %q", e.Resource)
	}
}

// NoKindMatchError says no resource serves an apiVersion and kind.
type NoKindMatchError struct {
	APIVersion, Kind string
}

// Error words the failure as kubectl does.
func (e *NoKindMatchError) Error() string {
	return fmt.Sprintf("no matches for kind %q in version %q", e.Kind, e.APIVersion)
}

// versionPattern recognises the version part of "deployments.v1.apps".
var versionPattern = regexp.MustCompile(`^v[0-9]+((alpha|beta)[0-9]+)?$`)

// ResourceFor finds the resource a user means by arg: a plural, singular
// or short name, or a kind, in any case, optionally qualified by its group
// ("deployments.apps", "deploy.apps") or version and group
// ("deployments.v1.apps"). When several groups serve the name, the first
// in discovery order wins, as in kubectl.
func (m *Mapper) ResourceFor(arg string) (APIResource, error) {
	arg = strings.ToLower(strings.TrimSpace(arg))
	if arg == "" {
		return APIResource{}, &NoResourceMatchError{}
	}
	type query struct{ name, group, version string }
	queries := []query{{name: arg}}
	if name, rest, qualified := strings.Cut(arg, "."); qualified {
		// Resource names never contain dots: what follows the first dot
		// is "<version>.<group>" or "<group>".
		queries = nil
		if version, group, ok := strings.Cut(rest, "."); ok && versionPattern.MatchString(version) {
			queries = append(queries, query{name: name, group: group, version: version})
		}
		queries = append(queries, query{name: name, group: rest})
	}
	for _, q := range queries {
		if r, ok := m.find(q.name, q.group, q.version); ok {
			return r, nil
		}
	}
	last := queries[len(queries)-1]
	return APIResource{}, &NoResourceMatchError{Resource: last.name, Group: last.group, Version: last.version}
}

// find returns the first resource named name (in group, at version, when
// given). Without a version, only preferred versions are considered.
func (m *Mapper) find(name, group, version string) (APIResource, bool) {
	for _, r := range m.resources {
		if (version == "" && !r.Preferred) || (version != "" && r.Version != version) {
			continue
		}
		if (group != "" || version != "") && r.Group != group {
			continue
		}
		if r.Name == name || r.SingularName == name || strings.ToLower(r.Kind) == name {
			return r, true
		}
		for _, short := range r.ShortNames {
			if short == name {
				return r, true
			}
		}
	}
	return APIResource{}, false
}

// KindFor finds the resource serving objects of apiVersion and kind, as
// written in a manifest ("apps/v1", "Deployment").
func (m *Mapper) KindFor(apiVersion, kind string) (APIResource, error) {
	for _, r := range m.resources {
		if r.GroupVersion() == apiVersion && r.Kind == kind {
			return r, nil
		}
	}
	return APIResource{}, &NoKindMatchError{APIVersion: apiVersion, Kind: kind}
}

// Category returns the preferred resources in a category ("all"), in
// discovery order: what `ctl get all` lists.
func (m *Mapper) Category(name string) []APIResource {
	var out []APIResource
	for _, r := range m.Resources() {
		for _, c := range r.Categories {
			if c == name {
				out = append(out, r)
				break
			}
		}
	}
	return out
}
