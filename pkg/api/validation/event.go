package validation

import (
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// Upper bounds on an Event's text fields, as upstream.
const (
	eventReasonMaxLength   = 128
	eventActionMaxLength   = 128
	eventNoteMaxLength     = 1024
	eventInstanceMaxLength = 128
)

// validateEvent checks a core/v1 Event. The rule that matters most is about
// involvedObject: an event lives in the namespace of the object it is about,
// and events about cluster-scoped objects (nodes) live in "default".
// Events written through the newer API (eventTime set) must also say who
// reported them and what happened.
func validateEvent(ev *api.Event) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&ev.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validateEventFields(ev, "reportingComponent")...)
}

func validateEventUpdate(ev, old *api.Event) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&ev.ObjectMeta, &old.ObjectMeta, "metadata")
	return append(allErrs, validateEventFields(ev, "reportingComponent")...)
}

// validateEventFields checks what every Event must satisfy, whichever API
// wrote it. reportingPath names the reporting controller's field in the
// caller's API: reportingComponent in core/v1, reportingController in
// events.k8s.io/v1.
func validateEventFields(ev *api.Event, reportingPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	const nsPath = "involvedObject.namespace"
	involvedNS := ev.InvolvedObject.Namespace
	if ev.EventTime.IsZero() {
		if involvedNS == "" {
			if ev.Namespace != "" && ev.Namespace != api.NamespaceDefault {
				allErrs = append(allErrs, errors.Invalid(nsPath, involvedNS, "does not match event.namespace"))
			}
		} else if ev.Namespace != involvedNS {
			allErrs = append(allErrs, errors.Invalid(nsPath, involvedNS, "does not match event.namespace"))
		}
		return allErrs
	}
	if involvedNS == "" && ev.Namespace != api.NamespaceDefault && ev.Namespace != api.NamespaceSystem {
		allErrs = append(allErrs, errors.Invalid(nsPath, involvedNS, "does not match event.namespace"))
	}
	if ev.ReportingController == "" {
		allErrs = append(allErrs, errors.Required(reportingPath, ""))
	} else {
		for _, msg := range IsQualifiedName(ev.ReportingController) {
			allErrs = append(allErrs, errors.Invalid(reportingPath, ev.ReportingController, msg))
		}
	}
	allErrs = append(allErrs, validateEventText(ev.ReportingInstance, "reportingInstance", eventInstanceMaxLength, true)...)
	allErrs = append(allErrs, validateEventText(ev.Action, "action", eventActionMaxLength, true)...)
	allErrs = append(allErrs, validateEventText(ev.Reason, "reason", eventReasonMaxLength, true)...)
	allErrs = append(allErrs, validateEventText(ev.Message, "message", eventNoteMaxLength, false)...)
	return allErrs
}

func validateEventText(value, fldPath string, maxLength int, required bool) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if required && value == "" {
		allErrs = append(allErrs, errors.Required(fldPath, ""))
	}
	if len(value) > maxLength {
		allErrs = append(allErrs, errors.Invalid(fldPath, "", fmt.Sprintf("can have at most %d characters", maxLength)))
	}
	return allErrs
}
