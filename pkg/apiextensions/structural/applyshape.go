package structural

import (
	"kplane/pkg/api"
	"kplane/pkg/api/fieldmanager"
)

// ApplyShape is the server-side apply shape of a custom object with the
// schema s: lists merge as their x-kubernetes-list-type says (atomic when
// unset, as upstream's CRD schemas default) keyed by
// x-kubernetes-list-map-keys, objects as x-kubernetes-map-type says
// (granular when unset), and the root's metadata as ObjectMeta.
func ApplyShape(s *api.JSONSchemaProps) fieldmanager.Shape {
	return fieldmanager.ObjectShape(schemaShape{s})
}

// schemaShape answers fieldmanager.Shape from one schema node; a nil node
// is a field the schema does not describe (under
// x-kubernetes-preserve-unknown-fields), whose shape is deduced.
type schemaShape struct{ s *api.JSONSchemaProps }

func (n schemaShape) Field(name string) fieldmanager.Shape {
	if n.s == nil {
		return nil
	}
	if prop, ok := n.s.Properties[name]; ok {
		return schemaShape{&prop}
	}
	if n.s.AdditionalProperties != nil && n.s.AdditionalProperties.Schema != nil {
		return schemaShape{n.s.AdditionalProperties.Schema}
	}
	return nil
}

func (n schemaShape) Items() fieldmanager.Shape {
	if n.s == nil || n.s.Items == nil || n.s.Items.Schema == nil {
		return nil
	}
	return schemaShape{n.s.Items.Schema}
}

func (n schemaShape) ListType() string {
	if n.s == nil || n.s.XListType == nil {
		return fieldmanager.ListAtomic
	}
	return *n.s.XListType
}

func (n schemaShape) ListMapKeys() []string {
	if n.s == nil {
		return nil
	}
	return n.s.XListMapKeys
}

func (n schemaShape) Atomic() bool {
	return n.s != nil && n.s.XMapType != nil && *n.s.XMapType == "atomic"
}
