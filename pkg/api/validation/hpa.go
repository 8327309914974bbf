package validation

import (
	"slices"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// validMetricSourceTypes are the metric kinds an HPA can follow.
var validMetricSourceTypes = []string{
	string(api.ContainerResourceMetricSourceType), string(api.ExternalMetricSourceType), string(api.ObjectMetricSourceType),
	string(api.PodsMetricSourceType), string(api.ResourceMetricSourceType),
}

// validateHorizontalPodAutoscaler checks an HPA: what it scales
// (scaleTargetRef), the replica bounds (1 ≤ minReplicas ≤ maxReplicas), the
// metrics it follows and its scaling behavior.
func validateHorizontalPodAutoscaler(hpa *api.HorizontalPodAutoscaler) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&hpa.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validateHPASpec(&hpa.Spec, "spec")...)
}

func validateHorizontalPodAutoscalerUpdate(hpa, old *api.HorizontalPodAutoscaler) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&hpa.ObjectMeta, &old.ObjectMeta, "metadata")
	return append(allErrs, validateHPASpec(&hpa.Spec, "spec")...)
}

func validateHPASpec(spec *api.HorizontalPodAutoscalerSpec, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	// Scaling to zero would need a metric that does not come from the pods
	// themselves; kplane, like a default upstream cluster, does not allow it.
	if spec.MinReplicas != nil && *spec.MinReplicas < 1 {
		allErrs = append(allErrs, errors.Invalid(child(fldPath, "minReplicas"), *spec.MinReplicas, "must be greater than or equal to 1"))
	}
	maxPath := child(fldPath, "maxReplicas")
	if spec.MaxReplicas < 1 {
		allErrs = append(allErrs, errors.Invalid(maxPath, spec.MaxReplicas, "must be greater than 0"))
	}
	if spec.MinReplicas != nil && spec.MaxReplicas < *spec.MinReplicas {
		allErrs = append(allErrs, errors.Invalid(maxPath, spec.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	// As upstream, metrics and behavior are only checked once the target is.
	if refErrs := validateCrossVersionObjectReference(spec.ScaleTargetRef, child(fldPath, "scaleTargetRef")); len(refErrs) > 0 {
		return append(allErrs, refErrs...)
	}
	for i := range spec.Metrics {
		allErrs = append(allErrs, validateMetricSpec(&spec.Metrics[i], index(child(fldPath, "metrics"), i))...)
	}
	if b := spec.Behavior; b != nil {
		allErrs = append(allErrs, validateScalingRules(b.ScaleUp, child(fldPath, "behavior", "scaleUp"))...)
		allErrs = append(allErrs, validateScalingRules(b.ScaleDown, child(fldPath, "behavior", "scaleDown"))...)
	}
	return allErrs
}

// validateCrossVersionObjectReference checks a reference by kind and name
// (such as scaleTargetRef: Deployment/web); both become URL path segments
// when the HPA reads the target's scale subresource.
func validateCrossVersionObjectReference(ref api.CrossVersionObjectReference, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for _, part := range []struct{ name, value string }{{"kind", ref.Kind}, {"name", ref.Name}} {
		partPath := child(fldPath, part.name)
		if part.value == "" {
			allErrs = append(allErrs, errors.Required(partPath, ""))
			continue
		}
		for _, msg := range IsValidPathSegmentName(part.value) {
			allErrs = append(allErrs, errors.Invalid(partPath, part.value, msg))
		}
	}
	return allErrs
}

// validateMetricSpec checks one metric: a known type, whose member (and only
// that member) is filled in.
func validateMetricSpec(spec *api.MetricSpec, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	typePath := child(fldPath, "type")
	if spec.Type == "" {
		allErrs = append(allErrs, errors.Required(typePath, "must specify a metric source type"))
	} else if !slices.Contains(validMetricSourceTypes, string(spec.Type)) {
		allErrs = append(allErrs, errors.NotSupported(typePath, string(spec.Type), validMetricSourceTypes))
	}
	present := map[string]bool{}
	if spec.Object != nil {
		present["object"] = true
		allErrs = append(allErrs, validateCrossVersionObjectReference(spec.Object.DescribedObject, child(fldPath, "object", "describedObject"))...)
		allErrs = append(allErrs, validateMetricIdentifier(spec.Object.Metric, child(fldPath, "object", "metric"))...)
		allErrs = append(allErrs, validateValueTarget(spec.Object.Target, child(fldPath, "object", "target"))...)
	}
	if spec.Pods != nil {
		present["pods"] = true
		allErrs = append(allErrs, validateMetricIdentifier(spec.Pods.Metric, child(fldPath, "pods", "metric"))...)
		allErrs = append(allErrs, validateMetricTarget(spec.Pods.Target, child(fldPath, "pods", "target"))...)
		if spec.Pods.Target.AverageValue == nil {
			allErrs = append(allErrs, errors.Required(child(fldPath, "pods", "target", "averageValue"), "must specify a positive target averageValue"))
		}
	}
	if spec.Resource != nil {
		present["resource"] = true
		allErrs = append(allErrs, validateResourceMetric(spec.Resource.Name, spec.Resource.Target, child(fldPath, "resource"))...)
	}
	if spec.ContainerResource != nil {
		present["containerresource"] = true
		p := child(fldPath, "containerResource")
		if spec.ContainerResource.Container == "" {
			allErrs = append(allErrs, errors.Required(child(p, "container"), "must specify a container"))
		} else {
			allErrs = append(allErrs, validateDNS1123Label(spec.ContainerResource.Container, child(p, "container"))...)
		}
		allErrs = append(allErrs, validateResourceMetric(spec.ContainerResource.Name, spec.ContainerResource.Target, p)...)
	}
	if spec.External != nil {
		present["external"] = true
		allErrs = append(allErrs, validateMetricIdentifier(spec.External.Metric, child(fldPath, "external", "metric"))...)
		allErrs = append(allErrs, validateValueTarget(spec.External.Target, child(fldPath, "external", "target"))...)
	}
	expected := strings.ToLower(string(spec.Type))
	if spec.Type != "" && !present[expected] {
		allErrs = append(allErrs, errors.Required(child(fldPath, jsonMetricField(expected)), "must populate information for the given metric source"))
	}
	for _, field := range []string{"object", "pods", "resource", "containerresource", "external"} {
		if present[field] && field != expected {
			allErrs = append(allErrs, errors.Forbidden(child(fldPath, jsonMetricField(field)), "must populate the given metric source only"))
		}
	}
	return allErrs
}

// jsonMetricField maps a lower-cased metric type to its JSON field name.
func jsonMetricField(lower string) string {
	if lower == "containerresource" {
		return "containerResource"
	}
	return lower
}

// validateResourceMetric checks a CPU or memory metric: a container
// resource, targeted either as a utilization percentage of requests or as an
// average raw value, not both.
func validateResourceMetric(name string, target api.MetricTarget, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if name == "" {
		allErrs = append(allErrs, errors.Required(child(fldPath, "name"), "must specify a resource name"))
	} else {
		allErrs = append(allErrs, validateContainerResourceName(name, child(fldPath, "name"))...)
	}
	targetPath := child(fldPath, "target")
	allErrs = append(allErrs, validateMetricTarget(target, targetPath)...)
	switch {
	case target.AverageUtilization == nil && target.AverageValue == nil:
		allErrs = append(allErrs, errors.Required(child(targetPath, "averageUtilization"), "must set either a target raw value or a target utilization"))
	case target.AverageUtilization != nil && target.AverageValue != nil:
		allErrs = append(allErrs, errors.Forbidden(child(targetPath, "averageValue"), "may not set both a target raw value and a target utilization"))
	}
	return allErrs
}

// validateValueTarget checks the target of an Object or External metric,
// which is a total value or a per-pod average.
func validateValueTarget(target api.MetricTarget, fldPath string) errors.FieldErrorList {
	allErrs := validateMetricTarget(target, fldPath)
	if target.Value == nil && target.AverageValue == nil {
		allErrs = append(allErrs, errors.Required(child(fldPath, "averageValue"), "must set either a target value or averageValue"))
	}
	return allErrs
}

func validateMetricTarget(target api.MetricTarget, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	switch target.Type {
	case "":
		allErrs = append(allErrs, errors.Required(child(fldPath, "type"), "must specify a metric target type"))
	case api.UtilizationMetricType, api.ValueMetricType, api.AverageValueMetricType:
	default:
		allErrs = append(allErrs, errors.Invalid(child(fldPath, "type"), string(target.Type), "must be either Utilization, Value, or AverageValue"))
	}
	if target.Value != nil && target.Value.Sign() != 1 {
		allErrs = append(allErrs, errors.Invalid(child(fldPath, "value"), target.Value.String(), "must be positive"))
	}
	if target.AverageValue != nil && target.AverageValue.Sign() != 1 {
		allErrs = append(allErrs, errors.Invalid(child(fldPath, "averageValue"), target.AverageValue.String(), "must be positive"))
	}
	if u := target.AverageUtilization; u != nil && *u < 1 {
		allErrs = append(allErrs, errors.Invalid(child(fldPath, "averageUtilization"), *u, "must be greater than 0"))
	}
	return allErrs
}

func validateMetricIdentifier(id api.MetricIdentifier, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if id.Name == "" {
		allErrs = append(allErrs, errors.Required(child(fldPath, "name"), "must specify a metric name"))
	} else {
		for _, msg := range IsValidPathSegmentName(id.Name) {
			allErrs = append(allErrs, errors.Invalid(child(fldPath, "name"), id.Name, msg))
		}
	}
	return append(allErrs, ValidateLabelSelector(id.Selector, child(fldPath, "selector"))...)
}

// The bounds upstream puts on scaling rules.
const (
	maxStabilizationWindowSeconds = 3600
	maxScalingPeriodSeconds       = 1800
)

func validateScalingRules(rules *api.HPAScalingRules, fldPath string) errors.FieldErrorList {
	if rules == nil {
		return nil
	}
	var allErrs errors.FieldErrorList
	if w := rules.StabilizationWindowSeconds; w != nil {
		windowPath := child(fldPath, "stabilizationWindowSeconds")
		if *w < 0 {
			allErrs = append(allErrs, errors.Invalid(windowPath, *w, isNegative))
		} else if *w > maxStabilizationWindowSeconds {
			allErrs = append(allErrs, errors.Invalid(windowPath, *w, "must be less than or equal to 3600"))
		}
	}
	if p := rules.SelectPolicy; p != nil {
		switch *p {
		case api.MaxChangePolicySelect, api.MinChangePolicySelect, api.DisabledPolicySelect:
		default:
			allErrs = append(allErrs, errors.NotSupported(child(fldPath, "selectPolicy"), string(*p),
				[]string{string(api.DisabledPolicySelect), string(api.MaxChangePolicySelect), string(api.MinChangePolicySelect)}))
		}
	}
	// Defaulting fills a missing list; an empty one written out is refused.
	if len(rules.Policies) == 0 {
		allErrs = append(allErrs, errors.Required(child(fldPath, "policies"), "must specify at least one Policy"))
	}
	for i, policy := range rules.Policies {
		policyPath := index(child(fldPath, "policies"), i)
		switch policy.Type {
		case api.PodsScalingPolicy, api.PercentScalingPolicy:
		default:
			allErrs = append(allErrs, errors.NotSupported(child(policyPath, "type"), string(policy.Type),
				[]string{string(api.PercentScalingPolicy), string(api.PodsScalingPolicy)}))
		}
		if policy.Value <= 0 {
			allErrs = append(allErrs, errors.Invalid(child(policyPath, "value"), policy.Value, "must be greater than zero"))
		}
		switch {
		case policy.PeriodSeconds <= 0:
			allErrs = append(allErrs, errors.Invalid(child(policyPath, "periodSeconds"), policy.PeriodSeconds, "must be greater than zero"))
		case policy.PeriodSeconds > maxScalingPeriodSeconds:
			allErrs = append(allErrs, errors.Invalid(child(policyPath, "periodSeconds"), policy.PeriodSeconds, "must be less than or equal to 1800"))
		}
	}
	return allErrs
}

// validateHorizontalPodAutoscalerV1 checks an autoscaling/v1 HPA as the
// autoscaling/v2 HPA it is stored as, after checking that the annotations
// carrying what v1 has no field for parse (upstream's conversion fails on
// them otherwise).
func validateHorizontalPodAutoscalerV1(hpa *api.HorizontalPodAutoscalerV1) errors.FieldErrorList {
	v2, bad := hpa.ToV2Checked()
	allErrs := validateHPARoundTripAnnotations(&hpa.ObjectMeta, bad)
	return append(allErrs, validateHorizontalPodAutoscaler(v2)...)
}

func validateHorizontalPodAutoscalerV1Update(hpa, old *api.HorizontalPodAutoscalerV1) errors.FieldErrorList {
	v2, bad := hpa.ToV2Checked()
	allErrs := validateHPARoundTripAnnotations(&hpa.ObjectMeta, bad)
	return append(allErrs, validateHorizontalPodAutoscalerUpdate(v2, old.ToV2())...)
}

// validateHPARoundTripAnnotations refuses the round-trip annotations of
// meta that did not parse (bad, from ToV2Checked), in a stable order.
func validateHPARoundTripAnnotations(meta *api.ObjectMeta, bad map[string]error) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	names := make([]string, 0, len(bad))
	for name := range bad {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		allErrs = append(allErrs, errors.Invalid("metadata.annotations["+name+"]", meta.Annotations[name], bad[name].Error()))
	}
	return allErrs
}
