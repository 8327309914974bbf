package structural

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// Validate checks obj (a whole custom object as a JSON map: numbers int64 or
// float64) against s, as the apiserver does on create and update: the
// OpenAPI value validations first, then the apiVersion, kind and metadata of
// every embedded resource, then the uniqueness of list-type set and map
// items. Every failure is reported, not just the first. The root's own
// metadata is the apiserver's to check, as upstream.
func Validate(s *api.JSONSchemaProps, obj map[string]any) apierrors.FieldErrorList {
	if s == nil {
		return nil
	}
	v := &validator{}
	var errs apierrors.FieldErrorList
	errs = append(errs, v.node("", s, obj).errs...)
	errs = append(errs, validateEmbeddedResources("", s, obj)...)
	errs = append(errs, validateListSetsAndMaps("", s, obj)...)
	return errs
}

// validator walks a value and its schema the way kube-openapi's
// SchemaValidator does. root is the field path the whole value sits at: ""
// for a custom object, "...default" when ValidateCRDSchema checks a default.
type validator struct {
	root string
}

// errPath turns kube-openapi's name of a value (".spec.replicas",
// "spec.ports[0]") into the field path of the error.
func (v *validator) errPath(name string) string {
	name = strings.TrimPrefix(name, ".")
	if name == "" {
		return rootOr(v.root)
	}
	return childPath(v.root, name)
}

// result is what validating one value gives: its errors, and how many checks
// applied on the way, which kube-openapi uses to pick the alternative of an
// anyOf or oneOf whose errors to report (the one that got furthest).
type result struct {
	errs    apierrors.FieldErrorList
	matches int
}

func (r *result) merge(o result) {
	r.errs = append(r.errs, o.errs...)
	r.matches += o.matches
}

func (r *result) add(errs ...*apierrors.FieldError) {
	r.errs = append(r.errs, errs...)
}

// node validates data against s, running kube-openapi's validators in its
// order: type, allOf/anyOf/oneOf/not, string, format, number, array, enum,
// object. Each applies by the kind of data at hand, not by the schema's type.
func (v *validator) node(name string, s *api.JSONSchemaProps, data any) result {
	var r result
	if s == nil {
		return r
	}
	types := schemaTypes(s)
	format := effectiveFormat(s, types)
	if data == nil {
		r.add(v.nullType(name, s, types)...)
		r.add(v.enum(name, s, data)...)
		return r
	}
	if len(types) > 0 || format != "" {
		r.add(v.typeCheck(name, types, format, data)...)
		r.matches++
	}
	r.merge(v.junctors(name, s, data))
	r.matches++
	switch data := data.(type) {
	case string:
		r.add(v.stringChecks(name, s, data)...)
		r.matches++
		if format != "" && knownFormat(format) {
			if !checkFormat(format, data) {
				r.add(v.formatMismatch(name, s.Format, data))
			}
			r.matches++
		}
	case int64, float64, int, int32, float32:
		r.add(v.numberChecks(name, s, data)...)
		r.matches++
	case []any:
		r.merge(v.array(name, s, data))
		r.matches++
	}
	r.add(v.enum(name, s, data)...)
	r.matches++
	if obj, ok := data.(map[string]any); ok {
		r.merge(v.object(name, s, obj))
		r.matches++
	}
	r.matches++
	return r
}

// schemaTypes is the list of JSON types s allows: x-kubernetes-int-or-string
// stands for integer and string.
func schemaTypes(s *api.JSONSchemaProps) []string {
	if s.XIntOrString {
		return []string{"integer", "string"}
	}
	if s.Type != "" {
		return []string{s.Type}
	}
	return nil
}

// jsonType is the JSON type of a value and, for numbers, the format Go's
// representation implies.
func jsonType(data any) (typ, format string) {
	switch data.(type) {
	case bool:
		return "boolean", ""
	case string:
		return "string", ""
	case int32:
		return "integer", "int32"
	case int64, int:
		return "integer", "int64"
	case float32:
		return "number", "float"
	case float64:
		return "number", "double"
	case []any:
		return "array", ""
	case map[string]any:
		return "object", ""
	}
	return "", ""
}

// nullType refuses null unless s is nullable or untyped.
func (v *validator) nullType(name string, s *api.JSONSchemaProps, types []string) apierrors.FieldErrorList {
	if len(types) > 0 && !slices.Contains(types, "null") && !s.Nullable {
		return apierrors.FieldErrorList{v.typeMismatch(name, strings.Join(types, ","), "null")}
	}
	return nil
}

// typeCheck is kube-openapi's type validator: an integral number passes
// as an integer, any integer as a number, and a string-like format on a
// non-numeric type skips the type check for strings and arrays.
func (v *validator) typeCheck(name string, types []string, format string, data any) apierrors.FieldErrorList {
	typ, dataFormat := jsonType(data)
	f, _ := asFloat(data)
	isFloatInt := typ == "number" && isJSONInteger(f) && slices.Contains(types, "integer")
	isIntFloat := typ == "integer" && slices.Contains(types, "number")
	isLowerInt := format == "int64" && dataFormat == "int32"
	isLowerFloat := format == "double" && dataFormat == "float"
	stringOrArray := typ == "string" || typ == "array"
	numeric := slices.Contains(types, "number") || slices.Contains(types, "integer")

	if !stringOrArray && format != "" &&
		!(slices.Contains(types, typ) || dataFormat == format || isFloatInt || isIntFloat || isLowerInt || isLowerFloat) {
		return apierrors.FieldErrorList{v.typeMismatch(name, format, dataFormat)}
	}
	if !numeric && format != "" && stringOrArray {
		return nil
	}
	if !(slices.Contains(types, typ) || isFloatInt || isIntFloat) {
		return apierrors.FieldErrorList{v.typeMismatch(name, strings.Join(types, ","), typ)}
	}
	return nil
}

