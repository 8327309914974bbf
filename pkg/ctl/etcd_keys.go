package ctl

import (
	"context"
	"fmt"
	"strings"

	"kplane/pkg/restmapper"
	"kplane/pkg/store/keys"
)

// What a `ctl etcd` argument names, in one place:
//
//	/registry/configmaps/default/app   a key (or, for ls, a prefix), as it is
//	configmap/app, cm/app              that object's key, in -n's namespace
//	configmaps, deployments.apps       (ls only) the prefix of that resource,
//	                                   in -n's namespace, or all with -A
//
// The kind is resolved by discovery, as every other verb does, and the key
// is laid out by package keys, as the apiserver lays it out: a custom
// resource (one a CustomResourceDefinition serves) under its group too,
// /registry/examples.kplane.dev/websites/default/hello.

// etcdArgs resolves `ctl etcd` arguments; it reads discovery only when an
// argument names a kind.
type etcdArgs struct {
	mapper func(context.Context) (*restmapper.Mapper, error)
	// isCustom reports whether a CustomResourceDefinition serves r
	// (discovery does not say); nil answers no.
	isCustom      func(ctx context.Context, r restmapper.APIResource) (bool, error)
	namespace     string
	allNamespaces bool
}

// key is the etcd key arg names: a literal key or TYPE/NAME.
func (a etcdArgs) key(ctx context.Context, arg string) (string, error) {
	if strings.HasPrefix(arg, "/") {
		return arg, nil
	}
	typ, name, ok := strings.Cut(arg, "/")
	if !ok || typ == "" || name == "" || strings.Contains(name, "/") {
		return "", fmt.Errorf("%q names no object: give TYPE/NAME (configmap/app) or an etcd key (/registry/configmaps/default/app)", arg)
	}
	r, err := a.resource(ctx, typ)
	if err != nil {
		return "", err
	}
	segment, err := a.segment(ctx, r)
	if err != nil {
		return "", err
	}
	return keys.Object(segment, a.namespaceOf(r), name), nil
}

// prefix is the prefix `ctl etcd ls` lists for arg: a literal prefix, a
// resource's (in the namespace, or every namespace with -A), or the single
// key of TYPE/NAME. No argument means every object, /registry/.
func (a etcdArgs) prefix(ctx context.Context, arg string) (string, error) {
	switch {
	case arg == "":
		return keys.Root, nil
	case strings.HasPrefix(arg, "/"):
		return arg, nil
	case strings.Contains(arg, "/"):
		return a.key(ctx, arg)
	}
	r, err := a.resource(ctx, arg)
	if err != nil {
		return "", err
	}
	segment, err := a.segment(ctx, r)
	if err != nil {
		return "", err
	}
	if a.allNamespaces {
		return keys.Prefix(segment, ""), nil
	}
	return keys.Prefix(segment, a.namespaceOf(r)), nil
}

// resource resolves a type name through discovery.
func (a etcdArgs) resource(ctx context.Context, typ string) (restmapper.APIResource, error) {
	m, err := a.mapper(ctx)
	if err != nil {
		return restmapper.APIResource{}, err
	}
	return m.ResourceFor(typ)
}

// segment is r's part of its keys: the plural for a built-in resource,
// group/plural for a custom one.
func (a etcdArgs) segment(ctx context.Context, r restmapper.APIResource) (string, error) {
	if r.Group == "" || a.isCustom == nil {
		return r.Name, nil // the core group has no CRDs
	}
	custom, err := a.isCustom(ctx, r)
	if err != nil {
		return "", err
	}
	if custom {
		return keys.CustomResource(r.Group, r.Name), nil
	}
	return r.Name, nil
}

// namespaceOf is the namespace part of r's keys: none for a
// cluster-scoped resource.
func (a etcdArgs) namespaceOf(r restmapper.APIResource) string {
	if !r.Namespaced {
		return ""
	}
	return a.namespace
}
