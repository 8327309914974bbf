package api

import "strings"

// APIExtensionsGroupName is the API group of CustomResourceDefinitions.
const APIExtensionsGroupName = "apiextensions.k8s.io"

// IsCRDConditionTrue reports whether crd has condition t with status True.
func IsCRDConditionTrue(crd *CustomResourceDefinition, t CustomResourceDefinitionConditionType) bool {
	c := FindCRDCondition(crd, t)
	return c != nil && c.Status == ConditionTrue
}

// FindCRDCondition returns crd's condition of type t, or nil.
func FindCRDCondition(crd *CustomResourceDefinition, t CustomResourceDefinitionConditionType) *CustomResourceDefinitionCondition {
	for i := range crd.Status.Conditions {
		if crd.Status.Conditions[i].Type == t {
			return &crd.Status.Conditions[i]
		}
	}
	return nil
}

// SetCRDCondition sets (or adds) a condition of crd. lastTransitionTime
// moves only when the status changes, as upstream's SetCRDCondition keeps
// it; now is the time stamped then.
func SetCRDCondition(crd *CustomResourceDefinition, c CustomResourceDefinitionCondition, now Time) {
	existing := FindCRDCondition(crd, c.Type)
	if existing == nil {
		c.LastTransitionTime = now
		crd.Status.Conditions = append(crd.Status.Conditions, c)
		return
	}
	if existing.Status != c.Status {
		existing.LastTransitionTime = now
	}
	existing.Status, existing.Reason, existing.Message = c.Status, c.Reason, c.Message
}

// CRDStorageVersion is the name of the version crd stores objects in, or
// "" when none is marked (validation refuses such a CRD).
func CRDStorageVersion(crd *CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

// CRDHasFinalizer reports whether crd carries finalizer.
func CRDHasFinalizer(crd *CustomResourceDefinition, finalizer string) bool {
	for _, f := range crd.Finalizers {
		if f == finalizer {
			return true
		}
	}
	return false
}

// setDefaultsCustomResourceDefinition applies apiextensions.k8s.io/v1's
// defaults: singular is the lower-case kind, listKind is kind+"List",
// conversion is None, and a new CRD's storedVersions holds its storage
// version.
func setDefaultsCustomResourceDefinition(crd *CustomResourceDefinition) {
	names := &crd.Spec.Names
	if names.Singular == "" {
		names.Singular = strings.ToLower(names.Kind)
	}
	if names.ListKind == "" && names.Kind != "" {
		names.ListKind = names.Kind + "List"
	}
	if crd.Spec.Conversion == nil {
		crd.Spec.Conversion = &CustomResourceConversion{Strategy: NoneConverter}
	}
	if len(crd.Status.StoredVersions) == 0 {
		if v := CRDStorageVersion(crd); v != "" {
			crd.Status.StoredVersions = []string{v}
		}
	}
}
