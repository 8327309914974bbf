package validation

import (
	"fmt"
	"strconv"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// This file checks what a pod tells the scheduler: tolerations, node and pod
// (anti-)affinity, and topology spread constraints.

// taintEffects are the effects a taint (or a toleration) may name, in the
// order upstream lists them.
var taintEffects = []string{string(api.TaintEffectNoSchedule), string(api.TaintEffectPreferNoSchedule), string(api.TaintEffectNoExecute)}

// validateTaintEffect checks a taint's effect; a toleration may leave it
// empty to tolerate every effect.
func validateTaintEffect(effect api.TaintEffect, allowEmpty bool, fldPath string) errors.FieldErrorList {
	switch effect {
	case api.TaintEffectNoSchedule, api.TaintEffectPreferNoSchedule, api.TaintEffectNoExecute:
		return nil
	case "":
		if allowEmpty {
			return nil
		}
		return errors.FieldErrorList{errors.Required(fldPath, "")}
	}
	return errors.FieldErrorList{errors.NotSupported(fldPath, string(effect), taintEffects)}
}

// ValidateTolerations checks a pod's tolerations. An empty key with operator
// Exists tolerates every taint; tolerationSeconds only means something for
// NoExecute taints, the ones that evict.
func ValidateTolerations(tolerations []api.Toleration, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i, t := range tolerations {
		tPath := index(fldPath, i)
		if t.Key != "" {
			allErrs = append(allErrs, ValidateLabelName(t.Key, child(tPath, "key"))...)
		}
		if t.Key == "" && t.Operator != api.TolerationOpExists {
			allErrs = append(allErrs, errors.Invalid(child(tPath, "operator"), string(t.Operator),
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != api.TaintEffectNoExecute {
			allErrs = append(allErrs, errors.Invalid(child(tPath, "effect"), string(t.Effect), "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case api.TolerationOpEqual, "":
			if msgs := IsValidLabelValue(t.Value); len(msgs) != 0 {
				allErrs = append(allErrs, errors.Invalid(child(tPath, "operator"), t.Value, strings.Join(msgs, ";")))
			}
		case api.TolerationOpExists:
			if t.Value != "" {
				allErrs = append(allErrs, errors.Invalid(child(tPath, "operator"), t, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			allErrs = append(allErrs, errors.NotSupported(child(tPath, "operator"), string(t.Operator),
				[]string{string(api.TolerationOpEqual), string(api.TolerationOpExists)}))
		}
		allErrs = append(allErrs, validateTaintEffect(t.Effect, true, child(tPath, "effect"))...)
	}
	return allErrs
}

func validateAffinity(affinity *api.Affinity, fldPath string) errors.FieldErrorList {
	if affinity == nil {
		return nil
	}
	var allErrs errors.FieldErrorList
	if na := affinity.NodeAffinity; na != nil {
		naPath := child(fldPath, "nodeAffinity")
		if na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			allErrs = append(allErrs, validateNodeSelector(na.RequiredDuringSchedulingIgnoredDuringExecution,
				child(naPath, "requiredDuringSchedulingIgnoredDuringExecution"))...)
		}
		for i, term := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			termPath := index(child(naPath, "preferredDuringSchedulingIgnoredDuringExecution"), i)
			allErrs = append(allErrs, validateWeight(term.Weight, child(termPath, "weight"))...)
			allErrs = append(allErrs, validateNodeSelectorTerm(term.Preference, child(termPath, "preference"))...)
		}
	}
	if pa := affinity.PodAffinity; pa != nil {
		allErrs = append(allErrs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, child(fldPath, "podAffinity"))...)
	}
	if pa := affinity.PodAntiAffinity; pa != nil {
		allErrs = append(allErrs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, child(fldPath, "podAntiAffinity"))...)
	}
	return allErrs
}

func validateWeight(weight int32, fldPath string) errors.FieldErrorList {
	if weight <= 0 || weight > 100 {
		return errors.FieldErrorList{errors.Invalid(fldPath, weight, "must be in the range 1-100")}
	}
	return nil
}

func validateNodeSelector(sel *api.NodeSelector, fldPath string) errors.FieldErrorList {
	termsPath := child(fldPath, "nodeSelectorTerms")
	if len(sel.NodeSelectorTerms) == 0 {
		return errors.FieldErrorList{errors.Required(termsPath, "must have at least one node selector term")}
	}
	var allErrs errors.FieldErrorList
	for i, term := range sel.NodeSelectorTerms {
		allErrs = append(allErrs, validateNodeSelectorTerm(term, index(termsPath, i))...)
	}
	return allErrs
}

func validateNodeSelectorTerm(term api.NodeSelectorTerm, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i, req := range term.MatchExpressions {
		allErrs = append(allErrs, validateNodeSelectorRequirement(req, index(child(fldPath, "matchExpressions"), i))...)
	}
	for i, req := range term.MatchFields {
		allErrs = append(allErrs, validateNodeFieldSelectorRequirement(req, index(child(fldPath, "matchFields"), i))...)
	}
	return allErrs
}

// validateNodeSelectorRequirement checks a node label requirement; Gt and Lt
// compare the label as an integer.
func validateNodeSelectorRequirement(req api.NodeSelectorRequirement, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	valuesPath := child(fldPath, "values")
	switch req.Operator {
	case api.NodeSelectorOpIn, api.NodeSelectorOpNotIn:
		if len(req.Values) == 0 {
			allErrs = append(allErrs, errors.Required(valuesPath, "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case api.NodeSelectorOpExists, api.NodeSelectorOpDoesNotExist:
		if len(req.Values) > 0 {
			allErrs = append(allErrs, errors.Forbidden(valuesPath, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case api.NodeSelectorOpGt, api.NodeSelectorOpLt:
		if len(req.Values) != 1 {
			allErrs = append(allErrs, errors.Required(valuesPath, "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		} else if _, err := strconv.ParseInt(req.Values[0], 10, 64); err != nil {
			allErrs = append(allErrs, errors.Invalid(index(valuesPath, 0), req.Values[0], "must be an integer"))
		}
	default:
		allErrs = append(allErrs, errors.Invalid(child(fldPath, "operator"), string(req.Operator), "not a valid selector operator"))
	}
	allErrs = append(allErrs, ValidateLabelName(req.Key, child(fldPath, "key"))...)
	for i, v := range req.Values {
		if req.Operator == api.NodeSelectorOpGt || req.Operator == api.NodeSelectorOpLt {
			break
		}
		for _, msg := range IsValidLabelValue(v) {
			allErrs = append(allErrs, errors.Invalid(index(valuesPath, i), v, msg))
		}
	}
	return allErrs
}

// validateNodeFieldSelectorRequirement checks a matchFields requirement. Only
// metadata.name is supported: it is how a DaemonSet pins each of its pods to
// one node.
func validateNodeFieldSelectorRequirement(req api.NodeSelectorRequirement, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	switch req.Operator {
	case api.NodeSelectorOpIn, api.NodeSelectorOpNotIn:
		if len(req.Values) != 1 {
			allErrs = append(allErrs, errors.Required(child(fldPath, "values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		}
	default:
		allErrs = append(allErrs, errors.Invalid(child(fldPath, "operator"), string(req.Operator), "not a valid selector operator"))
	}
	if req.Key != "metadata.name" {
		allErrs = append(allErrs, errors.NotSupported(child(fldPath, "key"), req.Key, []string{"metadata.name"}))
	}
	return allErrs
}

func validatePodAffinityTerms(required []api.PodAffinityTerm, preferred []api.WeightedPodAffinityTerm, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i, term := range required {
		allErrs = append(allErrs, validatePodAffinityTerm(term, index(child(fldPath, "requiredDuringSchedulingIgnoredDuringExecution"), i))...)
	}
	for i, term := range preferred {
		termPath := index(child(fldPath, "preferredDuringSchedulingIgnoredDuringExecution"), i)
		allErrs = append(allErrs, validateWeight(term.Weight, child(termPath, "weight"))...)
		allErrs = append(allErrs, validatePodAffinityTerm(term.PodAffinityTerm, child(termPath, "podAffinityTerm"))...)
	}
	return allErrs
}

func validatePodAffinityTerm(term api.PodAffinityTerm, fldPath string) errors.FieldErrorList {
	allErrs := ValidateLabelSelector(term.LabelSelector, child(fldPath, "labelSelector"))
	allErrs = append(allErrs, ValidateLabelSelector(term.NamespaceSelector, child(fldPath, "namespaceSelector"))...)
	for _, ns := range term.Namespaces {
		for _, msg := range ValidateNamespaceName(ns, false) {
			allErrs = append(allErrs, errors.Invalid(child(fldPath, "namespace"), ns, msg))
		}
	}
	if term.TopologyKey == "" {
		allErrs = append(allErrs, errors.Required(child(fldPath, "topologyKey"), "can not be empty"))
	} else {
		allErrs = append(allErrs, ValidateLabelName(term.TopologyKey, child(fldPath, "topologyKey"))...)
	}
	return allErrs
}

// validateTopologySpreadConstraints checks spread constraints; two may not
// share a topologyKey and whenUnsatisfiable, since they would contradict.
func validateTopologySpreadConstraints(constraints []api.TopologySpreadConstraint, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	seen := map[string]bool{}
	for i, c := range constraints {
		cPath := index(fldPath, i)
		if c.MaxSkew <= 0 {
			allErrs = append(allErrs, errors.Invalid(child(cPath, "maxSkew"), c.MaxSkew, "must be greater than zero"))
		}
		if c.TopologyKey == "" {
			allErrs = append(allErrs, errors.Required(child(cPath, "topologyKey"), "can not be empty"))
		} else {
			allErrs = append(allErrs, ValidateLabelName(c.TopologyKey, child(cPath, "topologyKey"))...)
		}
		switch c.WhenUnsatisfiable {
		case api.DoNotSchedule, api.ScheduleAnyway:
		default:
			allErrs = append(allErrs, errors.NotSupported(child(cPath, "whenUnsatisfiable"), string(c.WhenUnsatisfiable),
				[]string{string(api.DoNotSchedule), string(api.ScheduleAnyway)}))
		}
		if c.MinDomains != nil && *c.MinDomains <= 0 {
			allErrs = append(allErrs, errors.Invalid(child(cPath, "minDomains"), *c.MinDomains, "must be greater than 0"))
		}
		allErrs = append(allErrs, ValidateLabelSelector(c.LabelSelector, child(cPath, "labelSelector"))...)
		pair := fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)
		if seen[pair] {
			allErrs = append(allErrs, errors.Duplicate(child(cPath, "{topologyKey, whenUnsatisfiable}"), pair))
		}
		seen[pair] = true
	}
	return allErrs
}
