package describe

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/ctl/printers"
	"kplane/pkg/humanize"
)

// lastAppliedAnnotation is never shown: it repeats the whole object.
// Upstream calls the set skipAnnotations.
const lastAppliedAnnotation = api.LastAppliedConfigAnnotation

// maxAnnotationLen is where a long annotation is folded onto its own lines
// and cut, as in kubectl.
const maxAnnotationLen = 140

// timestamp prints t as kubectl does (RFC 1123 with a numeric zone) in the
// settings' zone. A zero time prints as Go's zero time, unconverted, which
// is what kubectl shows for an unset timestamp.
func (s Settings) timestamp(t time.Time) string {
	if t.IsZero() {
		return t.UTC().Format(time.RFC1123Z)
	}
	return t.In(s.Location).Format(time.RFC1123Z)
}

// since is how long ago t was, as kubectl's translateTimestampSince says
// it: "5m25s", or "<unknown>" for an unset time.
func (s Settings) since(t time.Time) string { return humanize.Since(t, s.Now) }

// printLabelsMultiline prints a map one "key=value" per line, sorted,
// aligned after the title, or <none>.
func printLabelsMultiline(w prefixWriter, title string, m map[string]string) {
	printLabelsMultilineWithIndent(w, "", title, "\t", m)
}

func printLabelsMultilineWithIndent(w prefixWriter, initialIndent, title, innerIndent string, m map[string]string) {
	w.write(level0, "%s%s:%s", initialIndent, title, innerIndent)
	if len(m) == 0 {
		w.writeLine("<none>")
		return
	}
	for i, key := range slices.Sorted(maps.Keys(m)) {
		if i != 0 {
			w.write(level0, "%s", initialIndent)
			w.write(level0, "%s", innerIndent)
		}
		w.write(level0, "%s=%s\n", key, m[key])
	}
}

// printAnnotationsMultiline prints annotations one "key: value" per line,
// sorted; a value that is long or spans lines goes below its key, each
// line cut at maxAnnotationLen. The last-applied-configuration annotation
// is left out.
func printAnnotationsMultiline(w prefixWriter, title string, annotations map[string]string) {
	w.write(level0, "%s:\t", title)
	var keys []string
	for key := range annotations {
		if key != lastAppliedAnnotation {
			keys = append(keys, key)
		}
	}
	if len(keys) == 0 {
		w.writeLine("<none>")
		return
	}
	slices.Sort(keys)
	const indent = "\t"
	for i, key := range keys {
		if i != 0 {
			w.write(level0, indent)
		}
		value := strings.TrimSuffix(annotations[key], "\n")
		if len(value)+len(key)+2 > maxAnnotationLen || strings.Contains(value, "\n") {
			w.write(level0, "%s:\n", key)
			for _, line := range strings.Split(value, "\n") {
				w.write(level0, "%s  %s\n", indent, shorten(line, maxAnnotationLen-2))
			}
		} else {
			w.write(level0, "%s: %s\n", key, value)
		}
	}
}

func shorten(s string, maxLength int) string {
	if len(s) > maxLength {
		return s[:maxLength] + "..."
	}
	return s
}

// printTaintsMultiline prints a node's taints, sorted by effect then key.
func printTaintsMultiline(w prefixWriter, title string, taints []api.Taint) {
	w.write(level0, "%s:\t", title)
	if len(taints) == 0 {
		w.writeLine("<none>")
		return
	}
	sorted := slices.Clone(taints)
	slices.SortFunc(sorted, func(a, b api.Taint) int {
		return strings.Compare(string(a.Effect)+","+a.Key, string(b.Effect)+","+b.Key)
	})
	for i, taint := range sorted {
		if i != 0 {
			w.write(level0, "\t")
		}
		w.write(level0, "%s\n", taintString(taint))
	}
}

// taintString is "key=value:Effect", leaving out what is empty (upstream's
// Taint.ToString).
func taintString(t api.Taint) string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	if t.Effect != "" {
		s += ":" + string(t.Effect)
	}
	return s
}

