// Package keys is the layout of kplane's objects in etcd, kept in one place:
// the apiserver stores every object under the key Object returns, and `ctl
// etcd` turns a kind and a name into the same key to show what etcd holds.
//
// The layout is upstream's: /registry/<resource>/<namespace>/<name> for a
// namespaced object, /registry/<resource>/<name> for a cluster-scoped one,
// where <resource> is the plural ("deployments"), without its group. Two
// kinds that share a plural share their keys: events.k8s.io/v1 Events are
// the core Events under /registry/events/. (Upstream keeps a few resources
// under other names, such as Services under /registry/services/specs/;
// kplane has no such exceptions.) Custom resources are the one layout apart:
// /registry/<group>/<plural>/…, as upstream's apiextensions-apiserver
// stores them (CustomResource), since two CRDs may share a plural.
//
// The package has no dependencies, so ctl can use it without linking etcd.
package keys

// Root is the prefix of every object's key. Keys outside it (the
// compactors' compact_rev_key) are never objects.
const Root = "/registry/"

// Prefix is the prefix of every object of resource, or, with a namespace,
// of those in that namespace: /registry/pods/ or /registry/pods/default/.
// It ends in "/", so the prefix of namespace "ns1" does not match "ns10".
func Prefix(resource, namespace string) string {
	if namespace != "" {
		return Root + resource + "/" + namespace + "/"
	}
	return Root + resource + "/"
}

// Object is the key of one object: namespace is "" for a cluster-scoped
// resource.
func Object(resource, namespace, name string) string {
	return Prefix(resource, namespace) + name
}

// CustomResource is the <resource> segment of the keys of a custom
// resource served from a CustomResourceDefinition: "<group>/<plural>"
// (examples.kplane.dev/websites), whatever version is asked for, as
// upstream's apiextensions-apiserver lays them out.
func CustomResource(group, plural string) string {
	return group + "/" + plural
}
