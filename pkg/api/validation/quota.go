package validation

import (
	"fmt"
	"slices"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
	"kplane/pkg/quota"
)

// standardQuotaResources are the unprefixed names a ResourceQuota may limit;
// anything else must carry a domain or "count/" prefix.
var standardQuotaResources = map[string]bool{
	api.ResourcePods: true, api.ResourceServices: true, api.ResourceReplicationControllers: true,
	api.ResourceQuotas: true, api.ResourceSecrets: true, api.ResourceConfigMaps: true,
	api.ResourcePersistentVolumeClaims: true, api.ResourceServicesNodePorts: true, api.ResourceServicesLoadBalancers: true,
	api.ResourceRequestsCPU: true, api.ResourceRequestsMemory: true, api.ResourceRequestsStorage: true,
	api.ResourceRequestsEphemeral: true, api.ResourceLimitsCPU: true, api.ResourceLimitsMemory: true,
	api.ResourceLimitsEphemeral: true, api.ResourceCPU: true, api.ResourceMemory: true, api.ResourceEphemeralStorage: true,
}

// isIntegerQuotaResource reports whether a quota resource counts objects,
// which come in whole numbers.
func isIntegerQuotaResource(name string) bool {
	switch name {
	case api.ResourcePods, api.ResourceServices, api.ResourceReplicationControllers, api.ResourceQuotas,
		api.ResourceSecrets, api.ResourceConfigMaps, api.ResourcePersistentVolumeClaims,
		api.ResourceServicesNodePorts, api.ResourceServicesLoadBalancers:
		return true
	}
	return strings.HasPrefix(name, "count/")
}

var supportedQuotaScopes = []string{
	string(api.ResourceQuotaScopeBestEffort), "CrossNamespacePodAffinity", string(api.ResourceQuotaScopeNotBestEffort),
	string(api.ResourceQuotaScopeNotTerminating), string(api.ResourceQuotaScopePriorityClass), string(api.ResourceQuotaScopeTerminating),
}

// validateResourceQuota checks a ResourceQuota: known resource names, amounts
// that are not negative (and whole, for object counts), and known scopes.
func validateResourceQuota(q *api.ResourceQuota) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&q.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validateResourceQuotaSpec(&q.Spec)...)
}

func validateResourceQuotaUpdate(q, old *api.ResourceQuota) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&q.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, validateResourceQuotaSpec(&q.Spec)...)
	// Which pods a quota counts may not change under it.
	allErrs = append(allErrs, ValidateImmutableField(q.Spec.Scopes, old.Spec.Scopes, "spec.scopes")...)
	return append(allErrs, ValidateImmutableField(q.Spec.ScopeSelector, old.Spec.ScopeSelector, "spec.scopeSelector")...)
}

func validateResourceQuotaSpec(spec *api.ResourceQuotaSpec) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for _, name := range sortedKeys(spec.Hard) {
		resPath := key("spec.hard", name)
		allErrs = append(allErrs, validateResourceName(name, resPath)...)
		if !strings.Contains(name, "/") && !standardQuotaResources[name] && !strings.HasPrefix(name, "hugepages-") && !strings.HasPrefix(name, "requests.hugepages-") {
			allErrs = append(allErrs, errors.Invalid(resPath, name, "must be a standard resource for quota"))
		}
		value := spec.Hard[name]
		allErrs = append(allErrs, validateNonnegativeQuantity(value, resPath)...)
		if isIntegerQuotaResource(name) && value.MilliValue()%1000 != 0 {
			allErrs = append(allErrs, errors.Invalid(resPath, value.String(), "must be an integer"))
		}
	}
	scopes := map[api.ResourceQuotaScope]bool{}
	for _, scope := range spec.Scopes {
		if !slices.Contains(supportedQuotaScopes, string(scope)) {
			allErrs = append(allErrs, errors.NotSupported("spec.scopes", string(scope), supportedQuotaScopes))
		}
		if !scopeFitsHard(scope, spec.Hard) {
			allErrs = append(allErrs, errors.Invalid("spec.scopes", spec.Scopes, "unsupported scope applied to resource"))
		}
		scopes[scope] = true
	}
	conflicting := [][2]api.ResourceQuotaScope{
		{api.ResourceQuotaScopeBestEffort, api.ResourceQuotaScopeNotBestEffort},
		{api.ResourceQuotaScopeTerminating, api.ResourceQuotaScopeNotTerminating},
	}
	for _, pair := range conflicting {
		if scopes[pair[0]] && scopes[pair[1]] {
			allErrs = append(allErrs, errors.Invalid("spec.scopes", spec.Scopes, "conflicting scopes"))
		}
	}
	if sel := spec.ScopeSelector; sel != nil {
		for i, req := range sel.MatchExpressions {
			reqPath := index("spec.scopeSelector.matchExpressions", i)
			if !slices.Contains(supportedQuotaScopes, string(req.ScopeName)) {
				allErrs = append(allErrs, errors.NotSupported(child(reqPath, "scopeName"), string(req.ScopeName), supportedQuotaScopes))
			}
			if !scopeFitsHard(req.ScopeName, spec.Hard) {
				allErrs = append(allErrs, errors.Invalid(child(reqPath, "scopeName"), req.ScopeName, "unsupported scope applied to resource"))
			}
			switch req.Operator {
			case api.LabelSelectorOpIn, api.LabelSelectorOpNotIn, api.LabelSelectorOpExists, api.LabelSelectorOpDoesNotExist:
			default:
				allErrs = append(allErrs, errors.Invalid(child(reqPath, "operator"), req.Operator, "not a valid selector operator"))
			}
		}
	}
	return allErrs
}

