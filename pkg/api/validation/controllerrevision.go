package validation

import (
	"bytes"
	"encoding/json"
	"reflect"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// validateControllerRevision checks a ControllerRevision, the snapshot of a
// template that DaemonSets and StatefulSets roll back to.
func validateControllerRevision(rev *api.ControllerRevision) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&rev.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	return append(allErrs, ValidateNonnegativeField(rev.Revision, "revision")...)
}

// validateControllerRevisionUpdate checks an update: a revision's data is
// history and never changes. Its number may: a rollback to an older
// template re-numbers that template's revision as the newest, as upstream's
// ValidateControllerRevisionUpdate allows.
func validateControllerRevisionUpdate(rev, old *api.ControllerRevision) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&rev.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, ValidateNonnegativeField(rev.Revision, "revision")...)
	if !sameJSON(rev.Data, old.Data) {
		allErrs = append(allErrs, errors.Invalid("data", nil, fieldImmutable))
	}
	return allErrs
}

// sameJSON reports whether two JSON documents hold the same value, whatever
// their spacing and key order.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var av, bv any
	if json.Unmarshal(a, &av) != nil || json.Unmarshal(b, &bv) != nil {
		return false
	}
	return reflect.DeepEqual(av, bv)
}
