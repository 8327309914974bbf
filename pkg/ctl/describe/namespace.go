package describe

import (
	"maps"
	"slices"
	"strings"

	"kplane/pkg/api"
)

// describeNamespace prints a Namespace: labels, phase, the conditions of
// a namespace being emptied, and the resource quotas and limit ranges in
// it (when the server serves them).
func describeNamespace(in Input, s Settings) (string, error) {
	ns, err := decode[api.Namespace](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", ns.Name)
		printLabelsMultiline(w, "Labels", ns.Labels)
		printAnnotationsMultiline(w, "Annotations", ns.Annotations)
		w.write(level0, "Status:\t%s\n", ns.Status.Phase)
		if len(ns.Status.Conditions) > 0 {
			w.write(level0, "Conditions:\n")
			w.write(level1, "Type\tStatus\tLastTransitionTime\tReason\tMessage\n")
			w.write(level1, "----\t------\t------------------\t------\t-------\n")
			for _, c := range ns.Status.Conditions {
				w.write(level1, "%v\t%v\t%s\t%v\t%v\n", c.Type, c.Status, s.timestamp(c.LastTransitionTime.Time), c.Reason, c.Message)
			}
		}
		if in.Related.ResourceQuotas != nil {
			w.write(level0, "\n")
			describeResourceQuotas(*in.Related.ResourceQuotas, w)
		}
		if in.Related.LimitRanges != nil {
			w.write(level0, "\n")
			describeLimitRanges(*in.Related.LimitRanges, w)
		}
	}), nil
}

// describeResourceQuotas prints every quota of a namespace: its scopes
// and, per resource, what is used of what is allowed.
func describeResourceQuotas(quotas []api.ResourceQuota, w prefixWriter) {
	if len(quotas) == 0 {
		w.write(level0, "No resource quota.\n")
		return
	}
	sorted := slices.Clone(quotas)
	slices.SortFunc(sorted, func(a, b api.ResourceQuota) int { return strings.Compare(a.Name, b.Name) })
	w.write(level0, "Resource Quotas\n")
	for _, q := range sorted {
		w.write(level1, "Name:\t%s\n", q.Name)
		if len(q.Spec.Scopes) > 0 {
			scopes := quotaScopes(q.Spec.Scopes)
			w.write(level1, "Scopes:\t%s\n", strings.Join(scopes, ", "))
			for _, scope := range scopes {
				if help := quotaScopeHelp(scope); help != "" {
					w.write(level1, "* %s\n", help)
				}
			}
		}
		w.write(level1, "Resource\tUsed\tHard\n")
		w.write(level1, "--------\t---\t---\n")
		for _, name := range sortedResourceNames(q.Status.Hard) {
			used := q.Status.Used[name]
			w.write(level1, "%s\t%s\t%s\n", name, used.String(), q.Status.Hard[name].String())
		}
	}
}

func quotaScopes(scopes []api.ResourceQuotaScope) []string {
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = string(s)
	}
	slices.Sort(out)
	return out
}

// quotaScopeHelp explains a quota scope in a sentence, as kubectl does.
func quotaScopeHelp(scope string) string {
	switch api.ResourceQuotaScope(scope) {
	case api.ResourceQuotaScopeTerminating:
		return "Matches all pods that have an active deadline. These pods have a limited lifespan on a node before being actively terminated by the system."
	case api.ResourceQuotaScopeNotTerminating:
		return "Matches all pods that do not have an active deadline. These pods usually include long running pods whose container command is not expected to terminate."
	case api.ResourceQuotaScopeBestEffort:
		return "Matches all pods that do not have resource requirements set. These pods have a best effort quality of service."
	case api.ResourceQuotaScopeNotBestEffort:
		return "Matches all pods that have at least one resource requirement set. These pods have a burstable or guaranteed quality of service."
	}
	return ""
}

// describeLimitRanges prints the limit ranges of a namespace as one table.
func describeLimitRanges(ranges []api.LimitRange, w prefixWriter) {
	if len(ranges) == 0 {
		w.write(level0, "No LimitRange resource.\n")
		return
	}
	w.write(level0, "Resource Limits\n Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio\n")
	w.write(level0, " ----\t--------\t---\t---\t---------------\t-------------\t-----------------------\n")
	for _, lr := range ranges {
		describeLimitRangeSpec(lr.Spec, " ", w)
	}
}

// describeLimitRangeSpec prints one row per limited object type and
// resource; "-" marks a bound that is not set.
func describeLimitRangeSpec(spec api.LimitRangeSpec, prefix string, w prefixWriter) {
	for _, item := range spec.Limits {
		names := map[string]bool{}
		for _, list := range []api.ResourceList{item.Max, item.Min, item.Default, item.DefaultRequest, item.MaxLimitRequestRatio} {
			for name := range list {
				names[name] = true
			}
		}
		value := func(list api.ResourceList, name string) string {
			if q, ok := list[name]; ok {
				return q.String()
			}
			return "-"
		}
		// Upstream walks a map here, so its row order varies; sorted is
		// the stable choice.
		for _, name := range slices.Sorted(maps.Keys(names)) {
			w.write(level0, "%s%s\t%v\t%v\t%v\t%v\t%v\t%v\n", prefix, item.Type, name,
				value(item.Min, name), value(item.Max, name), value(item.DefaultRequest, name), value(item.Default, name), value(item.MaxLimitRequestRatio, name))
		}
	}
}

// describeResourceQuota prints one ResourceQuota object.
func describeResourceQuota(in Input, s Settings) (string, error) {
	q, err := decode[api.ResourceQuota](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", q.Name)
		w.write(level0, "Namespace:\t%s\n", q.Namespace)
		if len(q.Spec.Scopes) > 0 {
			scopes := quotaScopes(q.Spec.Scopes)
			w.write(level0, "Scopes:\t%s\n", strings.Join(scopes, ", "))
			for _, scope := range scopes {
				if help := quotaScopeHelp(scope); help != "" {
					w.write(level0, " * %s\n", help)
				}
			}
		}
		w.write(level0, "Resource\tUsed\tHard\n")
		w.write(level0, "--------\t----\t----\n")
		for _, name := range sortedResourceNames(q.Status.Hard) {
			used, hard := q.Status.Used[name], q.Status.Hard[name]
			if used.Format != hard.Format {
				// kubectl prints the used amount in the hard amount's format
				// (256Mi used of 1G hard reads 268435456).
				used = api.NewQuantity(used.Value(), hard.Format)
			}
			w.write(level0, "%v\t%v\t%v\n", name, used.String(), hard.String())
		}
	}), nil
}

// describeLimitRange prints one LimitRange object.
func describeLimitRange(in Input, s Settings) (string, error) {
	lr, err := decode[api.LimitRange](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", lr.Name)
		w.write(level0, "Namespace:\t%s\n", lr.Namespace)
		w.write(level0, "Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio\n")
		w.write(level0, "----\t--------\t---\t---\t---------------\t-------------\t-----------------------\n")
		describeLimitRangeSpec(lr.Spec, "", w)
	}), nil
}
