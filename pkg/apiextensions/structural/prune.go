package structural

import (
	"sort"

	"kplane/pkg/api"
)

// Prune removes, in place, every field of obj that s does not specify, and
// returns the paths of the removed fields, sorted, as upstream prints them
// in "unknown field" warnings ("spec.foo", "spec.ports[0].bar", and
// "spec.routes.a.x" for a map key).
//
// What stays: the properties s names; every key of a map (an object with
// additionalProperties); everything below a node with
// x-kubernetes-preserve-unknown-fields, except that properties it does name
// are still pruned below; and apiVersion, kind and metadata at the root and
// in every embedded resource (their content is ObjectMeta's business).
func Prune(obj map[string]any, s *api.JSONSchemaProps) (pruned []string) {
	p := &pruner{}
	p.prune("", obj, asResource(s))
	sort.Strings(p.pruned)
	return p.pruned
}

// asResource is s with x-kubernetes-embedded-resource set: the root of a
// custom object is a resource, so its apiVersion, kind and metadata stay.
func asResource(s *api.JSONSchemaProps) *api.JSONSchemaProps {
	if s == nil {
		s = &api.JSONSchemaProps{}
	}
	clone := *s
	clone.XEmbeddedResource = true
	return &clone
}

// resourceMetaFields are a resource's TypeMeta and ObjectMeta fields, which
// pruning keeps in every embedded resource.
var resourceMetaFields = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// pruner collects the paths it removes.
type pruner struct {
	pruned []string
}

// prune removes what s does not specify from x. A nil s specifies nothing:
// every field of an object is removed.
func (p *pruner) prune(path string, x any, s *api.JSONSchemaProps) {
	if s != nil && preservesUnknownFields(s) {
		p.pruneKnown(path, x, s)
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if s != nil && s.XEmbeddedResource && resourceMetaFields[k] {
				continue
			}
			if s == nil {
				p.remove(path, k, x)
				continue
			}
			if prop, ok := s.Properties[k]; ok {
				p.prune(childPath(path, k), x[k], &prop)
			} else if s.AdditionalProperties != nil {
				p.prune(childPath(path, k), x[k], s.AdditionalProperties.Schema)
			} else {
				p.remove(path, k, x)
			}
		}
	case []any:
		var items *api.JSONSchemaProps
		if s != nil && s.Items != nil {
			items = s.Items.Schema
		}
		for i := range x {
			p.prune(indexPath(path, i), x[i], items)
		}
	}
}

// pruneKnown walks below a node that keeps unknown fields: the fields it
// does specify are still pruned by their own schemas.
func (p *pruner) pruneKnown(path string, x any, s *api.JSONSchemaProps) {
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if s.XEmbeddedResource && resourceMetaFields[k] {
				continue
			}
			if prop, ok := s.Properties[k]; ok {
				p.prune(childPath(path, k), x[k], &prop)
			} else if s.AdditionalProperties != nil {
				p.prune(childPath(path, k), x[k], s.AdditionalProperties.Schema)
			}
		}
	case []any:
		if s.Items == nil || s.Items.Schema == nil {
			return
		}
		for i := range x {
			p.pruneKnown(indexPath(path, i), x[i], s.Items.Schema)
		}
	}
}

// remove deletes field k of x and records its path.
func (p *pruner) remove(path, k string, x map[string]any) {
	delete(x, k)
	p.pruned = append(p.pruned, childPath(path, k))
}

// preservesUnknownFields says whether s has
// x-kubernetes-preserve-unknown-fields: true.
func preservesUnknownFields(s *api.JSONSchemaProps) bool {
	return s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
}
