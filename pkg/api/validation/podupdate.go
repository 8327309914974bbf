package validation

import (
	"math"
	"reflect"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// podUpdateForbidden is upstream's message for any other change to a pod's
// spec: a running pod is replaced, not edited.
const podUpdateForbidden = "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

// validatePodUpdate checks an update of a pod's spec. Almost all of it is
// fixed once the pod exists: the kubelet has already built the pod from it.
// What may change, as upstream: container images (the kubelet restarts the
// container with the new image), activeDeadlineSeconds (only downwards),
// tolerations (only additions), a negative terminationGracePeriodSeconds
// (to 1), and scheduling gates (only removals).
//
// Binding a pod to a node (spec.nodeName) is not an update: it goes through
// the pods/binding subresource, which does not call this.
func validatePodUpdate(pod, old *api.Pod) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&pod.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, ValidatePodSpec(&pod.Spec, "spec")...)

	containerErrs, stop := validateContainerUpdates(pod.Spec.Containers, old.Spec.Containers, "spec.containers")
	allErrs = append(allErrs, containerErrs...)
	if stop {
		return allErrs
	}
	containerErrs, stop = validateContainerUpdates(pod.Spec.InitContainers, old.Spec.InitContainers, "spec.initContainers")
	allErrs = append(allErrs, containerErrs...)
	if stop {
		return allErrs
	}

	if deadlineErrs := validateActiveDeadlineUpdate(pod.Spec.ActiveDeadlineSeconds, old.Spec.ActiveDeadlineSeconds); len(deadlineErrs) > 0 {
		return append(allErrs, deadlineErrs...)
	}

	// Copy the fields that may change from the old spec into a copy of the
	// new one; whatever still differs was not allowed to.
	munged := pod.Spec
	munged.Containers = withImagesFrom(pod.Spec.Containers, old.Spec.Containers)
	munged.InitContainers = withImagesFrom(pod.Spec.InitContainers, old.Spec.InitContainers)
	munged.ActiveDeadlineSeconds = old.Spec.ActiveDeadlineSeconds
	munged.Tolerations = old.Spec.Tolerations
	allErrs = append(allErrs, validateOnlyAddedTolerations(pod.Spec.Tolerations, old.Spec.Tolerations, "spec.tolerations")...)
	if g := old.Spec.TerminationGracePeriodSeconds; g != nil && *g < 0 &&
		pod.Spec.TerminationGracePeriodSeconds != nil && *pod.Spec.TerminationGracePeriodSeconds == 1 {
		munged.TerminationGracePeriodSeconds = g
	}
	if onlyRemoved(pod.Spec.SchedulingGates, old.Spec.SchedulingGates) {
		munged.SchedulingGates = old.Spec.SchedulingGates
	}
	if !semanticEqual(munged, old.Spec) {
		allErrs = append(allErrs, errors.Forbidden("spec", podUpdateForbidden+changedFields(old.Spec, munged, "spec")))
	}
	return allErrs
}

// validateContainerUpdates rejects adding or removing containers; the
// caller then stops, since nothing lines up any more. (That every container
// still has an image is part of the spec's own validation.)
func validateContainerUpdates(containers, old []api.Container, fldPath string) (errors.FieldErrorList, bool) {
	if len(containers) != len(old) {
		return errors.FieldErrorList{errors.Forbidden(fldPath, "pod updates may not add or remove containers")}, true
	}
	return nil, false
}

// validateActiveDeadlineUpdate allows setting a deadline and shortening it,
// never lengthening or removing it: a deadline is a promise to the cluster.
func validateActiveDeadlineUpdate(deadline, old *int64) errors.FieldErrorList {
	const fldPath = "spec.activeDeadlineSeconds"
	switch {
	case deadline == nil && old != nil:
		return errors.FieldErrorList{errors.Invalid(fldPath, deadline, "must not update from a positive integer to nil value")}
	case deadline == nil:
		return nil
	case *deadline < 0 || *deadline > math.MaxInt32:
		return errors.FieldErrorList{errors.Invalid(fldPath, *deadline, inclusiveRangeError(0, math.MaxInt32))}
	case old != nil && *old < *deadline:
		return errors.FieldErrorList{errors.Invalid(fldPath, *deadline, "must be less than or equal to previous value")}
	}
	return nil
}

// withImagesFrom returns containers with the images of old, position by position.
func withImagesFrom(containers, old []api.Container) []api.Container {
	if containers == nil {
		return nil
	}
	out := make([]api.Container, len(containers))
	for i := range containers {
		out[i] = containers[i]
		out[i].Image = old[i].Image
	}
	return out
}

// validateOnlyAddedTolerations requires every old toleration to still be
// there (its tolerationSeconds may change), so that an update cannot make a
// running pod suddenly evictable.
func validateOnlyAddedTolerations(tolerations, old []api.Toleration, fldPath string) errors.FieldErrorList {
	for _, o := range old {
		o.TolerationSeconds = nil
		found := false
		for _, n := range tolerations {
			n.TolerationSeconds = nil
			if reflect.DeepEqual(o, n) {
				found = true
				break
			}
		}
		if !found {
			return errors.FieldErrorList{errors.Forbidden(fldPath, "existing toleration can not be modified except its tolerationSeconds")}
		}
	}
	return nil
}

// onlyRemoved reports whether gates is old with zero or more entries removed.
func onlyRemoved(gates, old []api.PodSchedulingGate) bool {
	kept := map[string]bool{}
	for _, g := range old {
		kept[g.Name] = true
	}
	for _, g := range gates {
		if !kept[g.Name] {
			return false
		}
	}
	return true
}
