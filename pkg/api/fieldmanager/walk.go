package fieldmanager

import (
	"bytes"
	"encoding/json"
)

// childPath is path with one more element, never sharing path's array.
func childPath(path Path, element string) Path {
	return append(path[:len(path):len(path)], element)
}

// FieldSet is the set of fields a value sets (upstream's ToFieldSet): every
// scalar, atomic list and atomic object; every item of a set or keyed list
// (and its fields); every null or empty object.
func FieldSet(value any, s Shape) *Set {
	out := &Set{}
	collectFields(value, s, nil, out)
	return out
}

func collectFields(value any, s Shape, path Path, out *Set) {
	switch v := value.(type) {
	case map[string]any:
		if atomicObject(s) {
			out.Insert(path)
			return
		}
		if len(v) == 0 && len(path) > 0 {
			out.Insert(path)
		}
		for name, child := range v {
			collectFields(child, fieldShape(s, name), childPath(path, field(name)), out)
		}
	case []any:
		if listType(s) == ListAtomic {
			out.Insert(path)
			return
		}
		for _, item := range v {
			element, ok := itemElement(s, item)
			if !ok {
				continue
			}
			itemPath := childPath(path, element)
			out.Insert(itemPath)
			collectFields(item, itemShape(s), itemPath, out)
		}
	default:
		out.Insert(path)
	}
}

// Merge merges config into live (upstream's TypedValue.Merge): objects
// field by field, sets and keyed lists item by item (live's items keep
// their order, new items follow in config's order), everything else
// replaced by config. Neither argument is modified.
func Merge(live, config any, s Shape) any {
	switch c := config.(type) {
	case map[string]any:
		l, ok := live.(map[string]any)
		if !ok || atomicObject(s) {
			return config
		}
		out := make(map[string]any, len(l)+len(c))
		for k, v := range l {
			out[k] = v
		}
		for k, v := range c {
			out[k] = Merge(l[k], v, fieldShape(s, k))
		}
		return out
	case []any:
		l, ok := live.([]any)
		if !ok || listType(s) == ListAtomic {
			return config
		}
		configItems := map[string]any{}
		var order []string
		for _, item := range c {
			if element, ok := itemElement(s, item); ok {
				if _, seen := configItems[element]; !seen {
					order = append(order, element)
				}
				configItems[element] = item
			}
		}
		out := make([]any, 0, len(l)+len(c))
		merged := map[string]bool{}
		for _, item := range l {
			element, ok := itemElement(s, item)
			if applied, found := configItems[element]; ok && found {
				out = append(out, Merge(item, applied, itemShape(s)))
				merged[element] = true
				continue
			}
			out = append(out, item)
		}
		for _, element := range order {
			if !merged[element] {
				out = append(out, configItems[element])
			}
		}
		return out
	}
	return config
}

// Remove deletes the node at path from value (an object's field, a
// list's item) and returns the result; value's own maps and lists are
// changed.
func Remove(value any, path Path, s Shape) any {
	if len(path) == 0 {
		return value
	}
	element, rest := path[0], path[1:]
	switch v := value.(type) {
	case map[string]any:
		if element[0] != 'f' {
			return value
		}
		name := element[2:]
		if len(rest) == 0 {
			delete(v, name)
		} else if child, ok := v[name]; ok {
			v[name] = Remove(child, rest, fieldShape(s, name))
			if list, isList := v[name].([]any); isList && len(list) == 0 {
				delete(v, name) // its last item went: the list goes too
			}
		}
		return v
	case []any:
		out := v[:0:0]
		for _, item := range v {
			if e, ok := itemElement(s, item); ok && e == element {
				if len(rest) == 0 {
					continue
				}
				item = Remove(item, rest, itemShape(s))
			}
			out = append(out, item)
		}
		return out
	}
	return value
}

// Compare lists the fields that differ from old to updated (upstream's
// TypedValue.Compare): changed holds what updated added or modified,
// removed what it no longer has.
func Compare(old, updated any, s Shape) (changed, removed *Set) {
	changed, removed = &Set{}, &Set{}
	compareNode(old, updated, true, true, s, nil, changed, removed)
	return changed, removed
}

func compareNode(old, updated any, hasOld, hasNew bool, s Shape, path Path, changed, removed *Set) {
	if !hasOld && !hasNew {
		return
	}
	om, oldIsMap := old.(map[string]any)
	nm, newIsMap := updated.(map[string]any)
	ol, oldIsList := old.([]any)
	nl, newIsList := updated.([]any)
	switch {
	case (oldIsMap || !hasOld) && (newIsMap || !hasNew) && (oldIsMap || newIsMap) && !atomicObject(s):
		if len(path) > 0 && !hasOld {
			changed.Insert(path)
		}
		if len(path) > 0 && !hasNew {
			removed.Insert(path)
		}
		for name, v := range nm {
			ov, found := om[name]
			compareNode(ov, v, found, true, fieldShape(s, name), childPath(path, field(name)), changed, removed)
		}
		for name, v := range om {
			if _, found := nm[name]; !found {
				compareNode(v, nil, true, false, fieldShape(s, name), childPath(path, field(name)), changed, removed)
			}
		}
	case (oldIsList || !hasOld) && (newIsList || !hasNew) && (oldIsList || newIsList) && listType(s) != ListAtomic:
		oldItems := map[string]any{}
		for _, item := range ol {
			if element, ok := itemElement(s, item); ok {
				oldItems[element] = item
			}
		}
		newItems := map[string]any{}
		for _, item := range nl {
			element, ok := itemElement(s, item)
			if !ok {
				continue
			}
			newItems[element] = item
			ov, found := oldItems[element]
			if !found {
				changed.Insert(childPath(path, element))
			}
			compareNode(ov, item, found, true, itemShape(s), childPath(path, element), changed, removed)
		}
		for element, item := range oldItems {
			if _, found := newItems[element]; !found {
				removed.Insert(childPath(path, element))
				compareNode(item, nil, true, false, itemShape(s), childPath(path, element), changed, removed)
			}
		}
	default:
		switch {
		case !hasOld:
			changed.Insert(path)
		case !hasNew:
			removed.Insert(path)
		case !sameJSON(old, updated):
			changed.Insert(path)
		}
	}
}

func sameJSON(a, b any) bool {
	ea, errA := json.Marshal(a)
	eb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ea, eb)
}
