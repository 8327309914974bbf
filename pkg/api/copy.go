package api

// This file holds DeepCopy. Objects handed out by an informer's cache are
// shared by every reader, so a controller that wants to change one must copy
// it first, exactly as client-go's generated DeepCopy methods are used.

import "reflect"

// DeepCopy returns a copy of obj that shares no memory with it (a nil obj
// gives a nil copy). T is a pointer type such as *Pod.
func DeepCopy[T Object](obj T) T {
	return DeepCopyValue(obj)
}

// DeepCopyValue returns a deep copy of any value built from the types in
// this package: structs, pointers, slices, maps and interfaces are copied
// recursively. Unexported fields (inside Quantity and Time) hold no shared
// mutable memory, so copying them by value is enough.
func DeepCopyValue[T any](v T) T {
	in := reflect.ValueOf(&v).Elem()
	out := reflect.New(in.Type()).Elem()
	copyValue(out, in)
	return out.Interface().(T)
}

// copyValue deep-copies in into the settable out of the same type.
func copyValue(out, in reflect.Value) {
	switch in.Kind() {
	case reflect.Pointer:
		if in.IsNil() {
			return
		}
		p := reflect.New(in.Type().Elem())
		copyValue(p.Elem(), in.Elem())
		out.Set(p)
	case reflect.Struct:
		// Copy every field (exported or not) by value first, then replace
		// the exported fields that may share memory with deep copies.
		out.Set(in)
		t := in.Type()
		for i := range in.NumField() {
			if !t.Field(i).IsExported() || !mayShareMemory(in.Field(i).Kind()) {
				continue
			}
			copyValue(out.Field(i), in.Field(i))
		}
	case reflect.Slice:
		if in.IsNil() {
			return
		}
		s := reflect.MakeSlice(in.Type(), in.Len(), in.Len())
		if mayShareMemory(in.Type().Elem().Kind()) {
			for i := range in.Len() {
				copyValue(s.Index(i), in.Index(i))
			}
		} else {
			reflect.Copy(s, in)
		}
		out.Set(s)
	case reflect.Map:
		if in.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(in.Type(), in.Len())
		elemType := in.Type().Elem()
		iter := in.MapRange()
		for iter.Next() {
			v := reflect.New(elemType).Elem()
			copyValue(v, iter.Value())
			m.SetMapIndex(iter.Key(), v)
		}
		out.Set(m)
	case reflect.Interface:
		if in.IsNil() {
			return
		}
		elem := in.Elem()
		c := reflect.New(elem.Type()).Elem()
		copyValue(c, elem)
		out.Set(c)
	case reflect.Array:
		for i := range in.Len() {
			copyValue(out.Index(i), in.Index(i))
		}
	default:
		out.Set(in)
	}
}

// mayShareMemory reports whether a value of kind k can refer to memory
// that a shallow copy would share.
func mayShareMemory(k reflect.Kind) bool {
	switch k {
	case reflect.Pointer, reflect.Struct, reflect.Slice, reflect.Map, reflect.Interface, reflect.Array:
		return true
	}
	return false
}
