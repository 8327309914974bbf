package apiserver

// The rules of upstream's LimitRanger admission plugin
// (plugin/pkg/admission/limitranger/admission.go), as pure functions over
// one LimitRange and one object; admission_limitrange.go finds the
// LimitRanges and calls them.
//
// A LimitRange item has a type — Container, Pod or PersistentVolumeClaim —
// and up to five resource lists:
//
//	default               the limit a container gets when it sets none
//	defaultRequest        the request a container gets when it sets none
//	min, max              bounds on requests and limits
//	maxLimitRequestRatio  how far a limit may exceed its request
//
// The defaults only ever concern containers (a Pod item may not have any,
// and a claim must say how much storage it wants). Defaulting of the
// LimitRange itself (pkg/api/defaults.go) has already filled default from
// max and defaultRequest from default or min, which is why a container
// without a request usually ends with request = limit.
//
// The messages are upstream's, word for word: clients and lessons quote them.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/resourcehelper"
)

// limitRangerAnnotation records on a pod which defaults LimitRange
// admission filled in, e.g. "LimitRanger plugin set: cpu, memory request
// for container web; cpu, memory limit for container web".
const limitRangerAnnotation = "kubernetes.io/limit-ranger"

// containerDefaults collects the default limits and requests of every
// Container item of a LimitRange.
func containerDefaults(lr *api.LimitRange) api.ResourceRequirements {
	defaults := api.ResourceRequirements{Limits: api.ResourceList{}, Requests: api.ResourceList{}}
	for _, item := range lr.Spec.Limits {
		if item.Type != api.LimitTypeContainer {
			continue
		}
		maps.Copy(defaults.Requests, item.DefaultRequest)
		maps.Copy(defaults.Limits, item.Default)
	}
	return defaults
}

// applyLimitRangeDefaults fills the limits and requests a pod's containers
// and init containers leave out with the LimitRange's defaults, and notes
// what it set in the kubernetes.io/limit-ranger annotation. A resource a
// container sets itself is never changed.
func applyLimitRangeDefaults(lr *api.LimitRange, pod *api.Pod) {
	defaults := containerDefaults(lr)
	var notes []string
	for i := range pod.Spec.Containers {
		notes = append(notes, fillContainerDefaults(&pod.Spec.Containers[i], defaults, "container")...)
	}
	for i := range pod.Spec.InitContainers {
		notes = append(notes, fillContainerDefaults(&pod.Spec.InitContainers[i], defaults, "init container")...)
	}
	if len(notes) == 0 {
		return
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[limitRangerAnnotation] = "LimitRanger plugin set: " + strings.Join(notes, "; ")
}

// fillContainerDefaults fills one container and returns the annotation's
// notes for it: "cpu, memory request for container web" and the same for
// limits, resource names sorted.
func fillContainerDefaults(c *api.Container, defaults api.ResourceRequirements, what string) []string {
	setLimits := fillMissing(&c.Resources.Limits, defaults.Limits)
	setRequests := fillMissing(&c.Resources.Requests, defaults.Requests)
	var notes []string
	if len(setRequests) > 0 {
		notes = append(notes, fmt.Sprintf("%s request for %s %s", strings.Join(setRequests, ", "), what, c.Name))
	}
	if len(setLimits) > 0 {
		notes = append(notes, fmt.Sprintf("%s limit for %s %s", strings.Join(setLimits, ", "), what, c.Name))
	}
	return notes
}

// fillMissing copies into *list each default it lacks and returns the
// names it copied, sorted.
func fillMissing(list *api.ResourceList, defaults api.ResourceList) []string {
	var set []string
	for _, name := range slices.Sorted(maps.Keys(defaults)) {
		if _, ok := (*list)[name]; ok {
			continue
		}
		if *list == nil {
			*list = api.ResourceList{}
		}
		(*list)[name] = defaults[name]
		set = append(set, name)
	}
	return set
}

// validatePodAgainstLimitRange checks every container and init container
// against the Container items and the whole pod against the Pod items,
// and returns every violation.
func validatePodAgainstLimitRange(lr *api.LimitRange, pod *api.Pod) error {
	var errs []error
	for _, item := range lr.Spec.Limits {
		switch item.Type {
		case api.LimitTypeContainer:
			for _, containers := range [][]api.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
				for _, c := range containers {
					errs = append(errs, checkBounds(&item, c.Resources.Requests, c.Resources.Limits)...)
				}
			}
		case api.LimitTypePod:
			// A LimitRange bounds what the pod's author asked for, so the
			// runtime's overhead is left out, as upstream leaves it out.
			counting := resourcehelper.Options{ExcludeOverhead: true}
			errs = append(errs, checkBounds(&item, resourcehelper.PodRequests(pod, counting), resourcehelper.PodLimits(pod, counting))...)
		}
	}
	return apierrors.Aggregate(errs)
}

