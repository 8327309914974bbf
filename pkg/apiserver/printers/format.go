package printers

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
)

// none is what kubectl shows for a value that is not there.
const none = "<none>"

// unset is what upstream shows for an optional field left nil, where "<none>"
// could be mistaken for an empty value that was set.
const unset = "<unset>"

// formatLabels renders a label map as "k1=v1,k2=v2" sorted by key, or
// "<none>" when empty (upstream's labels.FormatLabels). Service selectors,
// ReplicationController selectors and DaemonSet node selectors print so.
func formatLabels(set map[string]string) string {
	if len(set) == 0 {
		return none
	}
	pairs := make([]string, 0, len(set))
	for _, key := range slices.Sorted(maps.Keys(set)) {
		pairs = append(pairs, key+"="+set[key])
	}
	return strings.Join(pairs, ",")
}

// formatLabelSelector renders a structured selector canonically, "<none>"
// when it selects everything or is missing, and "<error>" when it cannot be
// converted (upstream's metav1.FormatLabelSelector). ReplicaSets, DaemonSets,
// Jobs and CronJobs print their selector so.
func formatLabelSelector(ls *api.LabelSelector) string {
	selector, err := labels.FromLabelSelector(ls)
	if err != nil {
		return "<error>"
	}
	if s := selector.String(); s != "" {
		return s
	}
	return none
}

// deploymentSelector renders a Deployment's selector. Upstream's Deployment
// printer converts the selector itself rather than calling
// FormatLabelSelector, so an empty selector prints as an empty cell and a
// broken one as "<invalid>"; kplane keeps that difference.
func deploymentSelector(ls *api.LabelSelector) string {
	selector, err := labels.FromLabelSelector(ls)
	if err != nil {
		return "<invalid>"
	}
	return selector.String()
}

// joinWithMore joins the first max items with "," and, when there are more
// (total counts them all), adds " + N more..." as kubectl does for
// endpoints and HPA metrics.
func joinWithMore(items []string, total, max int, sep string) string {
	if len(items) > max {
		items = items[:max]
	}
	joined := strings.Join(items, sep)
	if total > max {
		return fmt.Sprintf("%s + %d more...", joined, total-max)
	}
	return joined
}

// orNone returns s, or "<none>" when s is empty.
func orNone(s string) string {
	if s == "" {
		return none
	}
	return s
}

// boolPointer renders an optional boolean as "True", "False" or "<unset>"
// (upstream's printBoolPtr, used by CronJob's SUSPEND).
func boolPointer(b *bool) string {
	switch {
	case b == nil:
		return unset
	case *b:
		return "True"
	default:
		return "False"
	}
}

// controllerOf returns the ownerReference that marks meta's managing
// controller, or nil (upstream's metav1.GetControllerOf).
func controllerOf(meta *api.ObjectMeta) *api.OwnerReference {
	for i := range meta.OwnerReferences {
		if ref := &meta.OwnerReferences[i]; ref.Controller != nil && *ref.Controller {
			return ref
		}
	}
	return nil
}

// groupOf returns the API group of an apiVersion: "apps" for "apps/v1", ""
// for the core group's "v1".
func groupOf(apiVersion string) string {
	group, _, found := strings.Cut(apiVersion, "/")
	if !found {
		return ""
	}
	return group
}

// kindAndName renders a reference as kubectl names resources:
// "daemonset.apps/nginx-ds", or "pod/web-0" for the core group.
func kindAndName(apiVersion, kind, name string) string {
	groupKind := kind
	if kind == "" && groupOf(apiVersion) == "" {
		return name
	}
	if group := groupOf(apiVersion); group != "" {
		groupKind += "." + group
	}
	return strings.ToLower(groupKind) + "/" + name
}
