package validation

import (
	"reflect"
	"time"
)

// semanticEqual is the equality immutability checks need, as upstream's
// equality.Semantic: like reflect.DeepEqual, except that a nil slice or map
// equals an empty one (JSON cannot tell them apart), times are equal when they
// name the same instant whatever their location, and any type with a method
// `Cmp(T) int` (resource quantities: "1Gi" equals "1024Mi") is compared by it.
func semanticEqual(a, b any) bool {
	return deepEqual(reflect.ValueOf(a), reflect.ValueOf(b))
}

var timeType = reflect.TypeOf(time.Time{})

func deepEqual(a, b reflect.Value) bool {
	if !a.IsValid() || !b.IsValid() {
		return a.IsValid() == b.IsValid()
	}
	if a.Type() != b.Type() {
		return false
	}
	if a.Type() == timeType && a.CanInterface() && b.CanInterface() {
		return a.Interface().(time.Time).Equal(b.Interface().(time.Time))
	}
	if cmp, ok := cmpMethod(a); ok && b.CanInterface() {
		return cmp.Call([]reflect.Value{b})[0].Int() == 0
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return deepEqual(a.Elem(), b.Elem())
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !deepEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		iter := a.MapRange()
		for iter.Next() {
			other := b.MapIndex(iter.Key())
			if !other.IsValid() || !deepEqual(iter.Value(), other) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !deepEqual(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	case reflect.Complex64, reflect.Complex128:
		return a.Complex() == b.Complex()
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return a.Pointer() == b.Pointer()
	}
	return false
}

// cmpMethod finds a usable `Cmp(T) int` method on v (of type T).
func cmpMethod(v reflect.Value) (reflect.Value, bool) {
	if !v.CanInterface() {
		return reflect.Value{}, false
	}
	m := v.MethodByName("Cmp")
	if !m.IsValid() {
		return reflect.Value{}, false
	}
	t := m.Type()
	if t.NumIn() != 1 || t.In(0) != v.Type() || t.NumOut() != 1 || t.Out(0).Kind() != reflect.Int {
		return reflect.Value{}, false
	}
	return m, true
}
