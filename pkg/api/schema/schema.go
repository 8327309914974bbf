// Package schema describes the JSON shape of kplane's Go API types: which
// fields an object has under which JSON names, what each field holds, and
// the strategic-merge-patch hints (patchStrategy, patchMergeKey) that
// Kubernetes keeps in struct tags.
//
// Three parts of the apiserver read the same description instead of each
// walking struct tags on its own: the body decoder (to find unknown fields),
// the strategic merge patch (to know which lists merge by which key) and the
// OpenAPI generator (to publish schemas for kubectl). Upstream Kubernetes
// does the same job twice, once by reflection in
// apimachinery/third_party/forked/golang/json (LookupPatchMetadata) and once
// from generated OpenAPI; kplane has only the reflective one.
//
// The rules follow encoding/json, because that is what actually reads and
// writes the objects: embedded structs without a JSON name (or with
// `json:",inline"`) lend their fields to the outer object, `json:"-"` hides
// a field, and any type that encodes itself (json.Marshaler or
// json.Unmarshaler, such as api.Time, api.Quantity or api.IntOrString) is a
// Leaf whose inside is none of the schema's business.
package schema

import (
	"reflect"
	"strings"
	"sync"
)

// Kind says which of the four JSON shapes a type has.
type Kind int

const (
	// Leaf is a value the schema does not look into: a string, number or
	// bool, a []byte (base64 in JSON), an interface such as `any`, or a type
	// with its own JSON encoding (api.Time, api.Quantity, json.RawMessage).
	Leaf Kind = iota
	// Object is a Go struct: a JSON object with a fixed set of fields.
	Object
	// Map is a Go map: a JSON object whose keys are data (labels,
	// annotations, ConfigMap data), all values of one type.
	Map
	// List is a Go slice or array: a JSON array of one element type.
	List
)

// String returns the kind's name, for messages and tests.
func (k Kind) String() string {
	switch k {
	case Object:
		return "Object"
	case Map:
		return "Map"
	case List:
		return "List"
	default:
		return "Leaf"
	}
}

// Patch strategies a field can carry in its `patchStrategy` tag. A tag may
// combine them with a comma, e.g. "merge,retainKeys" (upstream's
// Volume sources and Deployment strategy use retainKeys).
const (
	// StrategyMerge merges a list element by element (by patchMergeKey for
	// lists of objects, as a set for lists of primitives) instead of
	// replacing the list.
	StrategyMerge = "merge"
	// StrategyReplace replaces a map or list wholesale, never merging it.
	StrategyReplace = "replace"
	// StrategyRetainKeys lets a patch carry a $retainKeys list that clears
	// every field of the object not named in it (used for unions, where
	// switching from one member to another must drop the old one).
	StrategyRetainKeys = "retainKeys"
)

// Type is the JSON shape of one Go type. Types are shared and immutable once
// returned by Of; never modify one.
type Type struct {
	// Kind is the JSON shape.
	Kind Kind
	// Go is the Go type described, with pointers removed (a *PodSpec field
	// and a PodSpec field both describe PodSpec).
	Go reflect.Type
	// Fields lists an Object's fields in declaration order, with the fields
	// of inlined embedded structs in the place of the embedding. Nil for
	// other kinds.
	Fields []*Field
	// Elem is the element type of a List or the value type of a Map.
	Elem *Type

	// byName indexes Fields by JSON name; JSON names are case-sensitive,
	// as in Kubernetes (unlike encoding/json's lenient matching).
	byName map[string]*Field
}

// Field returns the Object field with JSON name name, or nil if the type has
// no such field (or is not an Object). The match is case-sensitive.
func (t *Type) Field(name string) *Field {
	if t == nil {
		return nil
	}
	return t.byName[name]
}

// Field is one field of an Object.
type Field struct {
	// Name is the JSON name, e.g. "containerPort".
	Name string
	// GoName is the Go field name, e.g. "ContainerPort", for messages.
	GoName string
	// Type is the field's JSON shape.
	Type *Type
	// OmitEmpty is true when the field is tagged omitempty, i.e. optional in
	// Kubernetes' API conventions.
	OmitEmpty bool
	// PatchStrategy is the raw patchStrategy tag, e.g. "merge" or
	// "merge,retainKeys"; empty when the field has none.
	PatchStrategy string
	// PatchMergeKey is the patchMergeKey tag: the field of a list element
	// that identifies it when a strategic merge patch merges the list, e.g.
	// "name" for containers and "containerPort" for ports.
	PatchMergeKey string
	// Index is the reflect index sequence of the Go field (longer than one
	// for fields promoted from embedded structs). Use it with
	// reflect.Value.FieldByIndexErr: a nil embedded pointer on the way makes
	// FieldByIndex panic.
	Index []int
}

// HasPatchStrategy reports whether the field's patchStrategy tag contains
// strategy (StrategyMerge, StrategyReplace or StrategyRetainKeys).
func (f *Field) HasPatchStrategy(strategy string) bool {
	if f == nil {
		return false
	}
	for s := range strings.SplitSeq(f.PatchStrategy, ",") {
		if strings.TrimSpace(s) == strategy {
			return true
		}
	}
	return false
}

// cache holds every Type built so far, keyed by reflect.Type. Readers hit it
// without locking; builders hold buildMu so that a type graph is built once
// and published only when complete (a recursive type points to itself, so
// half-built Types must never be visible to other goroutines).
var (
	cache   sync.Map // reflect.Type → *Type
	buildMu sync.Mutex
)

// Of returns the JSON shape of t (pointers are looked through). Results are
// cached, so calling Of on every request is cheap; Of is safe for concurrent
// use.
func Of(t reflect.Type) *Type {
	if t == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if cached, ok := cache.Load(t); ok {
		return cached.(*Type)
	}

	buildMu.Lock()
	defer buildMu.Unlock()
	if cached, ok := cache.Load(t); ok {
		return cached.(*Type)
	}
	b := &builder{built: map[reflect.Type]*Type{}}
	result := b.typeOf(t)
	for goType, described := range b.built {
		cache.Store(goType, described)
	}
	return result
}