// checkBounds applies an item's min, max and maxLimitRequestRatio to one
// set of requests and limits (a container's, or a pod's totals).
func checkBounds(item *api.LimitRangeItem, requests, limits api.ResourceList) []error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(item.Min)) {
		if err := minConstraint(item.Type, name, item.Min[name], requests, limits); err != nil {
			errs = append(errs, err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(item.Max)) {
		if err := maxConstraint(item.Type, name, item.Max[name], requests, limits); err != nil {
			errs = append(errs, err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(item.MaxLimitRequestRatio)) {
		if err := limitRequestRatioConstraint(item.Type, name, item.MaxLimitRequestRatio[name], requests, limits); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// validateClaimAgainstLimitRange checks a claim's storage request against
// the PersistentVolumeClaim items. Only requests count: a claim's limits
// are not something a user sets to get storage, and a claim is never
// given defaults (how much storage it wants is required).
func validateClaimAgainstLimitRange(lr *api.LimitRange, claim *api.PersistentVolumeClaim) error {
	var errs []error
	requests := claim.Spec.Resources.Requests
	for _, item := range lr.Spec.Limits {
		if item.Type != api.LimitTypePersistentVolumeClaim {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(item.Min)) {
			if err := minConstraint(item.Type, name, item.Min[name], requests, nil); err != nil {
				errs = append(errs, err)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(item.Max)) {
			if err := maxRequestConstraint(item.Type, name, item.Max[name], requests); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return apierrors.Aggregate(errs)
}

// comparable returns request, limit and the enforced bound at a common
// scale: thousandths when all three fit (so 500m compares as 500 with 1 as
// 1000), whole units otherwise.
func comparable(request, limit, enforced api.Quantity) (r, l, e int64) {
	r, l, e = request.Value(), limit.Value(), enforced.Value()
	if r <= api.MaxMilliValue && l <= api.MaxMilliValue && e <= api.MaxMilliValue {
		r, l, e = request.MilliValue(), limit.MilliValue(), enforced.MilliValue()
	}
	return r, l, e
}

// minConstraint: the request must be set and at least min, and a limit,
// when set, at least min too.
func minConstraint(limitType api.LimitType, name string, min api.Quantity, requests, limits api.ResourceList) error {
	request, hasRequest := requests[name]
	limit, hasLimit := limits[name]
	r, l, e := comparable(request, limit, min)
	switch {
	case !hasRequest:
		return fmt.Errorf("minimum %s usage per %s is %s.  No request is specified", name, limitType, min.String())
	case r < e:
		return fmt.Errorf("minimum %s usage per %s is %s, but request is %s", name, limitType, min.String(), request.String())
	case hasLimit && l < e:
		return fmt.Errorf("minimum %s usage per %s is %s, but limit is %s", name, limitType, min.String(), limit.String())
	}
	return nil
}

// maxConstraint: the limit must be set and at most max, and a request,
// when set, at most max too.
func maxConstraint(limitType api.LimitType, name string, max api.Quantity, requests, limits api.ResourceList) error {
	request, hasRequest := requests[name]
	limit, hasLimit := limits[name]
	r, l, e := comparable(request, limit, max)
	switch {
	case !hasLimit:
		return fmt.Errorf("maximum %s usage per %s is %s.  No limit is specified", name, limitType, max.String())
	case l > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but limit is %s", name, limitType, max.String(), limit.String())
	case hasRequest && r > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, limitType, max.String(), request.String())
	}
	return nil
}

// maxRequestConstraint is maxConstraint for a claim, where only the
// request is the user's: it must be set and at most max.
func maxRequestConstraint(limitType api.LimitType, name string, max api.Quantity, requests api.ResourceList) error {
	request, hasRequest := requests[name]
	r, _, e := comparable(request, api.Quantity{}, max)
	switch {
	case !hasRequest:
		return fmt.Errorf("maximum %s usage per %s is %s.  No request is specified", name, limitType, max.String())
	case r > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, limitType, max.String(), request.String())
	}
	return nil
}

// limitRequestRatioConstraint: both request and limit must be set and
// non-zero, and limit/request at most the ratio. The ratio is printed with
// %f, as upstream prints it ("4.000000").
func limitRequestRatioConstraint(limitType api.LimitType, name string, ratio api.Quantity, requests, limits api.ResourceList) error {
	request, hasRequest := requests[name]
	limit, hasLimit := limits[name]
	r, l, _ := comparable(request, limit, ratio)
	if !hasRequest || r == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, limitType, ratio.String())
	}
	if !hasLimit || l == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, limitType, ratio.String())
	}
	observed := float64(l) / float64(r)
	compared, allowed := observed, float64(ratio.Value())
	if ratio.Value() <= api.MaxMilliValue {
		// Compare in thousandths, so a ratio of 1.5 is honoured exactly.
		compared, allowed = observed*1000, float64(ratio.MilliValue())
	}
	if compared > allowed {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but provided ratio is %f", name, limitType, ratio.String(), observed)
	}
	return nil
}
