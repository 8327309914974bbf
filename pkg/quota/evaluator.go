package quota

import (
	"slices"
	"time"

	"kplane/pkg/api"
)

// Operation is the kind of write admission asks an evaluator about.
type Operation string

// The operations quota admission sees.
const (
	Create Operation = "CREATE"
	Update Operation = "UPDATE"
)

// GroupResource names a resource in an API group ("" is the core group).
type GroupResource struct {
	Group    string
	Resource string
}

// String is upstream's spelling: "deployments.apps", "pods".
func (gr GroupResource) String() string {
	if gr.Group == "" {
		return gr.Resource
	}
	return gr.Resource + "." + gr.Group
}

// ObjectCountName is the quota resource that counts objects of gr:
// "count/pods", "count/deployments.apps".
func ObjectCountName(gr GroupResource) api.ResourceName {
	return "count/" + gr.String()
}

// Evaluator knows what objects of one resource cost. Implementations are
// stateless apart from their clock and safe for concurrent use.
type Evaluator interface {
	// GroupResource is the resource it evaluates.
	GroupResource() GroupResource
	// Handles reports whether a write of this kind can change usage:
	// every evaluator handles creates; pods (no in-place resize) and
	// plain object counts ignore updates.
	Handles(op Operation) bool
	// MatchingResources returns the names among input this evaluator
	// charges.
	MatchingResources(input []api.ResourceName) []api.ResourceName
	// MatchesScope reports whether obj is in the scope a selector names.
	// Only pods have scopes; every other evaluator answers false, so a
	// scoped quota counts pods only.
	MatchesScope(selector api.ScopedResourceSelectorRequirement, obj api.Object) (bool, error)
	// Constraints returns an error when obj may not be admitted under a
	// quota limiting required (see pods.go).
	Constraints(required []api.ResourceName, obj api.Object) error
	// Usage is what obj charges at time now.
	Usage(obj api.Object, now time.Time) (api.ResourceList, error)
}

// ScopeSelectors returns the scopes a quota restricts itself to: each name
// in spec.scopes as an Exists requirement, then spec.scopeSelector's
// expressions.
func ScopeSelectors(q *api.ResourceQuota) []api.ScopedResourceSelectorRequirement {
	var selectors []api.ScopedResourceSelectorRequirement
	for _, scope := range q.Spec.Scopes {
		selectors = append(selectors, api.ScopedResourceSelectorRequirement{ScopeName: scope, Operator: api.LabelSelectorOpExists})
	}
	if q.Spec.ScopeSelector != nil {
		selectors = append(selectors, q.Spec.ScopeSelector.MatchExpressions...)
	}
	return selectors
}

// Matches reports whether quota q counts obj: q enforces (status.hard) at
// least one resource e charges, and obj is in every one of q's scopes.
// Like upstream it reads status.hard, which the resourcequota controller
// copies from spec.hard: a quota the controller has not seen yet enforces
// nothing.
func Matches(e Evaluator, q *api.ResourceQuota, obj api.Object) (bool, error) {
	if len(e.MatchingResources(ResourceNames(q.Status.Hard))) == 0 {
		return false, nil
	}
	return inScopes(e, ScopeSelectors(q), obj)
}

// inScopes reports whether obj is in every scope of selectors (a quota's
// ScopeSelectors); no selectors at all is no restriction.
func inScopes(e Evaluator, selectors []api.ScopedResourceSelectorRequirement, obj api.Object) (bool, error) {
	for _, selector := range selectors {
		in, err := e.MatchesScope(selector, obj)
		if err != nil || !in {
			return false, err
		}
	}
	return true, nil
}

// noScopes is MatchesScope for evaluators of resources without scopes.
func noScopes(api.ScopedResourceSelectorRequirement, api.Object) (bool, error) {
	return false, nil
}

// scopedComputeResources are the quota names a pod scope other than
// BestEffort may limit: the pod count and its cpu and memory.
var scopedComputeResources = []api.ResourceName{
	api.ResourcePods, api.ResourceCPU, api.ResourceMemory,
	api.ResourceRequestsCPU, api.ResourceRequestsMemory, api.ResourceLimitsCPU, api.ResourceLimitsMemory,
}

// ScopeAllowsResource reports whether a quota with scope may limit the
// standard resource name (upstream's IsResourceQuotaScopeValidForResource):
// a BestEffort pod requests nothing, so a BestEffort quota can only count
// pods; the other pod scopes count pods and their cpu and memory.
func ScopeAllowsResource(scope api.ResourceQuotaScope, name api.ResourceName) bool {
	switch scope {
	case api.ResourceQuotaScopeBestEffort:
		return name == api.ResourcePods
	case api.ResourceQuotaScopeTerminating, api.ResourceQuotaScopeNotTerminating, api.ResourceQuotaScopeNotBestEffort,
		api.ResourceQuotaScopePriorityClass, ScopeCrossNamespacePodAffinity:
		return slices.Contains(scopedComputeResources, name)
	}
	return true
}