// stringChecks are maxLength, minLength and pattern; like kube-openapi it
// reports only the first that fails. Lengths count characters, not bytes.
func (v *validator) stringChecks(name string, s *api.JSONSchemaProps, data string) apierrors.FieldErrorList {
	length := int64(utf8.RuneCountInString(data))
	if s.MaxLength != nil && length > *s.MaxLength {
		return apierrors.FieldErrorList{v.tooLong(name, *s.MaxLength)}
	}
	if s.MinLength != nil && length < *s.MinLength {
		return apierrors.FieldErrorList{v.invalid(name, data, "%s in %s should be at least %d chars long", name, in, *s.MinLength)}
	}
	if s.Pattern != "" {
		if re := compilePattern(s.Pattern); re != nil && !re.MatchString(data) {
			return apierrors.FieldErrorList{v.invalid(name, data, "%s in %s should match '%s'", name, in, s.Pattern)}
		}
	}
	return nil
}

// patterns caches compiled patterns: a schema is checked against many objects.
var patterns sync.Map // pattern string -> *regexp.Regexp (nil when invalid)

// compilePattern compiles a schema pattern once; an invalid one (which
// ValidateCRDSchema refuses) matches everything.
func compilePattern(pattern string) *regexp.Regexp {
	if re, ok := patterns.Load(pattern); ok {
		return re.(*regexp.Regexp)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		re = nil
	}
	patterns.Store(pattern, re)
	return re
}

// enum checks that data equals one of s's enum values.
func (v *validator) enum(name string, s *api.JSONSchemaProps, data any) apierrors.FieldErrorList {
	if len(s.Enum) == 0 {
		return nil
	}
	values := make([]any, 0, len(s.Enum))
	for _, raw := range s.Enum {
		e, err := decodeJSON(raw)
		if err != nil {
			continue
		}
		if jsonEqual(data, e) {
			return nil
		}
		values = append(values, e)
	}
	return apierrors.FieldErrorList{v.notSupported(name, data, values)}
}

// array validates the items, then minItems, maxItems and uniqueItems.
func (v *validator) array(name string, s *api.JSONSchemaProps, data []any) result {
	var r result
	if s.Items != nil && s.Items.Schema != nil {
		for i, item := range data {
			r.merge(v.node(indexPath(name, i), s.Items.Schema, item))
		}
	}
	size := int64(len(data))
	if s.MinItems != nil && size < *s.MinItems {
		r.add(v.invalid(name, size, "%s in %s should have at least %d items", name, in, *s.MinItems))
	}
	if s.MaxItems != nil && size > *s.MaxItems {
		r.add(v.tooMany(name, size, *s.MaxItems))
	}
	if s.UniqueItems && hasDuplicates(data) {
		r.add(v.invalid(name, nil, "%s in %s shouldn't contain duplicates", name, in))
	}
	return r
}

// hasDuplicates says whether two items of a list are equal.
func hasDuplicates(items []any) bool {
	for i := range items {
		for j := i + 1; j < len(items); j++ {
			if jsonEqual(items[i], items[j]) {
				return true
			}
		}
	}
	return false
}

// object checks min/maxProperties (a failure there ends the object's
// checks, as in kube-openapi), additionalProperties, each property, and
// required.
func (v *validator) object(name string, s *api.JSONSchemaProps, data map[string]any) result {
	var r result
	count := int64(len(data))
	if s.MinProperties != nil && count < *s.MinProperties {
		r.add(v.invalid(name, count, "%s in %s should have at least %d properties", name, in, *s.MinProperties))
		return r
	}
	if s.MaxProperties != nil && count > *s.MaxProperties {
		r.add(v.tooMany(name, count, *s.MaxProperties))
		return r
	}
	keys := sortedKeys(data)
	if ap := s.AdditionalProperties; ap != nil && !ap.Allows && ap.Schema == nil {
		for _, k := range keys {
			if _, known := s.Properties[k]; !known {
				r.add(v.invalid(name, k, "%s.%s in %s is a forbidden property", name, k, in))
			}
		}
	} else if ap != nil && ap.Schema != nil {
		for _, k := range keys {
			if _, known := s.Properties[k]; !known {
				r.merge(v.node(name+"."+k, ap.Schema, data[k]))
			}
		}
	}
	for _, k := range sortedKeys(s.Properties) {
		if value, found := data[k]; found {
			prop := s.Properties[k]
			r.merge(v.node(childPath(name, k), &prop, value))
		}
	}
	for _, k := range s.Required {
		if _, found := data[k]; !found {
			r.add(v.required(name + "." + k))
		}
	}
	return r
}

// sortedKeys lists a map's keys in order, so errors come out in a stable
// order (kube-openapi follows Go's random map order).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
