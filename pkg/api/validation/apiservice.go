package validation

import (
	"fmt"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// validateAPIService checks an apiregistration.k8s.io/v1 APIService as
// upstream's kube-aggregator validation does: the name must be
// "<version>.<group>", only the core group's v1 may have an empty group,
// the priorities lie in their ranges, a Local APIService (no service)
// carries no TLS settings, and a service reference names a namespace, a
// name and a valid port.
func validateAPIService(s *api.APIService) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&s.ObjectMeta, false, func(name string, prefix bool) []string {
		if problems := IsValidPathSegmentName(name); len(problems) > 0 {
			return problems
		}
		return apiServiceNameErrors(s, name)
	}, "metadata")
	return append(allErrs, validateAPIServiceSpec(&s.Spec)...)
}

// apiServiceNameErrors checks name (s's name, or its generateName on a
// create) against upstream's naming rule: an APIService is named
// "<version>.<group>" ("v1beta1.metrics.k8s.io", "v1." for the core group).
func apiServiceNameErrors(s *api.APIService, name string) []string {
	if want := s.Spec.Version + "." + s.Spec.Group; name != want {
		return []string{fmt.Sprintf("must be `spec.version+\".\"+spec.group`: %q", want)}
	}
	return nil
}

// validateAPIServiceUpdate checks an update: the same rules as a create
// (the name is fixed, so group and version cannot move either).
func validateAPIServiceUpdate(s, old *api.APIService) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta, "metadata")
	for _, problem := range apiServiceNameErrors(s, s.Name) {
		allErrs = append(allErrs, errors.Invalid("metadata.name", s.Name, problem))
	}
	return append(allErrs, validateAPIServiceSpec(&s.Spec)...)
}

func validateAPIServiceSpec(spec *api.APIServiceSpec) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if spec.Group == "" && spec.Version != "v1" {
		allErrs = append(allErrs, errors.Required("spec.group", "only v1 may have an empty group and it better be legacy kube"))
	}
	if spec.Group != "" {
		for _, problem := range IsDNS1123Subdomain(spec.Group) {
			allErrs = append(allErrs, errors.Invalid("spec.group", spec.Group, problem))
		}
	}
	for _, problem := range IsDNS1035Label(spec.Version) {
		allErrs = append(allErrs, errors.Invalid("spec.version", spec.Version, problem))
	}
	if spec.GroupPriorityMinimum <= 0 || spec.GroupPriorityMinimum > 20000 {
		allErrs = append(allErrs, errors.Invalid("spec.groupPriorityMinimum", spec.GroupPriorityMinimum, "must be positive and less than 20000"))
	}
	if spec.VersionPriority <= 0 || spec.VersionPriority > 1000 {
		allErrs = append(allErrs, errors.Invalid("spec.versionPriority", spec.VersionPriority, "must be positive and less than 1000"))
	}
	if spec.Service == nil {
		if len(spec.CABundle) != 0 {
			allErrs = append(allErrs, errors.Invalid("spec.caBundle", fmt.Sprintf("%d bytes", len(spec.CABundle)), "local APIServices may not have a caBundle"))
		}
		if spec.InsecureSkipTLSVerify {
			allErrs = append(allErrs, errors.Invalid("spec.insecureSkipTLSVerify", true, "local APIServices may not have insecureSkipTLSVerify"))
		}
		return allErrs
	}
	if spec.Service.Namespace == "" {
		allErrs = append(allErrs, errors.Required("spec.service.namespace", ""))
	}
	if spec.Service.Name == "" {
		allErrs = append(allErrs, errors.Required("spec.service.name", ""))
	}
	port := 0
	if spec.Service.Port != nil {
		port = int(*spec.Service.Port)
	}
	if problems := IsValidPortNum(port); len(problems) > 0 {
		allErrs = append(allErrs, errors.Invalid("spec.service.port", port, "port is not valid: "+strings.Join(problems, ", ")))
	}
	if spec.InsecureSkipTLSVerify && len(spec.CABundle) > 0 {
		allErrs = append(allErrs, errors.Invalid("spec.insecureSkipTLSVerify", true, "may not be true if caBundle is present"))
	}
	return allErrs
}
