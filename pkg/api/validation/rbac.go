package validation

import (
	"slices"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// ValidateRBACName checks the name of a Role, ClusterRole or binding: any
// string usable as a URL path segment, so that names such as
// "system:controller:deployment-controller" are allowed.
var ValidateRBACName ValidateNameFunc = NameIsPathSegment

// validatePolicyRules checks a role's rules. A rule either grants verbs on
// API resources (then it needs apiGroups and resources) or on non-resource
// URLs such as /healthz (then only in a ClusterRole), never both.
func validatePolicyRules(rules []api.PolicyRule, namespaced bool, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i, rule := range rules {
		rulePath := index(fldPath, i)
		if len(rule.Verbs) == 0 {
			allErrs = append(allErrs, errors.Required(child(rulePath, "verbs"), "verbs must contain at least one value"))
		}
		if len(rule.NonResourceURLs) > 0 {
			urlsPath := child(rulePath, "nonResourceURLs")
			if namespaced {
				allErrs = append(allErrs, errors.Invalid(urlsPath, rule.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
			}
			if len(rule.APIGroups) > 0 || len(rule.Resources) > 0 || len(rule.ResourceNames) > 0 {
				allErrs = append(allErrs, errors.Invalid(urlsPath, rule.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
			}
			continue
		}
		if len(rule.APIGroups) == 0 {
			allErrs = append(allErrs, errors.Required(child(rulePath, "apiGroups"), "resource rules must supply at least one api group"))
		}
		if len(rule.Resources) == 0 {
			allErrs = append(allErrs, errors.Required(child(rulePath, "resources"), "resource rules must supply at least one resource"))
		}
	}
	return allErrs
}

func validateRole(role *api.Role) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&role.ObjectMeta, true, ValidateRBACName, "metadata")
	return append(allErrs, validatePolicyRules(role.Rules, true, "rules")...)
}

func validateRoleUpdate(role, old *api.Role) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&role.ObjectMeta, &old.ObjectMeta, "metadata")
	return append(allErrs, validatePolicyRules(role.Rules, true, "rules")...)
}

// validateClusterRole checks a ClusterRole; one with an aggregationRule gets
// its rules from the ClusterRoles its selectors pick.
func validateClusterRole(role *api.ClusterRole) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&role.ObjectMeta, false, ValidateRBACName, "metadata")
	return append(allErrs, validateClusterRoleContents(role)...)
}

func validateClusterRoleUpdate(role, old *api.ClusterRole) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&role.ObjectMeta, &old.ObjectMeta, "metadata")
	return append(allErrs, validateClusterRoleContents(role)...)
}

func validateClusterRoleContents(role *api.ClusterRole) errors.FieldErrorList {
	allErrs := validatePolicyRules(role.Rules, false, "rules")
	if agg := role.AggregationRule; agg != nil {
		selectorsPath := child("aggregationRule", "clusterRoleSelectors")
		if len(agg.ClusterRoleSelectors) == 0 {
			allErrs = append(allErrs, errors.Required(selectorsPath, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
		}
		for i := range agg.ClusterRoleSelectors {
			allErrs = append(allErrs, ValidateLabelSelector(&agg.ClusterRoleSelectors[i], index(selectorsPath, i))...)
		}
	}
	return allErrs
}

// validateRoleRef checks what a binding grants: a Role (RoleBindings only)
// or ClusterRole of the RBAC group, by name.
func validateRoleRef(ref api.RoleRef, allowedKinds []string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if ref.APIGroup != api.RBACGroupName {
		allErrs = append(allErrs, errors.NotSupported("roleRef.apiGroup", ref.APIGroup, []string{api.RBACGroupName}))
	}
	if !slices.Contains(allowedKinds, ref.Kind) {
		allErrs = append(allErrs, errors.NotSupported("roleRef.kind", ref.Kind, allowedKinds))
	}
	if ref.Name == "" {
		allErrs = append(allErrs, errors.Required("roleRef.name", ""))
	} else {
		for _, msg := range ValidateRBACName(ref.Name, false) {
			allErrs = append(allErrs, errors.Invalid("roleRef.name", ref.Name, msg))
		}
	}
	return allErrs
}

// validateSubjects checks who a binding grants to. A ServiceAccount subject
// needs a namespace in a ClusterRoleBinding (a RoleBinding defaults it to
// its own); users and groups belong to the RBAC API group.
func validateSubjects(subjects []api.Subject, namespaced bool) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i, s := range subjects {
		subjectPath := index("subjects", i)
		if s.Name == "" {
			allErrs = append(allErrs, errors.Required(child(subjectPath, "name"), ""))
		}
		switch s.Kind {
		case api.ServiceAccountKind:
			if s.Name != "" {
				allErrs = append(allErrs, validateDNS1123Subdomain(s.Name, child(subjectPath, "name"))...)
			}
			if s.APIGroup != "" {
				allErrs = append(allErrs, errors.NotSupported(child(subjectPath, "apiGroup"), s.APIGroup, []string{""}))
			}
			if !namespaced && s.Namespace == "" {
				allErrs = append(allErrs, errors.Required(child(subjectPath, "namespace"), ""))
			}
		case api.UserKind, api.GroupKind:
			// An empty apiGroup is defaulted to the RBAC group.
			if s.APIGroup != "" && s.APIGroup != api.RBACGroupName {
				allErrs = append(allErrs, errors.NotSupported(child(subjectPath, "apiGroup"), s.APIGroup, []string{api.RBACGroupName}))
			}
		default:
			allErrs = append(allErrs, errors.NotSupported(child(subjectPath, "kind"), s.Kind,
				[]string{api.ServiceAccountKind, api.UserKind, api.GroupKind}))
		}
	}
	return allErrs
}

func validateRoleBinding(b *api.RoleBinding) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&b.ObjectMeta, true, ValidateRBACName, "metadata")
	allErrs = append(allErrs, validateRoleRef(b.RoleRef, []string{"Role", "ClusterRole"})...)
	return append(allErrs, validateSubjects(b.Subjects, true)...)
}

// validateRoleBindingUpdate checks an update; roleRef is fixed, because
// changing what a binding grants should be a visible delete and create.
func validateRoleBindingUpdate(b, old *api.RoleBinding) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&b.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, validateRoleRef(b.RoleRef, []string{"Role", "ClusterRole"})...)
	allErrs = append(allErrs, validateSubjects(b.Subjects, true)...)
	return append(allErrs, validateRoleRefUnchanged(b.RoleRef, old.RoleRef)...)
}

func validateClusterRoleBinding(b *api.ClusterRoleBinding) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&b.ObjectMeta, false, ValidateRBACName, "metadata")
	allErrs = append(allErrs, validateRoleRef(b.RoleRef, []string{"ClusterRole"})...)
	return append(allErrs, validateSubjects(b.Subjects, false)...)
}

func validateClusterRoleBindingUpdate(b, old *api.ClusterRoleBinding) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&b.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, validateRoleRef(b.RoleRef, []string{"ClusterRole"})...)
	allErrs = append(allErrs, validateSubjects(b.Subjects, false)...)
	return append(allErrs, validateRoleRefUnchanged(b.RoleRef, old.RoleRef)...)
}

func validateRoleRefUnchanged(ref, old api.RoleRef) errors.FieldErrorList {
	if ref == old {
		return nil
	}
	return errors.FieldErrorList{errors.Invalid("roleRef", ref, "cannot change roleRef")}
}
