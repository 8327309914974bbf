package validation

import (
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// validateNamespace checks a Namespace: a cluster-scoped object whose name is
// a DNS label (it appears in every DNS name of its services), and whose
// finalizers are either "kubernetes" or qualified with a domain.
func validateNamespace(ns *api.Namespace) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&ns.ObjectMeta, false, ValidateNamespaceName, "metadata")
	return append(allErrs, validateNamespaceFinalizers(ns.Spec.Finalizers, "spec.finalizers")...)
}

func validateNamespaceUpdate(ns, old *api.Namespace) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&ns.ObjectMeta, &old.ObjectMeta, "metadata")
	return append(allErrs, validateNamespaceFinalizers(ns.Spec.Finalizers, "spec.finalizers")...)
}

func validateNamespaceFinalizers(finalizers []string, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for _, f := range finalizers {
		for _, msg := range IsQualifiedName(f) {
			allErrs = append(allErrs, errors.Invalid(fldPath, f, msg))
		}
		if len(IsQualifiedName(f)) == 0 && !strings.Contains(f, "/") && f != api.FinalizerKubernetes {
			allErrs = append(allErrs, errors.Invalid(fldPath, f, "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return allErrs
}
