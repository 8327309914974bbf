package quota

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/api/resourcehelper"
)

// podResources are the quota names a pod charges (besides extended
// resources and hugepages, which go by prefix).
var podResources = []api.ResourceName{
	"count/pods", api.ResourcePods,
	api.ResourceCPU, api.ResourceMemory, api.ResourceEphemeralStorage,
	api.ResourceRequestsCPU, api.ResourceRequestsMemory, api.ResourceRequestsEphemeral,
	api.ResourceLimitsCPU, api.ResourceLimitsMemory, api.ResourceLimitsEphemeral,
}

// explicitRequestResources are the quota names that oblige every container
// to state the matching request or limit. Upstream keeps this rule only for
// backward compatibility: it predates QoS classes, and no newer resource
// gets it.
var explicitRequestResources = []api.ResourceName{
	api.ResourceCPU, api.ResourceMemory,
	api.ResourceRequestsCPU, api.ResourceRequestsMemory,
	api.ResourceLimitsCPU, api.ResourceLimitsMemory,
}

// podEvaluator is the Evaluator of pods (upstream's core/pods.go).
type podEvaluator struct{}

// NewPodEvaluator returns the evaluator of pods.
func NewPodEvaluator() Evaluator { return podEvaluator{} }

// GroupResource is pods.
func (podEvaluator) GroupResource() GroupResource { return GroupResource{Resource: "pods"} }

// Handles creates only: a pod's requests change only with in-place
// resize, which kplane does not have.
func (podEvaluator) Handles(op Operation) bool { return op == Create }

// MatchingResources returns the pod resources among input, including
// extended resources (requests.example.com/gpu) and hugepages.
func (podEvaluator) MatchingResources(input []api.ResourceName) []api.ResourceName {
	var result []api.ResourceName
	for _, name := range input {
		if slices.Contains(podResources, name) || hasPrefix(name, "hugepages-", "requests.hugepages-") || isExtendedRequest(name) {
			result = append(result, name)
		}
	}
	return result
}

// isExtendedRequest reports whether name is requests.<domain>/<name>, an
// extended resource (not kubernetes.io's own) in its quota spelling.
func isExtendedRequest(name string) bool {
	rest, ok := strings.CutPrefix(name, "requests.")
	return ok && api.IsExtendedResourceName(rest)
}

// MatchesScope tells which scopes a pod is in: Terminating when it has an
// activeDeadlineSeconds, BestEffort when no container requests or limits
// cpu or memory, PriorityClass by its spec.priorityClassName.
func (podEvaluator) MatchesScope(selector api.ScopedResourceSelectorRequirement, obj api.Object) (bool, error) {
	pod, ok := obj.(*api.Pod)
	if !ok {
		return false, fmt.Errorf("quota: expected a Pod, got %T", obj)
	}
	switch selector.ScopeName {
	case api.ResourceQuotaScopeTerminating:
		return isTerminating(pod), nil
	case api.ResourceQuotaScopeNotTerminating:
		return !isTerminating(pod), nil
	case api.ResourceQuotaScopeBestEffort:
		return isBestEffort(pod), nil
	case api.ResourceQuotaScopeNotBestEffort:
		return !isBestEffort(pod), nil
	case api.ResourceQuotaScopePriorityClass:
		return matchesPriorityClass(pod.Spec.PriorityClassName, selector)
	case ScopeCrossNamespacePodAffinity:
		return usesCrossNamespacePodAffinity(pod), nil
	}
	return false, nil
}

// ScopeCrossNamespacePodAffinity is the scope of pods whose (anti-)affinity
// terms look at other namespaces, which an administrator may want to cap.
const ScopeCrossNamespacePodAffinity api.ResourceQuotaScope = "CrossNamespacePodAffinity"

