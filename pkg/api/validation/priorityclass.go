package validation

import (
	"fmt"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// preemptionPolicies are the policies a PriorityClass or a pod may name,
// in the order upstream lists them.
var preemptionPolicies = []string{string(api.PreemptLowerPriority), string(api.PreemptNever)}

// validatePriorityClass checks a PriorityClass being created, with
// upstream's messages. A name starting with "system-" is reserved: only
// the system classes themselves (api.SystemPriorityClasses), with their
// own value and globalDefault, may carry it. Any other class may go up to
// api.HighestUserDefinablePriority, so that no user's pod outranks the
// system's.
//
// That only one class is the global default is not checked here: it
// depends on the other classes, and the apiserver's Priority admission
// checks it (pkg/apiserver/admission_priority.go), as upstream's does.
func validatePriorityClass(class *api.PriorityClass) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&class.ObjectMeta, false, NameIsDNSSubdomain, "metadata")
	if strings.HasPrefix(class.Name, api.SystemPriorityClassPrefix) {
		if err := checkSystemPriorityClass(class); err != nil {
			allErrs = append(allErrs, errors.Forbidden("metadata.name",
				"priority class names with '"+api.SystemPriorityClassPrefix+"' prefix are reserved for system use only. error: "+err.Error()))
		}
	} else if class.Value > api.HighestUserDefinablePriority {
		allErrs = append(allErrs, errors.Forbidden("value",
			fmt.Sprintf("maximum allowed value of a user defined priority is %d", api.HighestUserDefinablePriority)))
	}
	if class.PreemptionPolicy != nil {
		allErrs = append(allErrs, validatePreemptionPolicy(*class.PreemptionPolicy, "preemptionPolicy")...)
	}
	return allErrs
}

// validatePriorityClassUpdate keeps value and preemptionPolicy as they
// were: the pods of the class were admitted with them, and changing the
// class would not change those pods. The description and globalDefault
// may change.
func validatePriorityClassUpdate(class, old *api.PriorityClass) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&class.ObjectMeta, &old.ObjectMeta, "metadata")
	if class.Value != old.Value {
		allErrs = append(allErrs, errors.Forbidden("value", "may not be changed in an update."))
	}
	return append(allErrs, ValidateImmutableField(class.PreemptionPolicy, old.PreemptionPolicy, "preemptionPolicy")...)
}

// checkSystemPriorityClass says why class, named system-…, is not one of
// the system classes exactly (upstream's IsKnownSystemPriorityClass), or
// nil when it is.
func checkSystemPriorityClass(class *api.PriorityClass) error {
	for _, system := range api.SystemPriorityClasses() {
		if system.Name != class.Name {
			continue
		}
		if system.Value != class.Value {
			return fmt.Errorf("value of %s PriorityClass must be %d", system.Name, system.Value)
		}
		if system.GlobalDefault != class.GlobalDefault {
			return fmt.Errorf("globalDefault of %s PriorityClass must be %t", system.Name, system.GlobalDefault)
		}
		return nil
	}
	return fmt.Errorf("%s is not a known system priority class", class.Name)
}

// validatePreemptionPolicy checks a preemption policy that is set.
func validatePreemptionPolicy(policy api.PreemptionPolicy, fldPath string) errors.FieldErrorList {
	switch policy {
	case api.PreemptLowerPriority, api.PreemptNever:
		return nil
	case "":
		return errors.FieldErrorList{errors.Required(fldPath, "")}
	}
	return errors.FieldErrorList{errors.NotSupported(fldPath, string(policy), preemptionPolicies)}
}
