package apiserver

import (
	"fmt"
	"slices"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// The naming step of the CRD controller (upstream's
// NamingConditionController): which of the names a CRD asks for it is
// given, and the NamesAccepted condition that says why not.

// calculateNames is upstream's naming rule: each requested name is
// accepted when it is already this CRD's or no other CRD of the group
// (nor a built-in resource of it) has it; a name that is not keeps the
// one accepted before, and NamesAccepted says why.
func (c *crdController) calculateNames(crd *api.CustomResourceDefinition) (api.CustomResourceDefinitionNames, api.CustomResourceDefinitionCondition, api.CustomResourceDefinitionCondition) {
	usedResources, usedKinds := c.namesTakenInGroup(crd)
	return acceptNames(crd, usedResources, usedKinds)
}

// acceptNames is calculateNames given the resource names and kinds the
// rest of the group holds: the names crd is given, its NamesAccepted
// condition, and its Established condition before the establishing step.
func acceptNames(crd *api.CustomResourceDefinition, usedResources, usedKinds map[string]bool) (api.CustomResourceDefinitionNames, api.CustomResourceDefinitionCondition, api.CustomResourceDefinitionCondition) {
	requested, accepted := crd.Spec.Names, crd.Status.AcceptedNames
	names := accepted
	cond := api.CustomResourceDefinitionCondition{Type: api.NamesAccepted, Status: api.ConditionUnknown}
	conflict := func(reason string, err error) {
		cond.Status, cond.Reason, cond.Message = api.ConditionFalse, reason, err.Error()
	}
	if err := acceptedOrFree(requested.Plural, accepted.Plural, usedResources); err != nil {
		conflict("PluralConflict", err)
	} else {
		names.Plural = requested.Plural
	}
	if err := acceptedOrFree(requested.Singular, accepted.Singular, usedResources); err != nil {
		conflict("SingularConflict", err)
	} else {
		names.Singular = requested.Singular
	}
	if !slices.Equal(requested.ShortNames, accepted.ShortNames) {
		var errs []error
		for _, short := range requested.ShortNames {
			if slices.Contains(accepted.ShortNames, short) {
				continue
			}
			if err := acceptedOrFree(short, "", usedResources); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			conflict("ShortNamesConflict", apierrors.Aggregate(errs))
		} else {
			names.ShortNames = requested.ShortNames
		}
	}
	if err := acceptedOrFree(requested.Kind, accepted.Kind, usedKinds); err != nil {
		conflict("KindConflict", err)
	} else {
		names.Kind = requested.Kind
	}
	if err := acceptedOrFree(requested.ListKind, accepted.ListKind, usedKinds); err != nil {
		conflict("ListKindConflict", err)
	} else {
		names.ListKind = requested.ListKind
	}
	names.Categories = requested.Categories
	if cond.Status == api.ConditionUnknown {
		cond.Status, cond.Reason, cond.Message = api.ConditionTrue, "NoConflicts", "no conflicts found"
	}

	established := api.CustomResourceDefinitionCondition{Type: api.Established, Status: api.ConditionFalse,
		Reason: "NotAccepted", Message: "not all names are accepted"}
	if old := api.FindCRDCondition(crd, api.Established); old != nil {
		established = *old
	}
	if established.Status != api.ConditionTrue && cond.Status == api.ConditionTrue {
		established = api.CustomResourceDefinitionCondition{Type: api.Established, Status: api.ConditionFalse,
			Reason: "Installing", Message: "the initial names have been accepted"}
	}
	return names, cond, established
}

// namesTakenInGroup lists the resource names (plurals, singulars, short
// names) and kinds the other CRDs of crd's group have been given, and
// those of the built-in resources of the group.
func (c *crdController) namesTakenInGroup(crd *api.CustomResourceDefinition) (resources, kinds map[string]bool) {
	resources, kinds = map[string]bool{}, map[string]bool{}
	for _, other := range c.listCRDs() {
		if other.Spec.Group != crd.Spec.Group || other.Name == crd.Name {
			continue
		}
		n := other.Status.AcceptedNames
		for _, name := range append([]string{n.Plural, n.Singular}, n.ShortNames...) {
			if name != "" {
				resources[name] = true
			}
		}
		for _, kind := range []string{n.Kind, n.ListKind} {
			if kind != "" {
				kinds[kind] = true
			}
		}
	}
	for _, res := range c.s.reg.all {
		if res.group != crd.Spec.Group {
			continue
		}
		resources[res.plural], resources[res.singular] = true, true
		kinds[res.kind], kinds[res.kind+"List"] = true, true
		for _, short := range res.shortNames {
			resources[short] = true
		}
	}
	return resources, kinds
}

// acceptedOrFree is nil when requested is the name already accepted or
// nobody uses it.
func acceptedOrFree(requested, accepted string, used map[string]bool) error {
	if requested == accepted || !used[requested] {
		return nil
	}
	return fmt.Errorf("%q is already in use", requested)
}

// sameNames compares two sets of names.
func sameNames(a, b api.CustomResourceDefinitionNames) bool {
	return a.Plural == b.Plural && a.Singular == b.Singular && a.Kind == b.Kind && a.ListKind == b.ListKind &&
		slices.Equal(a.ShortNames, b.ShortNames) && slices.Equal(a.Categories, b.Categories)
}

// sameCondition says whether crd already holds cond (type, status, reason
// and message).
func sameCondition(crd *api.CustomResourceDefinition, cond api.CustomResourceDefinitionCondition) bool {
	have := api.FindCRDCondition(crd, cond.Type)
	return have != nil && have.Status == cond.Status && have.Reason == cond.Reason && have.Message == cond.Message
}
