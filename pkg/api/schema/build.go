package schema

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

var (
	jsonMarshalerType   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// builder turns one Go type graph into Types. It registers each Type in
// built before describing its fields, so a type that contains itself
// (through a pointer or slice) ends in a cycle instead of endless recursion.
type builder struct {
	built map[reflect.Type]*Type
}

func (b *builder) typeOf(t reflect.Type) *Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if described, ok := b.built[t]; ok {
		return described
	}
	if cached, ok := cache.Load(t); ok {
		return cached.(*Type)
	}

	described := &Type{Kind: kindOf(t), Go: t}
	b.built[t] = described
	switch described.Kind {
	case Object:
		described.Fields = b.fieldsOf(t)
		described.byName = make(map[string]*Field, len(described.Fields))
		for _, f := range described.Fields {
			described.byName[f.Name] = f
		}
	case Map, List:
		described.Elem = b.typeOf(t.Elem())
	}
	return described
}

// kindOf classifies t (never a pointer) the way encoding/json treats it.
func kindOf(t reflect.Type) Kind {
	if encodesItself(t) {
		return Leaf
	}
	switch t.Kind() {
	case reflect.Struct:
		return Object
	case reflect.Map:
		return Map
	case reflect.Slice:
		// encoding/json writes []byte as a base64 string.
		if t.Elem().Kind() == reflect.Uint8 && !encodesItself(t.Elem()) {
			return Leaf
		}
		return List
	case reflect.Array:
		return List
	default:
		return Leaf
	}
}

// encodesItself reports whether t (or *t, since JSON decoding uses pointer
// methods) has its own JSON or text encoding.
func encodesItself(t reflect.Type) bool {
	for _, candidate := range []reflect.Type{t, reflect.PointerTo(t)} {
		if candidate.Implements(jsonMarshalerType) || candidate.Implements(jsonUnmarshalerType) ||
			candidate.Implements(textMarshalerType) || candidate.Implements(textUnmarshalerType) {
			return true
		}
	}
	return false
}

// candidate is a field found while walking a struct and its embedded
// structs, before encoding/json's rules pick one field per JSON name.
type candidate struct {
	field  *Field
	goType reflect.Type
	depth  int  // how many embedded structs deep the field sits
	tagged bool // whether the JSON name came from a tag
}

// fieldsOf lists the JSON fields of struct type t with encoding/json's
// rules: embedded structs without a JSON name are walked breadth first, a
// shallower field hides a deeper one of the same name, at equal depth a
// tagged field wins, and a remaining tie hides the name altogether.
func (b *builder) fieldsOf(t reflect.Type) []*Field {
	type embedded struct {
		typ   reflect.Type
		index []int
	}
	var candidates []candidate
	visited := map[reflect.Type]bool{}
	level := []embedded{{typ: t}}
	for depth := 0; len(level) > 0; depth++ {
		var next []embedded
		for _, e := range level {
			if visited[e.typ] {
				continue
			}
			visited[e.typ] = true
			for i := range e.typ.NumField() {
				sf := e.typ.Field(i)
				fieldType := sf.Type
				if fieldType.Kind() == reflect.Pointer {
					fieldType = fieldType.Elem()
				}
				if sf.Anonymous {
					if !sf.IsExported() && fieldType.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, options, _ := strings.Cut(tag, ",")
				index := append(slices.Clone(e.index), i)
				if name == "" && sf.Anonymous && fieldType.Kind() == reflect.Struct {
					// An embedded struct without a JSON name (`json:",inline"`
					// is the Kubernetes spelling) lends its fields to t.
					next = append(next, embedded{typ: fieldType, index: index})
					continue
				}
				tagged := name != ""
				if !tagged {
					name = sf.Name
				}
				candidates = append(candidates, candidate{
					field: &Field{
						Name:          name,
						GoName:        sf.Name,
						OmitEmpty:     hasOption(options, "omitempty"),
						PatchStrategy: sf.Tag.Get("patchStrategy"),
						PatchMergeKey: sf.Tag.Get("patchMergeKey"),
						Index:         index,
					},
					goType: sf.Type,
					depth:  depth,
					tagged: tagged,
				})
			}
		}
		level = next
	}

	var fields []*Field
	byName := map[string][]candidate{}
	var names []string
	for _, c := range candidates {
		if _, seen := byName[c.field.Name]; !seen {
			names = append(names, c.field.Name)
		}
		byName[c.field.Name] = append(byName[c.field.Name], c)
	}
	for _, name := range names {
		winner, ok := dominant(byName[name])
		if !ok {
			continue
		}
		winner.field.Type = b.typeOf(winner.goType)
		fields = append(fields, winner.field)
	}
	// Declaration order, as encoding/json writes them: promoted fields sit
	// where their embedded struct is declared.
	slices.SortFunc(fields, func(a, c *Field) int { return slices.Compare(a.Index, c.Index) })
	return fields
}

// dominant picks the field that encoding/json uses among fields sharing a
// JSON name, or reports that the name is ambiguous and therefore hidden.
func dominant(cs []candidate) (candidate, bool) {
	shallowest := cs[0].depth
	for _, c := range cs {
		shallowest = min(shallowest, c.depth)
	}
	var atDepth, tagged []candidate
	for _, c := range cs {
		if c.depth == shallowest {
			atDepth = append(atDepth, c)
			if c.tagged {
				tagged = append(tagged, c)
			}
		}
	}
	switch {
	case len(atDepth) == 1:
		return atDepth[0], true
	case len(tagged) == 1:
		return tagged[0], true
	default:
		return candidate{}, false
	}
}

// hasOption reports whether a json tag's comma-separated options include option.
func hasOption(options, option string) bool {
	for o := range strings.SplitSeq(options, ",") {
		if o == option {
			return true
		}
	}
	return false
}
