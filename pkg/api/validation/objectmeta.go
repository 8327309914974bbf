package validation

import (
	"fmt"
	"sort"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// TotalAnnotationSizeLimitB is the most bytes an object's annotations (keys
// plus values) may hold: 256 KiB, as upstream. Annotations ride along in every
// watch event, so one huge annotation slows every client of its kind.
const TotalAnnotationSizeLimitB = 256 * (1 << 10)

// ValidateObjectMeta checks the metadata of an object being created.
// namespaced says whether the kind lives in a namespace (then a namespace is
// required) or is cluster-scoped (then one is forbidden); nameFn is the kind's
// rule for names. An empty name is accepted when generateName is set, since
// the apiserver fills the name in from it.
func ValidateObjectMeta(meta *api.ObjectMeta, namespaced bool, nameFn ValidateNameFunc, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if meta.GenerateName != "" {
		for _, msg := range nameFn(meta.GenerateName, true) {
			allErrs = append(allErrs, errors.Invalid(child(fldPath, "generateName"), meta.GenerateName, msg))
		}
	}
	switch {
	case meta.Name != "":
		for _, msg := range nameFn(meta.Name, false) {
			allErrs = append(allErrs, errors.Invalid(child(fldPath, "name"), meta.Name, msg))
		}
	case meta.GenerateName == "":
		allErrs = append(allErrs, errors.Required(child(fldPath, "name"), "name or generateName is required"))
	}
	if namespaced {
		if meta.Namespace == "" {
			allErrs = append(allErrs, errors.Required(child(fldPath, "namespace"), ""))
		} else {
			for _, msg := range ValidateNamespaceName(meta.Namespace, false) {
				allErrs = append(allErrs, errors.Invalid(child(fldPath, "namespace"), meta.Namespace, msg))
			}
		}
	} else if meta.Namespace != "" {
		allErrs = append(allErrs, errors.Forbidden(child(fldPath, "namespace"), "not allowed on this type"))
	}
	allErrs = append(allErrs, ValidateNonnegativeField(meta.Generation, child(fldPath, "generation"))...)
	return append(allErrs, validateMetaContents(meta, fldPath)...)
}

// validateMetaContents checks what create and update both re-check: labels,
// annotations, owner references and finalizers.
func validateMetaContents(meta *api.ObjectMeta, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	allErrs = append(allErrs, ValidateLabels(meta.Labels, child(fldPath, "labels"))...)
	allErrs = append(allErrs, ValidateAnnotations(meta.Annotations, child(fldPath, "annotations"))...)
	allErrs = append(allErrs, ValidateOwnerReferences(meta.OwnerReferences, child(fldPath, "ownerReferences"))...)
	allErrs = append(allErrs, ValidateFinalizers(meta.Finalizers, child(fldPath, "finalizers"))...)
	return allErrs
}

// ValidateObjectMetaUpdate checks metadata on an update: identity (name,
// namespace, uid, creationTimestamp) and the deletion fields may not change,
// generation may not go backwards, a resourceVersion must be given (it is
// what makes the update a compare-and-swap), and an object that is being
// deleted may not gain finalizers.
//
// An empty uid or a zero creationTimestamp in the new object counts as "not
// sent" rather than as a change, because upstream's apiserver copies both
// from the stored object before it validates (rest.BeforeUpdate).
func ValidateObjectMetaUpdate(newMeta, oldMeta *api.ObjectMeta, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if oldMeta.DeletionTimestamp != nil {
		allErrs = append(allErrs, validateNoNewFinalizers(newMeta.Finalizers, oldMeta.Finalizers, child(fldPath, "finalizers"))...)
	}
	if newMeta.ResourceVersion == "" {
		allErrs = append(allErrs, errors.Invalid(child(fldPath, "resourceVersion"), newMeta.ResourceVersion, "must be specified for an update"))
	}
	if newMeta.Generation < oldMeta.Generation {
		allErrs = append(allErrs, errors.Invalid(child(fldPath, "generation"), newMeta.Generation, "must not be decremented"))
	}
	allErrs = append(allErrs, ValidateImmutableField(newMeta.Name, oldMeta.Name, child(fldPath, "name"))...)
	allErrs = append(allErrs, ValidateImmutableField(newMeta.Namespace, oldMeta.Namespace, child(fldPath, "namespace"))...)
	if newMeta.UID != "" {
		allErrs = append(allErrs, ValidateImmutableField(newMeta.UID, oldMeta.UID, child(fldPath, "uid"))...)
	}
	if !newMeta.CreationTimestamp.IsZero() && !newMeta.CreationTimestamp.Equal(oldMeta.CreationTimestamp.Time) {
		allErrs = append(allErrs, errors.Invalid(child(fldPath, "creationTimestamp"), newMeta.CreationTimestamp, fieldImmutable))
	}
	allErrs = append(allErrs, ValidateImmutableField(newMeta.DeletionTimestamp, oldMeta.DeletionTimestamp, child(fldPath, "deletionTimestamp"))...)
	allErrs = append(allErrs, ValidateImmutableField(newMeta.DeletionGracePeriodSeconds, oldMeta.DeletionGracePeriodSeconds, child(fldPath, "deletionGracePeriodSeconds"))...)
	return append(allErrs, validateMetaContents(newMeta, fldPath)...)
}

// ValidateLabels checks every label key (a qualified name) and value. As
// upstream, the errors name the labels map itself, with the bad key or value
// as the value.
func ValidateLabels(labels map[string]string, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for _, k := range sortedKeys(labels) {
		allErrs = append(allErrs, ValidateLabelName(k, fldPath)...)
		for _, msg := range IsValidLabelValue(labels[k]) {
			allErrs = append(allErrs, errors.Invalid(fldPath, labels[k], msg))
		}
	}
	return allErrs
}

// ValidateLabelName checks one label key.
func ValidateLabelName(name, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for _, msg := range IsQualifiedName(name) {
		allErrs = append(allErrs, errors.Invalid(fldPath, name, msg))
	}
	return allErrs
}

// ValidateAnnotations checks annotation keys (qualified names, compared in
// lower case) and the total size limit.
func ValidateAnnotations(annotations map[string]string, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	total := 0
	for _, k := range sortedKeys(annotations) {
		for _, msg := range IsQualifiedName(strings.ToLower(k)) {
			allErrs = append(allErrs, errors.Invalid(fldPath, k, msg))
		}
		total += len(k) + len(annotations[k])
	}
	if total > TotalAnnotationSizeLimitB {
		allErrs = append(allErrs, tooLong(fldPath, TotalAnnotationSizeLimitB))
	}
	return allErrs
}

// tooLong says a field holds more than max bytes; it prints no value, since
// the value is by definition too big to print.
func tooLong(fldPath string, max int) *errors.FieldError {
	return &errors.FieldError{Type: errors.FieldValueTooLong, Field: fldPath,
		Detail: fmt.Sprintf("may not be more than %d bytes", max)}
}

// ValidateOwnerReferences checks that each owner reference names its owner
// completely (apiVersion, kind, name and uid: the garbage collector looks the
// owner up by all of them) and that at most one claims to be the controller.
func ValidateOwnerReferences(refs []api.OwnerReference, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	firstController := ""
	for i, ref := range refs {
		refPath := index(fldPath, i)
		version := ref.APIVersion
		if slash := strings.LastIndex(version, "/"); slash >= 0 {
			version = version[slash+1:]
		}
		if version == "" {
			allErrs = append(allErrs, errors.Invalid(child(refPath, "apiVersion"), ref.APIVersion, "version must not be empty"))
		}
		if ref.Kind == "" {
			allErrs = append(allErrs, errors.Invalid(child(refPath, "kind"), ref.Kind, "must not be empty"))
		}
		if ref.Name == "" {
			allErrs = append(allErrs, errors.Invalid(child(refPath, "name"), ref.Name, "must not be empty"))
		}
		if ref.UID == "" {
			allErrs = append(allErrs, errors.Invalid(child(refPath, "uid"), ref.UID, "must not be empty"))
		}
		// Events are deleted by TTL, not by the garbage collector, so nothing
		// may depend on one.
		if ref.APIVersion == "v1" && ref.Kind == "Event" {
			allErrs = append(allErrs, errors.Invalid(refPath, ref, "/v1, Kind=Event is disallowed from being an owner"))
		}
		if ref.Controller != nil && *ref.Controller {
			current := ref.Kind + "/" + ref.Name
			if firstController != "" {
				allErrs = append(allErrs, errors.Invalid(fldPath, refs, fmt.Sprintf(
					"Only one reference can have Controller set to true. Found \"true\" in references for %s and %s", firstController, current)))
			} else {
				firstController = current
			}
		}
	}
	return allErrs
}

// ValidateFinalizers checks that finalizers are qualified names and do not
// ask the garbage collector both to orphan dependents and to delete them in
// the foreground.
func ValidateFinalizers(finalizers []string, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	orphan, foreground := false, false
	for _, f := range finalizers {
		for _, msg := range IsQualifiedName(f) {
			allErrs = append(allErrs, errors.Invalid(fldPath, f, msg))
		}
		orphan = orphan || f == api.FinalizerOrphanDependents
		foreground = foreground || f == api.FinalizerDeleteDependents
	}
	if orphan && foreground {
		allErrs = append(allErrs, errors.Invalid(fldPath, finalizers, fmt.Sprintf(
			"finalizer %s and %s cannot be both set", api.FinalizerOrphanDependents, api.FinalizerDeleteDependents)))
	}
	return allErrs
}

// validateNoNewFinalizers stops an object that is already being deleted from
// gaining finalizers, which could otherwise keep it alive forever.
func validateNoNewFinalizers(newFinalizers, oldFinalizers []string, fldPath string) errors.FieldErrorList {
	old := map[string]bool{}
	for _, f := range oldFinalizers {
		old[f] = true
	}
	var extra []string
	for _, f := range newFinalizers {
		if !old[f] {
			extra = append(extra, f)
		}
	}
	if len(extra) == 0 {
		return nil
	}
	sort.Strings(extra)
	return errors.FieldErrorList{errors.Forbidden(fldPath, fmt.Sprintf(
		"no new finalizers can be added if the object is being deleted, found new finalizers %#v", extra))}
}

// ValidateImmutableField reports newVal as "field is immutable" unless it
// equals oldVal semantically (nil and empty collections are equal, times are
// compared as instants, quantities by value).
func ValidateImmutableField(newVal, oldVal any, fldPath string) errors.FieldErrorList {
	if semanticEqual(newVal, oldVal) {
		return nil
	}
	return errors.FieldErrorList{errors.Invalid(fldPath, newVal, fieldImmutable)}
}

// sortedKeys returns a map's keys in order, so that errors come out in a
// stable order run after run.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