// usesCrossNamespacePodAffinity reports whether a pod affinity or
// anti-affinity term of the pod names namespaces or a namespace selector.
func usesCrossNamespacePodAffinity(pod *api.Pod) bool {
	affinity := pod.Spec.Affinity
	if affinity == nil {
		return false
	}
	var terms []api.PodAffinityTerm
	if a := affinity.PodAffinity; a != nil {
		terms = append(terms, a.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	if a := affinity.PodAntiAffinity; a != nil {
		terms = append(terms, a.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	for _, term := range terms {
		if len(term.Namespaces) > 0 || term.NamespaceSelector != nil {
			return true
		}
	}
	return false
}

// isTerminating reports whether the pod has a deadline: a Job's pod with
// activeDeadlineSeconds is "terminating" in quota's sense.
func isTerminating(pod *api.Pod) bool {
	return pod.Spec.ActiveDeadlineSeconds != nil && *pod.Spec.ActiveDeadlineSeconds >= 0
}

// isBestEffort reports whether the pod's QoS class is BestEffort: the
// class admission recorded, or, for a pod not yet admitted, the class its
// containers' requests and limits give it.
func isBestEffort(pod *api.Pod) bool {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass == api.PodQOSBestEffort
	}
	return resourcehelper.QOSClass(&pod.Spec) == api.PodQOSBestEffort
}

// matchesPriorityClass evaluates a PriorityClass scope expression against
// the pod's class name, as a label selector on the key "PriorityClass".
func matchesPriorityClass(class string, selector api.ScopedResourceSelectorRequirement) (bool, error) {
	switch selector.Operator {
	case api.LabelSelectorOpExists:
		return class != "", nil
	case api.LabelSelectorOpDoesNotExist:
		return class == "", nil
	case api.LabelSelectorOpIn:
		return class != "" && slices.Contains(selector.Values, class), nil
	case api.LabelSelectorOpNotIn:
		return class == "" || !slices.Contains(selector.Values, class), nil
	}
	return false, fmt.Errorf("quota: scope selector operator %q is not supported", selector.Operator)
}

// Constraints refuses a pod one of whose containers leaves out a request or
// limit the quota limits (required ∩ cpu, memory and their requests./limits.
// forms): a quota on requests.cpu cannot count a container that requests
// nothing. The error lists, per missing resource, the containers missing it:
// "must specify limits.cpu for: web; requests.cpu for: db,web".
func (podEvaluator) Constraints(required []api.ResourceName, obj api.Object) error {
	pod, ok := obj.(*api.Pod)
	if !ok {
		return fmt.Errorf("quota: expected a Pod, got %T", obj)
	}
	mustState := Intersection(explicitRequestResources, required)
	if len(mustState) == 0 {
		return nil
	}
	missing := map[api.ResourceName][]string{}
	for _, c := range slices.Concat(pod.Spec.Containers, pod.Spec.InitContainers) {
		stated := computeUsage(c.Resources.Requests, c.Resources.Limits)
		for _, name := range mustState {
			if _, ok := stated[name]; !ok && !slices.Contains(missing[name], c.Name) {
				missing[name] = append(missing[name], c.Name)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(missing)) {
		containers := missing[name]
		slices.Sort(containers)
		parts = append(parts, fmt.Sprintf("%s for: %s", name, strings.Join(containers, ",")))
	}
	return fmt.Errorf("must specify %s", strings.Join(parts, "; "))
}

// Usage is what the pod charges: count/pods always (it counts every pod
// in storage); pods and the compute resources only while the pod is not
// terminal (IsPodCharged).
func (podEvaluator) Usage(obj api.Object, now time.Time) (api.ResourceList, error) {
	pod, ok := obj.(*api.Pod)
	if !ok {
		return nil, fmt.Errorf("quota: expected a Pod, got %T", obj)
	}
	usage := api.ResourceList{"count/pods": api.NewQuantity(1, api.DecimalSI)}
	if !IsPodCharged(pod, now) {
		return usage, nil
	}
	return Add(usage, computeUsage(resourcehelper.PodRequests(pod, resourcehelper.Options{}), resourcehelper.PodLimits(pod, resourcehelper.Options{}))), nil
}

// IsPodCharged reports whether a pod still uses its quota: not when it
// has Succeeded or Failed, nor when it has been deleted and its grace
// period is over (a pod stuck terminating on a lost node must not keep its
// namespace from starting a replacement). Upstream's QuotaV1Pod.
func IsPodCharged(pod *api.Pod, now time.Time) bool {
	if pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed {
		return false
	}
	if pod.DeletionTimestamp != nil && pod.DeletionGracePeriodSeconds != nil {
		deadline := pod.DeletionTimestamp.Add(time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second)
		if now.After(deadline) {
			return false
		}
	}
	return true
}

// computeUsage turns requests and limits into quota names: a cpu request
// charges both cpu and requests.cpu (the unprefixed name is the older
// spelling), a cpu limit charges limits.cpu; memory and ephemeral-storage
// alike; an extended resource's request charges requests.<name>, hugepages
// both forms.
func computeUsage(requests, limits api.ResourceList) api.ResourceList {
	usage := api.ResourceList{api.ResourcePods: api.NewQuantity(1, api.DecimalSI)}
	for _, pair := range [][3]api.ResourceName{
		{api.ResourceCPU, api.ResourceRequestsCPU, api.ResourceLimitsCPU},
		{api.ResourceMemory, api.ResourceRequestsMemory, api.ResourceLimitsMemory},
		{api.ResourceEphemeralStorage, api.ResourceRequestsEphemeral, api.ResourceLimitsEphemeral},
	} {
		if q, ok := requests[pair[0]]; ok {
			usage[pair[0]] = q
			usage[pair[1]] = q
		}
		if q, ok := limits[pair[0]]; ok {
			usage[pair[2]] = q
		}
	}
	for name, q := range requests {
		switch {
		case strings.HasPrefix(name, "hugepages-"):
			usage[name] = q
			usage["requests."+name] = q
		case api.IsExtendedResourceName(name):
			usage["requests."+name] = q
		}
	}
	return usage
}
