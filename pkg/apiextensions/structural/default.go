package structural

import (
	"kplane/pkg/api"
)

// Default fills, in place, every absent field whose schema has a default,
// as upstream does after pruning, both when an object is written and when
// it is read from storage (so a default added to a CRD later shows up on old
// objects):
//
//   - a default applies only inside an object that exists: defaulting
//     spec.replicas needs a spec (give spec itself a default of {} to
//     always have one);
//   - a null where the schema is not nullable counts as absent: it is
//     replaced by the default, or dropped when there is none;
//   - defaults of map values and list items replace such nulls too;
//   - a default is copied, and is itself pruned by its schema first, so
//     it never brings in an unknown field.
//
// Defaults are applied top-down, so an object a default creates gets the
// defaults of its own properties too.
func Default(obj map[string]any, s *api.JSONSchemaProps) {
	if s == nil || obj == nil {
		return
	}
	dropNonNullableNulls(obj, s)
	applyDefaults(obj, s)
}

// dropNonNullableNulls removes null fields whose schema is neither
// nullable nor defaulted: JSON clients send null for "unset".
func dropNonNullableNulls(x any, s *api.JSONSchemaProps) {
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			field := fieldSchema(k, s)
			if x[k] == nil && field != nil && !field.Nullable && len(field.Default) == 0 {
				delete(x, k)
				continue
			}
			dropNonNullableNulls(x[k], field)
		}
	case []any:
		var items *api.JSONSchemaProps
		if s != nil && s.Items != nil {
			items = s.Items.Schema
		}
		for _, item := range x {
			dropNonNullableNulls(item, items)
		}
	}
}

// fieldSchema is the schema of field k of an object with schema s: its
// property, else the schema of the map's values, else nil.
func fieldSchema(k string, s *api.JSONSchemaProps) *api.JSONSchemaProps {
	if s == nil {
		return nil
	}
	if prop, ok := s.Properties[k]; ok {
		return &prop
	}
	if s.AdditionalProperties != nil {
		return s.AdditionalProperties.Schema
	}
	return nil
}

// applyDefaults is upstream's defaulting walk.
func applyDefaults(x any, s *api.JSONSchemaProps) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(s.Properties) {
			prop := s.Properties[k]
			if len(prop.Default) == 0 {
				continue
			}
			if value, found := x[k]; !found || isNonNullableNull(value, &prop) {
				if d, ok := defaultValue(&prop); ok {
					x[k] = d
				}
			}
		}
		for _, k := range sortedKeys(x) {
			if prop, ok := s.Properties[k]; ok {
				applyDefaults(x[k], &prop)
			} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
				values := s.AdditionalProperties.Schema
				if isNonNullableNull(x[k], values) {
					if d, ok := defaultValue(values); ok {
						x[k] = d
					}
				}
				applyDefaults(x[k], values)
			}
		}
	case []any:
		if s.Items == nil || s.Items.Schema == nil {
			return
		}
		items := s.Items.Schema
		for i := range x {
			if isNonNullableNull(x[i], items) {
				if d, ok := defaultValue(items); ok {
					x[i] = d
				}
			}
			applyDefaults(x[i], items)
		}
	}
}

// isNonNullableNull says whether x is a null that s does not allow.
func isNonNullableNull(x any, s *api.JSONSchemaProps) bool {
	return x == nil && s != nil && !s.Nullable
}

// defaultValue is a fresh copy of s's default, pruned by s (keeping
// apiVersion, kind and metadata if s is an embedded resource), or false
// when s has none (or it is not JSON, which ValidateCRDSchema refuses).
func defaultValue(s *api.JSONSchemaProps) (any, bool) {
	if len(s.Default) == 0 {
		return nil, false
	}
	d, err := decodeJSON(s.Default)
	if err != nil {
		return nil, false
	}
	pruneValue(d, s)
	return d, true
}

// pruneValue prunes a value (not necessarily an object) by its schema, the
// way upstream prunes defaults: as a resource only if s is an embedded one.
func pruneValue(x any, s *api.JSONSchemaProps) []string {
	p := &pruner{}
	p.prune("", x, s)
	return p.pruned
}
