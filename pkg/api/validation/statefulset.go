package validation

import (
	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// ValidateStatefulSetName checks a StatefulSet's name. It must be a DNS label
// (not just a subdomain) because each pod is named <set>-<ordinal> and that
// name becomes the pod's hostname.
var ValidateStatefulSetName ValidateNameFunc = NameIsDNSLabel

// statefulSetUpdateForbidden is upstream's message for changing any other part
// of a StatefulSet's spec: identity and storage are fixed at creation.
const statefulSetUpdateForbidden = "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"

// validateStatefulSet checks a StatefulSet being created.
func validateStatefulSet(sts *api.StatefulSet) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&sts.ObjectMeta, true, ValidateStatefulSetName, "metadata")
	return append(allErrs, validateStatefulSetSpec(&sts.Spec, "spec")...)
}

// validateStatefulSetUpdate checks an update: only replicas, ordinals, the
// template, the update strategy, the claim retention policy and
// minReadySeconds may change.
func validateStatefulSetUpdate(sts, old *api.StatefulSet) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&sts.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, validateStatefulSetSpec(&sts.Spec, "spec")...)
	munged := sts.Spec
	munged.Replicas = old.Spec.Replicas
	munged.Ordinals = old.Spec.Ordinals
	munged.Template = old.Spec.Template
	munged.UpdateStrategy = old.Spec.UpdateStrategy
	munged.PersistentVolumeClaimRetentionPolicy = old.Spec.PersistentVolumeClaimRetentionPolicy
	munged.MinReadySeconds = old.Spec.MinReadySeconds
	if !semanticEqual(munged, old.Spec) {
		allErrs = append(allErrs, errors.Forbidden("spec", statefulSetUpdateForbidden+changedFields(old.Spec, munged, "spec")))
	}
	return allErrs
}

func validateStatefulSetSpec(spec *api.StatefulSetSpec, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	switch spec.PodManagementPolicy {
	case "", api.OrderedReadyPodManagement, api.ParallelPodManagement:
	default:
		allErrs = append(allErrs, errors.Invalid(child(fldPath, "podManagementPolicy"), string(spec.PodManagementPolicy), "must be 'OrderedReady' or 'Parallel'"))
	}
	allErrs = append(allErrs, validateStatefulSetUpdateStrategy(&spec.UpdateStrategy, child(fldPath, "updateStrategy"))...)
	if policy := spec.PersistentVolumeClaimRetentionPolicy; policy != nil {
		policyPath := child(fldPath, "persistentVolumeClaimRetentionPolicy")
		allErrs = append(allErrs, validateRetentionPolicyType(policy.WhenDeleted, child(policyPath, "whenDeleted"))...)
		allErrs = append(allErrs, validateRetentionPolicyType(policy.WhenScaled, child(policyPath, "whenScaled"))...)
	}
	allErrs = append(allErrs, validateOptionalNonnegative(spec.Replicas, child(fldPath, "replicas"))...)
	allErrs = append(allErrs, validateNonnegative32(spec.MinReadySeconds, child(fldPath, "minReadySeconds"))...)
	allErrs = append(allErrs, validateOptionalNonnegative(spec.RevisionHistoryLimit, child(fldPath, "revisionHistoryLimit"))...)
	if spec.Ordinals != nil {
		allErrs = append(allErrs, validateNonnegative32(spec.Ordinals.Start, child(fldPath, "ordinals", "start"))...)
	}
	// The governing Service's name becomes every pod's DNS subdomain
	// (<pod>.<serviceName>.<namespace>.svc), so it must be a DNS label.
	allErrs = append(allErrs, validateDNS1123LabelIfSet(spec.ServiceName, child(fldPath, "serviceName"))...)
	allErrs = append(allErrs, validateWorkloadSelector(spec.Selector, &spec.Template, "statefulset", true, fldPath)...)

	claimNames, claimErrs := validateVolumeClaimTemplates(spec.VolumeClaimTemplates, child(fldPath, "volumeClaimTemplates"))
	allErrs = append(allErrs, claimErrs...)
	// Containers may mount the claims by the templates' names, as if they
	// were volumes of the pod.
	return append(allErrs, validateAlwaysRestartingTemplate(&spec.Template, "StatefulSet", child(fldPath, "template"), claimNames)...)
}

