package validation

import (
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// validateEventsV1Event checks an Event created through events.k8s.io/v1.
// It must pass what every Event passes, and more, as upstream's
// ValidateEventCreate asks of the newer API: an eventTime, a type of Normal
// or Warning, a well-formed series, and none of the deprecated core/v1
// fields. Field paths are the stored (core/v1) names, as upstream reports
// them.
func validateEventsV1Event(ev *api.EventsV1Event) errors.FieldErrorList {
	core := ev.ToCore()
	allErrs := ValidateObjectMeta(&core.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	allErrs = append(allErrs, validateEventFields(core, "reportingController")...)
	allErrs = append(allErrs, validateEventSeries(core.Series)...)
	if core.EventTime.IsZero() {
		allErrs = append(allErrs, errors.Required("eventTime", ""))
	}
	if core.Type != api.EventTypeNormal && core.Type != api.EventTypeWarning {
		allErrs = append(allErrs, errors.Invalid("type", "", fmt.Sprintf("has invalid value: %v", core.Type)))
	}
	const unset = "needs to be unset"
	if !core.FirstTimestamp.IsZero() {
		allErrs = append(allErrs, errors.Invalid("firstTimestamp", "", unset))
	}
	if !core.LastTimestamp.IsZero() {
		allErrs = append(allErrs, errors.Invalid("lastTimestamp", "", unset))
	}
	if core.Count != 0 {
		allErrs = append(allErrs, errors.Invalid("count", "", unset))
	}
	if core.Source != (api.EventSource{}) {
		allErrs = append(allErrs, errors.Invalid("source", "", unset))
	}
	return allErrs
}

// validateEventsV1EventUpdate checks an update through events.k8s.io/v1:
// an Event records what happened, so only its series (and metadata) may
// change; everything else is immutable.
func validateEventsV1EventUpdate(ev, oldEvent *api.EventsV1Event) errors.FieldErrorList {
	core, old := ev.ToCore(), oldEvent.ToCore()
	allErrs := ValidateObjectMetaUpdate(&core.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, validateEventFields(core, "reportingController")...)
	if !semanticEqual(core.Series, old.Series) {
		allErrs = append(allErrs, validateEventSeries(core.Series)...)
	}
	immutable := []struct {
		path     string
		new, old any
	}{
		{"involvedObject", core.InvolvedObject, old.InvolvedObject},
		{"reason", core.Reason, old.Reason},
		{"message", core.Message, old.Message},
		{"source", core.Source, old.Source},
		{"firstTimestamp", core.FirstTimestamp, old.FirstTimestamp},
		{"lastTimestamp", core.LastTimestamp, old.LastTimestamp},
		{"count", core.Count, old.Count},
		{"type", core.Type, old.Type},
		{"eventTime", core.EventTime, old.EventTime},
		{"action", core.Action, old.Action},
		{"related", core.Related, old.Related},
		{"reportingController", core.ReportingController, old.ReportingController},
		{"reportingInstance", core.ReportingInstance, old.ReportingInstance},
	}
	for _, f := range immutable {
		allErrs = append(allErrs, ValidateImmutableField(f.new, f.old, f.path)...)
	}
	return allErrs
}

// validateEventSeries checks an events.k8s.io/v1 series: it exists only
// for a repeated event, so it counts at least 2 and says when it was last
// seen.
func validateEventSeries(series *api.EventSeries) errors.FieldErrorList {
	if series == nil {
		return nil
	}
	var allErrs errors.FieldErrorList
	if series.Count < 2 {
		allErrs = append(allErrs, errors.Invalid("series.count", "", "should be at least 2"))
	}
	if series.LastObservedTime.IsZero() {
		allErrs = append(allErrs, errors.Required("series.lastObservedTime", ""))
	}
	return allErrs
}