// printTolerationsMultiline prints tolerations sorted by key, as
// "key=value:Effect op=Exists for 300s".
func printTolerationsMultiline(w prefixWriter, title string, tolerations []api.Toleration) {
	w.write(level0, "%s:\t", title)
	if len(tolerations) == 0 {
		w.writeLine("<none>")
		return
	}
	sorted := slices.Clone(tolerations)
	slices.SortFunc(sorted, func(a, b api.Toleration) int { return strings.Compare(a.Key, b.Key) })
	for i, t := range sorted {
		if i != 0 {
			w.write(level0, "\t")
		}
		w.write(level0, "%s", t.Key)
		if t.Value != "" {
			w.write(level0, "=%s", t.Value)
		}
		if t.Effect != "" {
			w.write(level0, ":%s", t.Effect)
		}
		// An Exists toleration without a value tolerates every value of
		// the key; with no key and no effect it tolerates everything.
		if t.Operator == api.TolerationOpExists && t.Value == "" {
			if t.Key != "" || t.Effect != "" {
				w.write(level0, " op=Exists")
			} else {
				w.write(level0, "op=Exists")
			}
		}
		if t.TolerationSeconds != nil {
			w.write(level0, " for %ds", *t.TolerationSeconds)
		}
		w.write(level0, "\n")
	}
}

// selectorString is a label selector in query syntax; an empty selector is
// "", a nil one "<none>" (what upstream's LabelSelectorAsSelector gives:
// Everything and Nothing).
func selectorString(ls *api.LabelSelector) string {
	if ls == nil {
		return ""
	}
	sel, err := labels.FromLabelSelector(ls)
	if err != nil {
		return "<error>"
	}
	return sel.String()
}

// formatLabelSelector is upstream's metav1.FormatLabelSelector: the
// selector, or <none> when it selects nothing or everything.
func formatLabelSelector(ls *api.LabelSelector) string {
	s := selectorString(ls)
	if s == "" {
		return "<none>"
	}
	return s
}

// formatLabels is "k=v,k2=v2" sorted, or <none>.
func formatLabels(m map[string]string) string { return printers.FormatLabels(m) }

// controllerOf is "Kind/name" of the object's controller, or "".
func controllerOf(meta api.ObjectMeta) string {
	if ref := controllerRef(meta); ref != nil {
		return ref.Kind + "/" + ref.Name
	}
	return ""
}

func controllerRef(meta api.ObjectMeta) *api.OwnerReference {
	for i, ref := range meta.OwnerReferences {
		if ref.Controller != nil && *ref.Controller {
			return &meta.OwnerReferences[i]
		}
	}
	return nil
}

func stringOrNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// printBool is kubectl's True/False.
func printBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func printBoolPtr(b *bool) string {
	if b == nil {
		return "<unset>"
	}
	return printBool(*b)
}

// intOrString prints an IntOrString pointer as upstream's pointer-receiver
// String does, "<nil>" for nil.
func intOrString(v *api.IntOrString) string {
	if v == nil {
		return "<nil>"
	}
	return v.String()
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// sortedResourceNames returns the names of a resource list, sorted.
func sortedResourceNames(list api.ResourceList) []string {
	return slices.Sorted(maps.Keys(list))
}

// accessModesString abbreviates access modes as kubectl's
// GetAccessModesAsString does: "RWO,ROX,RWX,RWOP", deduplicated, in that
// order.
func accessModesString(modes []api.PersistentVolumeAccessMode) string {
	var out []string
	for _, m := range []struct {
		mode api.PersistentVolumeAccessMode
		abbr string
	}{{api.ReadWriteOnce, "RWO"}, {api.ReadOnlyMany, "ROX"}, {api.ReadWriteMany, "RWX"}, {api.ReadWriteOncePod, "RWOP"}} {
		if slices.Contains(modes, m.mode) {
			out = append(out, m.abbr)
		}
	}
	return strings.Join(out, ",")
}

// goSlice prints a string slice as fmt's %v does: "[a b]".
func goSlice[T any](s []T) string { return fmt.Sprintf("%v", s) }