// validateStatefulSetUpdateStrategy checks the rollout strategy: a partition
// (pods below it keep the old revision) and maxUnavailable only apply to
// RollingUpdate.
func validateStatefulSetUpdateStrategy(strategy *api.StatefulSetUpdateStrategy, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	ruPath := child(fldPath, "rollingUpdate")
	switch strategy.Type {
	case api.OnDeleteStatefulSetStrategyType:
		if strategy.RollingUpdate != nil {
			allErrs = append(allErrs, errors.Invalid(ruPath, strategy.RollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"))
		}
	case "", api.RollingUpdateStatefulSetStrategyType:
		ru := strategy.RollingUpdate
		if ru == nil {
			break
		}
		allErrs = append(allErrs, validateOptionalNonnegative(ru.Partition, child(ruPath, "partition"))...)
		if ru.MaxUnavailable != nil {
			unavailablePath := child(ruPath, "maxUnavailable")
			allErrs = append(allErrs, validateIntOrPercent(ru.MaxUnavailable, unavailablePath)...)
			if intOrPercentValue(ru.MaxUnavailable, 1) == 0 {
				allErrs = append(allErrs, errors.Invalid(unavailablePath, intOrStringValue(ru.MaxUnavailable), "cannot be 0"))
			}
			allErrs = append(allErrs, validateNotMoreThan100Percent(ru.MaxUnavailable, unavailablePath)...)
		}
	default:
		allErrs = append(allErrs, errors.Invalid(child(fldPath, "type"), string(strategy.Type), "must be 'RollingUpdate' or 'OnDelete'"))
	}
	return allErrs
}

func validateRetentionPolicyType(policy api.PersistentVolumeClaimRetentionPolicyType, fldPath string) errors.FieldErrorList {
	switch policy {
	case "", api.RetainPersistentVolumeClaimRetentionPolicyType, api.DeletePersistentVolumeClaimRetentionPolicyType:
		return nil
	}
	return errors.FieldErrorList{errors.NotSupported(fldPath, string(policy), []string{
		string(api.RetainPersistentVolumeClaimRetentionPolicyType), string(api.DeletePersistentVolumeClaimRetentionPolicyType)})}
}

// validateVolumeClaimTemplates checks the claims a StatefulSet creates for
// each pod (named <template>-<pod>) and returns the templates' names.
func validateVolumeClaimTemplates(templates []api.PersistentVolumeClaim, fldPath string) ([]string, errors.FieldErrorList) {
	var allErrs errors.FieldErrorList
	var names []string
	seen := map[string]bool{}
	for i := range templates {
		tmpl := &templates[i]
		tmplPath := index(fldPath, i)
		namePath := child(tmplPath, "metadata", "name")
		if tmpl.Name == "" {
			allErrs = append(allErrs, errors.Required(namePath, ""))
		} else {
			allErrs = append(allErrs, validateDNS1123Subdomain(tmpl.Name, namePath)...)
			if seen[tmpl.Name] {
				allErrs = append(allErrs, errors.Duplicate(namePath, tmpl.Name))
			}
			seen[tmpl.Name] = true
			names = append(names, tmpl.Name)
		}
		allErrs = append(allErrs, ValidateLabels(tmpl.Labels, child(tmplPath, "metadata", "labels"))...)
		allErrs = append(allErrs, ValidateAnnotations(tmpl.Annotations, child(tmplPath, "metadata", "annotations"))...)
		allErrs = append(allErrs, validatePersistentVolumeClaimSpec(&tmpl.Spec, child(tmplPath, "spec"))...)
	}
	return names, allErrs
}
