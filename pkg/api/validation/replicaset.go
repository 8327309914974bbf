package validation

import (
	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// validateReplicaSet checks a ReplicaSet being created.
func validateReplicaSet(rs *api.ReplicaSet) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&rs.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validateReplicaSetSpec(&rs.Spec, "spec")...)
}

// validateReplicaSetUpdate checks an update; the selector is fixed in apps/v1.
func validateReplicaSetUpdate(rs, old *api.ReplicaSet) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&rs.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, validateReplicaSetSpec(&rs.Spec, "spec")...)
	return append(allErrs, validateSelectorUnchanged(rs.Spec.Selector, old.Spec.Selector, "spec.selector")...)
}

func validateReplicaSetSpec(spec *api.ReplicaSetSpec, fldPath string) errors.FieldErrorList {
	allErrs := validateOptionalNonnegative(spec.Replicas, child(fldPath, "replicas"))
	allErrs = append(allErrs, validateNonnegative32(spec.MinReadySeconds, child(fldPath, "minReadySeconds"))...)
	allErrs = append(allErrs, validateWorkloadSelector(spec.Selector, &spec.Template, "replicaset", true, fldPath)...)
	return append(allErrs, validateAlwaysRestartingTemplate(&spec.Template, "ReplicaSet", child(fldPath, "template"), nil)...)
}

// validateReplicationController checks a ReplicationController, the
// ReplicaSet's predecessor: its selector is a plain label map.
func validateReplicationController(rc *api.ReplicationController) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&rc.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validateReplicationControllerSpec(&rc.Spec, "spec")...)
}

// validateReplicationControllerUpdate checks an update. Unlike apps/v1
// kinds, a ReplicationController's selector may change.
func validateReplicationControllerUpdate(rc, old *api.ReplicationController) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&rc.ObjectMeta, &old.ObjectMeta, "metadata")
	return append(allErrs, validateReplicationControllerSpec(&rc.Spec, "spec")...)
}

func validateReplicationControllerSpec(spec *api.ReplicationControllerSpec, fldPath string) errors.FieldErrorList {
	allErrs := validateOptionalNonnegative(spec.Replicas, child(fldPath, "replicas"))
	allErrs = append(allErrs, validateNonnegative32(spec.MinReadySeconds, child(fldPath, "minReadySeconds"))...)
	selPath := child(fldPath, "selector")
	if len(spec.Selector) == 0 {
		allErrs = append(allErrs, errors.Required(selPath, ""))
	} else {
		allErrs = append(allErrs, ValidateLabels(spec.Selector, selPath)...)
	}
	templatePath := child(fldPath, "template")
	if spec.Template == nil {
		return append(allErrs, errors.Required(templatePath, ""))
	}
	if len(spec.Selector) > 0 && !selectorMatches(&api.LabelSelector{MatchLabels: spec.Selector}, spec.Template.Labels) {
		allErrs = append(allErrs, invalidLabels(child(templatePath, "metadata", "labels"), spec.Template.Labels, selectorDoesNotMatch))
	}
	return append(allErrs, validateAlwaysRestartingTemplate(spec.Template, "ReplicationController", templatePath, nil)...)
}
