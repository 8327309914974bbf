package quota

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"kplane/pkg/api"
)

// This file holds the text of the refusals quota admission gives, as
// upstream's admission plugin words them
// (staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go).
// The apiserver wraps each in a Forbidden: `pods "web" is forbidden: …`.

// ExceededMessage is the refusal of a request that would push quotaName
// over its hard limits: `exceeded quota: q, requested: pods=1, used:
// pods=2, limited: pods=2`. Each list is masked to the exceeded resources.
func ExceededMessage(quotaName string, requested, used, hard api.ResourceList, exceeded []api.ResourceName) string {
	return fmt.Sprintf("exceeded quota: %s, requested: %s, used: %s, limited: %s", quotaName,
		PrettyPrint(Mask(requested, exceeded)), PrettyPrint(Mask(used, exceeded)), PrettyPrint(Mask(hard, exceeded)))
}

// FailedMessage is the refusal of an object a quota's constraints reject:
// `failed quota: q: must specify limits.cpu for: web; requests.cpu for: web`.
func FailedMessage(quotaName string, err error) string {
	return fmt.Sprintf("failed quota: %s: %v", quotaName, err)
}

// StatusUnknownMessage is the refusal while the resourcequota controller
// has not yet computed a quota's usage: admission cannot know whether the
// request fits.
func StatusUnknownMessage(quotaName string, names []api.ResourceName) string {
	return fmt.Sprintf("status unknown for quota: %s, resources: %s", quotaName, PrettyPrintNames(names))
}

// NegativeUsageMessage refuses an object that would charge a negative amount.
func NegativeUsageMessage(names []api.ResourceName) string {
	return fmt.Sprintf("quota usage is negative for resource(s): %s", PrettyPrintNames(names))
}

// PrettyPrint formats list as upstream's errors do: name=amount pairs sorted
// by name, joined by commas.
func PrettyPrint(list api.ResourceList) string {
	parts := make([]string, 0, len(list))
	for _, name := range slices.Sorted(maps.Keys(list)) {
		parts = append(parts, name+"="+list[name].String())
	}
	return strings.Join(parts, ",")
}

// PrettyPrintNames formats names sorted and joined by commas.
func PrettyPrintNames(names []api.ResourceName) string {
	return strings.Join(slices.Sorted(slices.Values(names)), ",")
}
