package namespace

// This file turns the outcome of one pass over a namespace's content into
// the status conditions `kubectl describe ns` shows while a namespace is
// Terminating. It reproduces upstream's status_condition_utils.go: each of
// the five condition types is always present, False with an "all is well"
// reason when nothing went wrong, True with the details when something
// did.

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"kplane/pkg/api"
)

// conditionTypes are the namespace conditions this controller owns, in the
// order upstream adds them to status.conditions.
var conditionTypes = []api.NamespaceConditionType{
	api.NamespaceDeletionDiscoveryFailure,
	api.NamespaceDeletionGVParsingFailure,
	api.NamespaceDeletionContentFailure,
	api.NamespaceContentRemaining,
	api.NamespaceFinalizersRemaining,
}

// okReasons and okMessages are the False ("nothing wrong") variant of each
// condition, word for word as upstream writes them.
var (
	okReasons = map[api.NamespaceConditionType]string{
		api.NamespaceDeletionDiscoveryFailure: "ResourcesDiscovered",
		api.NamespaceDeletionGVParsingFailure: "ParsedGroupVersions",
		api.NamespaceDeletionContentFailure:   "ContentDeleted",
		api.NamespaceContentRemaining:         "ContentRemoved",
		api.NamespaceFinalizersRemaining:      "ContentHasNoFinalizers",
	}
	okMessages = map[api.NamespaceConditionType]string{
		api.NamespaceDeletionDiscoveryFailure: "All resources successfully discovered",
		api.NamespaceDeletionGVParsingFailure: "All legacy kube types successfully parsed",
		api.NamespaceDeletionContentFailure:   "All content successfully deleted, may be waiting on finalization",
		api.NamespaceContentRemaining:         "All content successfully removed",
		api.NamespaceFinalizersRemaining:      "All content-preserving finalizers finished",
	}
)

// contentTotals is what one pass over a namespace's content found.
type contentTotals struct {
	// remaining counts the objects still present per resource, keyed by
	// the resource as upstream prints it: "<resource>.<group>", so
	// "pods." for core pods and "deployments.apps" for Deployments.
	remaining map[string]int
	// finalizers counts, per finalizer, the remaining objects that carry it.
	finalizers map[string]int
	// deleteErrors are the per-resource failures of the pass.
	deleteErrors []error
	// discoveryErr is why discovery failed, if it did.
	discoveryErr error
}

// newContentTotals returns empty totals.
func newContentTotals() contentTotals {
	return contentTotals{remaining: map[string]int{}, finalizers: map[string]int{}}
}

// failingConditions returns the True conditions the totals call for; the
// types it leaves out are fine and get their False variant in
// updateConditions.
func failingConditions(t contentTotals, now api.Time) []api.NamespaceCondition {
	var out []api.NamespaceCondition
	if t.discoveryErr != nil {
		out = append(out, api.NamespaceCondition{
			Type: api.NamespaceDeletionDiscoveryFailure, Status: api.ConditionTrue, LastTransitionTime: now,
			Reason: "DiscoveryFailed", Message: t.discoveryErr.Error(),
		})
	}
	if msgs := countMessages(t.remaining, "%s has %d resource instances"); len(msgs) > 0 {
		out = append(out, api.NamespaceCondition{
			Type: api.NamespaceContentRemaining, Status: api.ConditionTrue, LastTransitionTime: now,
			Reason:  "SomeResourcesRemain",
			Message: "Some resources are remaining: " + strings.Join(msgs, ", "),
		})
	}
	if msgs := countMessages(t.finalizers, "%s in %d resource instances"); len(msgs) > 0 {
		out = append(out, api.NamespaceCondition{
			Type: api.NamespaceFinalizersRemaining, Status: api.ConditionTrue, LastTransitionTime: now,
			Reason:  "SomeFinalizersRemain",
			Message: "Some content in the namespace has finalizers remaining: " + strings.Join(msgs, ", "),
		})
	}
	if len(t.deleteErrors) > 0 {
		msgs := make([]string, 0, len(t.deleteErrors))
		for _, err := range t.deleteErrors {
			msgs = append(msgs, err.Error())
		}
		sort.Strings(msgs)
		out = append(out, api.NamespaceCondition{
			Type: api.NamespaceDeletionContentFailure, Status: api.ConditionTrue, LastTransitionTime: now,
			Reason:  "ContentDeletionFailed",
			Message: fmt.Sprintf("Failed to delete all resource types, %d remaining: %s", len(msgs), strings.Join(msgs, ", ")),
		})
	}
	return out
}

// countMessages formats each non-zero count with format (a %s for the key,
// a %d for the count), sorted so that the message, and with it the
// namespace's status, does not change from one pass to the next unless the
// counts do.
func countMessages(counts map[string]int, format string) []string {
	var msgs []string
	for _, key := range slices.Sorted(maps.Keys(counts)) {
		if counts[key] > 0 {
			msgs = append(msgs, fmt.Sprintf(format, key, counts[key]))
		}
	}
	return msgs
}

// updateConditions makes status carry exactly one condition of each type
// this controller owns: the failing one from failing, else the False
// variant. An existing condition keeps its LastTransitionTime unless its
// status flips. It reports whether anything changed, so the caller writes
// the status only when it must (as upstream does).
func updateConditions(status *api.NamespaceStatus, failing []api.NamespaceCondition, now api.Time) (changed bool) {
	for _, condType := range conditionTypes {
		want := findCondition(failing, condType)
		if want == nil {
			want = &api.NamespaceCondition{
				Type: condType, Status: api.ConditionFalse, LastTransitionTime: now,
				Reason: okReasons[condType], Message: okMessages[condType],
			}
		}
		have := findCondition(status.Conditions, condType)
		switch {
		case have == nil:
			status.Conditions = append(status.Conditions, *want)
			changed = true
		case have.Status != want.Status || have.Reason != want.Reason || have.Message != want.Message:
			if have.Status != want.Status {
				have.LastTransitionTime = now
			}
			have.Status, have.Reason, have.Message = want.Status, want.Reason, want.Message
			changed = true
		}
	}
	return changed
}

// findCondition returns a pointer into conditions to the one of type t, or nil.
func findCondition(conditions []api.NamespaceCondition, t api.NamespaceConditionType) *api.NamespaceCondition {
	for i := range conditions {
		if conditions[i].Type == t {
			return &conditions[i]
		}
	}
	return nil
}
