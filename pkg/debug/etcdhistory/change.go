package etcdhistory

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The CHANGE column of `ctl etcd history` and of the web view's etcd panel:
// what one revision changed in the stored JSON, field by field, in a line a student can read —
// `data.color: "blue" → "green"`, `+metadata.labels.tier="web"`,
// `-data.old`. Fields are named by their path (keys joined with ".", list
// items as [i]); values are compact JSON, cut short when long.

// Bounds of one CHANGE cell: a few fields, each value short; -o json shows
// every value in full.
const (
	maxChangesShown   = 3
	maxChangeValueLen = 40
)

// DescribeChange summarizes how after differs from before, two stored
// values. Values that are not JSON objects are compared whole.
func DescribeChange(before, after []byte) string {
	oldFields, newFields := flattenJSON(before), flattenJSON(after)
	var changes []string
	for _, path := range fieldPaths(oldFields, newFields) {
		oldValue, hadOld := oldFields[path]
		newValue, hasNew := newFields[path]
		switch {
		case hadOld && hasNew && oldValue != newValue:
			changes = append(changes, fmt.Sprintf("%s: %s → %s", path, shorten(oldValue), shorten(newValue)))
		case hasNew && !hadOld:
			changes = append(changes, fmt.Sprintf("+%s=%s", path, shorten(newValue)))
		case hadOld && !hasNew && !filledIn(path, oldValue, newFields):
			changes = append(changes, "-"+path)
		}
	}
	switch {
	case len(changes) == 0:
		return "(no change)"
	case len(changes) > maxChangesShown:
		return strings.Join(changes[:maxChangesShown], ", ") + fmt.Sprintf(" and %d more", len(changes)-maxChangesShown)
	}
	return strings.Join(changes, ", ")
}

// flattenJSON maps every leaf of a JSON document to its compact JSON, by
// path. Empty objects and lists are leaves too, so adding one shows. A
// value that does not parse is one leaf, the whole value.
func flattenJSON(value []byte) map[string]string {
	out := map[string]string{}
	var doc any
	if err := json.Unmarshal(value, &doc); err != nil {
		out["(value)"] = string(value)
		return out
	}
	flattenInto(out, "", doc)
	return out
}

func flattenInto(out map[string]string, path string, v any) {
	switch v := v.(type) {
	case map[string]any:
		if len(v) > 0 {
			for k, child := range v {
				flattenInto(out, joinPath(path, k), child)
			}
			return
		}
	case []any:
		if len(v) > 0 {
			for i, child := range v {
				flattenInto(out, path+"["+strconv.Itoa(i)+"]", child)
			}
			return
		}
	}
	data, _ := json.Marshal(v)
	if path == "" {
		path = "(value)"
	}
	out[path] = string(data)
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// filledIn says an empty object or list at path now has fields, which
// the added fields show: it was not removed.
func filledIn(path, value string, fields map[string]string) bool {
	if value != "{}" && value != "[]" {
		return false
	}
	for p := range fields {
		if strings.HasPrefix(p, path+".") || strings.HasPrefix(p, path+"[") {
			return true
		}
	}
	return false
}

// fieldPaths is the union of a's and b's keys, sorted.
func fieldPaths(a, b map[string]string) []string {
	all := make([]string, 0, len(a)+len(b))
	for k := range a {
		all = append(all, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			all = append(all, k)
		}
	}
	slices.Sort(all)
	return all
}

// shorten cuts a value to maxChangeValueLen characters.
func shorten(s string) string {
	if r := []rune(s); len(r) > maxChangeValueLen {
		return string(r[:maxChangeValueLen-1]) + "…"
	}
	return s
}