// scopeFitsHard reports whether every standard resource of hard can be
// limited under scope: a BestEffort quota counts only pods, the other pod
// scopes pods and their cpu and memory (upstream's validation).
func scopeFitsHard(scope api.ResourceQuotaScope, hard api.ResourceList) bool {
	for _, name := range sortedKeys(hard) {
		if standardQuotaResources[name] && !quota.ScopeAllowsResource(scope, name) {
			return false
		}
	}
	return true
}

var standardLimitTypes = []string{string(api.LimitTypeContainer), string(api.LimitTypePersistentVolumeClaim), string(api.LimitTypePod)}

// validateLimitRange checks a LimitRange. For each resource the bounds must
// nest: min ≤ defaultRequest ≤ default ≤ max, and maxLimitRequestRatio at
// least 1. Pods have no defaults (those are per container), and each type
// may appear once.
func validateLimitRange(lr *api.LimitRange) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&lr.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validateLimitRangeSpec(&lr.Spec)...)
}

func validateLimitRangeUpdate(lr, old *api.LimitRange) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&lr.ObjectMeta, &old.ObjectMeta, "metadata")
	return append(allErrs, validateLimitRangeSpec(&lr.Spec)...)
}

func validateLimitRangeSpec(spec *api.LimitRangeSpec) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	seenTypes := map[api.LimitType]bool{}
	for i := range spec.Limits {
		item := &spec.Limits[i]
		itemPath := index("spec.limits", i)
		typePath := child(itemPath, "type")
		for _, msg := range IsQualifiedName(string(item.Type)) {
			allErrs = append(allErrs, errors.Invalid(typePath, string(item.Type), msg))
		}
		if !strings.Contains(string(item.Type), "/") && !slices.Contains(standardLimitTypes, string(item.Type)) {
			allErrs = append(allErrs, errors.Invalid(typePath, string(item.Type), "must be a standard limit type or fully qualified"))
		}
		if seenTypes[item.Type] {
			allErrs = append(allErrs, errors.Duplicate(typePath, string(item.Type)))
		}
		seenTypes[item.Type] = true

		if item.Type == api.LimitTypePod {
			if len(item.Default) > 0 {
				allErrs = append(allErrs, errors.Forbidden(child(itemPath, "default"), "may not be specified when `type` is 'Pod'"))
			}
			if len(item.DefaultRequest) > 0 {
				allErrs = append(allErrs, errors.Forbidden(child(itemPath, "defaultRequest"), "may not be specified when `type` is 'Pod'"))
			}
		}
		if item.Type == api.LimitTypePersistentVolumeClaim {
			_, hasMin := item.Min[api.ResourceStorage]
			_, hasMax := item.Max[api.ResourceStorage]
			if !hasMin && !hasMax {
				allErrs = append(allErrs, errors.Required(child(itemPath, "limits"), "either minimum or maximum storage value is required, but neither was provided"))
			}
		}
		allErrs = append(allErrs, validateLimitRangeBounds(item, itemPath)...)
	}
	return allErrs
}

