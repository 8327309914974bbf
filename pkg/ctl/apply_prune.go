package ctl

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/ctl/printers"
	"kplane/pkg/restmapper"
)

// `ctl apply --prune` deletes what a set of files no longer contains: the
// objects of the same label selection (-l, or --all) that an earlier apply
// created — they carry the last-applied annotation — but that are not among
// the objects just applied. kubectl calls this the allowlist prune; it only
// looks at the kinds of its allowlist, in the namespaces the files used
// (and cluster-wide for cluster-scoped kinds).

// defaultPruneAllowlist is kubectl 1.32's list of the kinds --prune looks
// at unless --prune-allowlist names others.
var defaultPruneAllowlist = []string{
	"core/v1/ConfigMap", "core/v1/Endpoints", "core/v1/Namespace",
	"core/v1/PersistentVolumeClaim", "core/v1/PersistentVolume", "core/v1/Pod",
	"core/v1/ReplicationController", "core/v1/Secret", "core/v1/Service",
	"batch/v1/Job", "batch/v1/CronJob", "networking.k8s.io/v1/Ingress",
	"apps/v1/DaemonSet", "apps/v1/Deployment", "apps/v1/ReplicaSet", "apps/v1/StatefulSet",
}

// pruneKey identifies an object apply visited.
type pruneKey struct{ groupResource, namespace, name string }

// pruner remembers what an apply visited and deletes the rest.
type pruner struct {
	f         *factory
	selector  string
	dryRun    dryRunStrategy
	resources []restmapper.APIResource
	visited   map[pruneKey]bool
	// namespaces are those the applied objects live in, in order.
	namespaces []string
}

// newPruner resolves the allowlist (group/version/kind, "core" for the
// core group); an entry the server does not serve is an error, as in
// kubectl.
func newPruner(m *restmapper.Mapper, allowlist []string, selector string, dryRun dryRunStrategy, f *factory) (*pruner, error) {
	if len(allowlist) == 0 {
		allowlist = defaultPruneAllowlist
	}
	p := &pruner{f: f, selector: selector, dryRun: dryRun, visited: map[pruneKey]bool{}}
	var namespaced, clusterScoped []restmapper.APIResource
	for _, entry := range allowlist {
		parts := strings.Split(entry, "/")
		if len(parts) != 3 {
			return nil, fmt.Errorf("invalid GroupVersionKind format: %s, please follow <group/version/kind>", entry)
		}
		group := parts[0]
		if group == "core" {
			group = ""
		}
		apiVersion := parts[1]
		if group != "" {
			apiVersion = group + "/" + parts[1]
		}
		r, err := m.KindFor(apiVersion, parts[2])
		if err != nil {
			return nil, err
		}
		if r.Namespaced {
			namespaced = append(namespaced, r)
		} else {
			clusterScoped = append(clusterScoped, r)
		}
	}
	// kubectl prunes the namespaced kinds first.
	p.resources = append(namespaced, clusterScoped...)
	return p, nil
}

// visit records an applied object.
func (p *pruner) visit(obj fileObject) {
	p.visited[pruneKey{obj.resource.GroupResource(), obj.namespace, obj.name}] = true
	if obj.namespace != "" && !slices.Contains(p.namespaces, obj.namespace) {
		p.namespaces = append(p.namespaces, obj.namespace)
	}
}

// prune deletes the objects of the selection that apply did not visit and
// prints "<kind>/<name> pruned" for each.
func (p *pruner) prune(ctx context.Context) error {
	c, err := p.f.Client()
	if err != nil {
		return err
	}
	propagation := api.DeletePropagationBackground
	opts := client.DeleteOptions{PropagationPolicy: &propagation}
	if p.dryRun == "server" {
		opts.DryRun = []string{api.DryRunAll}
	}
	for _, r := range p.resources {
		namespaces := p.namespaces
		if !r.Namespaced {
			namespaces = []string{""}
		}
		for _, ns := range namespaces {
			list, err := c.Dynamic(r.Client()).Namespace(ns).List(ctx, client.ListOptions{LabelSelector: p.selector})
			if err != nil {
				return err
			}
			for _, item := range list.Items {
				name := nameOf(item)
				if metadataAnnotation(item, lastAppliedAnnotation) == "" || p.visited[pruneKey{r.GroupResource(), ns, name}] {
					continue
				}
				if p.dryRun != "client" {
					err := c.Dynamic(r.Client()).Namespace(ns).Delete(ctx, name, opts)
					if err != nil && !apierrors.IsNotFound(err) {
						return err
					}
				}
				fmt.Fprintf(p.f.out(), "%s pruned%s\n", printers.ObjectName(r.KindName(), name), p.dryRun.suffix())
			}
		}
	}
	return nil
}
