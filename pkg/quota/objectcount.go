package quota

import (
	"time"

	"kplane/pkg/api"
)

// legacyCountNames are the older unprefixed names that count some core
// objects, besides their count/<resource> name.
var legacyCountNames = map[GroupResource]api.ResourceName{
	{Resource: "configmaps"}:             api.ResourceConfigMaps,
	{Resource: "secrets"}:                api.ResourceSecrets,
	{Resource: "replicationcontrollers"}: api.ResourceReplicationControllers,
	{Resource: "resourcequotas"}:         api.ResourceQuotas,
}

// objectCountEvaluator counts the objects of any resource as
// count/<resource>.<group> (upstream's generic object count evaluator).
type objectCountEvaluator struct {
	resource GroupResource
	// names are what one object charges: count/<resource>[.<group>] and,
	// for a few core resources, the legacy name.
	names []api.ResourceName
}

// NewObjectCountEvaluator returns the evaluator that counts objects of gr.
func NewObjectCountEvaluator(gr GroupResource) Evaluator {
	names := []api.ResourceName{ObjectCountName(gr)}
	if legacy, ok := legacyCountNames[gr]; ok {
		names = append(names, legacy)
	}
	return objectCountEvaluator{resource: gr, names: names}
}

// GroupResource is the resource counted.
func (e objectCountEvaluator) GroupResource() GroupResource { return e.resource }

// Handles creates only: an update does not change a count.
func (objectCountEvaluator) Handles(op Operation) bool { return op == Create }

// MatchingResources returns the count names among input.
func (e objectCountEvaluator) MatchingResources(input []api.ResourceName) []api.ResourceName {
	return Intersection(input, e.names)
}

// MatchesScope is false: counted objects have no quota scopes.
func (objectCountEvaluator) MatchesScope(s api.ScopedResourceSelectorRequirement, obj api.Object) (bool, error) {
	return noScopes(s, obj)
}

// Constraints has nothing to refuse.
func (objectCountEvaluator) Constraints([]api.ResourceName, api.Object) error { return nil }

// Usage is one of each count name.
func (e objectCountEvaluator) Usage(api.Object, time.Time) (api.ResourceList, error) {
	usage := api.ResourceList{}
	for _, name := range e.names {
		usage[name] = api.NewQuantity(1, api.DecimalSI)
	}
	return usage, nil
}

// EvaluatorFor returns the evaluator of gr: the dedicated one for pods,
// services and claims, an object count for any other resource.
func EvaluatorFor(gr GroupResource) Evaluator {
	if gr.Group == "" {
		switch gr.Resource {
		case "pods":
			return podEvaluator{}
		case "services":
			return serviceEvaluator{}
		case "persistentvolumeclaims":
			return claimEvaluator{}
		}
	}
	return NewObjectCountEvaluator(gr)
}