// validateLimitRangeBounds checks the resource names of one limit and that
// its bounds nest.
func validateLimitRangeBounds(item *api.LimitRangeItem, itemPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	lists := []struct {
		name string
		list api.ResourceList
	}{{"max", item.Max}, {"min", item.Min}, {"default", item.Default}, {"defaultRequest", item.DefaultRequest}, {"maxLimitRequestRatio", item.MaxLimitRequestRatio}}
	names := map[string]bool{}
	for _, l := range lists {
		for _, name := range sortedKeys(l.list) {
			names[name] = true
			namePath := key(child(itemPath, l.name), name)
			if item.Type == api.LimitTypePersistentVolumeClaim {
				if name != api.ResourceStorage {
					allErrs = append(allErrs, errors.NotSupported(namePath, name, []string{api.ResourceStorage}))
				}
			} else if item.Type == api.LimitTypePod || item.Type == api.LimitTypeContainer {
				allErrs = append(allErrs, validateContainerResourceName(name, namePath)...)
			}
			allErrs = append(allErrs, validateNonnegativeQuantity(l.list[name], namePath)...)
		}
	}
	for _, name := range sortedKeys(names) {
		lo, hasMin := item.Min[name]
		hi, hasMax := item.Max[name]
		def, hasDefault := item.Default[name]
		req, hasRequest := item.DefaultRequest[name]
		ratio, hasRatio := item.MaxLimitRequestRatio[name]
		if hasMin && hasMax && lo.Cmp(hi) > 0 {
			allErrs = append(allErrs, errors.Invalid(key(child(itemPath, "min"), name), lo.String(), fmt.Sprintf("min value %s is greater than max value %s", lo.String(), hi.String())))
		}
		if hasRequest && hasMin && lo.Cmp(req) > 0 {
			allErrs = append(allErrs, errors.Invalid(key(child(itemPath, "defaultRequest"), name), req.String(), fmt.Sprintf("min value %s is greater than default request value %s", lo.String(), req.String())))
		}
		if hasRequest && hasMax && req.Cmp(hi) > 0 {
			allErrs = append(allErrs, errors.Invalid(key(child(itemPath, "defaultRequest"), name), req.String(), fmt.Sprintf("default request value %s is greater than max value %s", req.String(), hi.String())))
		}
		if hasRequest && hasDefault && req.Cmp(def) > 0 {
			allErrs = append(allErrs, errors.Invalid(key(child(itemPath, "defaultRequest"), name), req.String(), fmt.Sprintf("default request value %s is greater than default limit value %s", req.String(), def.String())))
		}
		if hasDefault && hasMin && lo.Cmp(def) > 0 {
			allErrs = append(allErrs, errors.Invalid(key(child(itemPath, "default"), name), lo.String(), fmt.Sprintf("min value %s is greater than default value %s", lo.String(), def.String())))
		}
		if hasDefault && hasMax && def.Cmp(hi) > 0 {
			allErrs = append(allErrs, errors.Invalid(key(child(itemPath, "default"), name), hi.String(), fmt.Sprintf("default value %s is greater than max value %s", def.String(), hi.String())))
		}
		if hasRatio && ratio.Cmp(api.NewQuantity(1, api.DecimalSI)) < 0 {
			allErrs = append(allErrs, errors.Invalid(key(child(itemPath, "maxLimitRequestRatio"), name), ratio.String(), fmt.Sprintf("ratio %s is less than 1", ratio.String())))
		}
		if hasRatio && hasMin && hasMax {
			// No container can reach a ratio above max/min: its limit is
			// at most max and its request at least min.
			if value, most := ratioAgainstMaxOverMin(ratio, lo, hi); value > most {
				allErrs = append(allErrs, errors.Invalid(key(child(itemPath, "maxLimitRequestRatio"), name), ratio.String(),
					fmt.Sprintf("ratio %s is greater than max/min = %f", ratio.String(), most)))
			}
		}
		if !overcommitAllowed(name) && hasDefault && hasRequest && def.Cmp(req) != 0 {
			// A hugepage or an extended resource (a GPU) cannot be
			// overcommitted: a container's request must equal its limit.
			allErrs = append(allErrs, errors.Invalid(key(child(itemPath, "defaultRequest"), name), req.String(),
				fmt.Sprintf("default value %s must equal to defaultRequest value %s in %s", def.String(), req.String(), name)))
		}
	}
	return allErrs
}

// ratioAgainstMaxOverMin returns a maxLimitRequestRatio and max/min as
// numbers, computed in thousandths where all three amounts allow, as
// upstream computes them.
func ratioAgainstMaxOverMin(ratio, lo, hi api.Quantity) (value, most float64) {
	if ratio.Value() < api.MaxMilliValue && lo.Value() < api.MaxMilliValue && hi.Value() < api.MaxMilliValue {
		return float64(ratio.MilliValue()) / 1000, float64(hi.MilliValue()) / float64(lo.MilliValue())
	}
	return float64(ratio.Value()), float64(hi.Value()) / float64(lo.Value())
}

// overcommitAllowed reports whether a resource's request may be below its
// limit: true for cpu, memory and the other native resources, false for
// hugepages and extended resources (upstream's helper.IsOvercommitAllowed).
func overcommitAllowed(name string) bool {
	return !api.IsExtendedResourceName(name) && !strings.HasPrefix(name, "hugepages-")
}
