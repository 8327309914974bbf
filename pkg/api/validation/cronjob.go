package validation

import (
	"regexp"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// cronJobNameMaxLength leaves room in a DNS label for the suffix the CronJob
// controller appends to each Job's name (-<minutes since epoch>, 11 characters).
const cronJobNameMaxLength = DNS1035LabelMaxLength - 11

// validateCronJob checks a CronJob being created.
func validateCronJob(cj *api.CronJob) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&cj.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	if len(cj.Name) > cronJobNameMaxLength {
		allErrs = append(allErrs, errors.Invalid("metadata.name", cj.Name, maxLenError(cronJobNameMaxLength)))
	}
	return append(allErrs, validateCronJobSpec(&cj.Spec, "spec", false)...)
}

// validateCronJobUpdate checks an update. A TZ= prefix in the schedule is
// tolerated only if the old schedule already had one (objects from before
// spec.timeZone existed).
func validateCronJobUpdate(cj, old *api.CronJob) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&cj.ObjectMeta, &old.ObjectMeta, "metadata")
	return append(allErrs, validateCronJobSpec(&cj.Spec, "spec", strings.Contains(old.Spec.Schedule, "TZ"))...)
}

func validateCronJobSpec(spec *api.CronJobSpec, fldPath string, allowTZInSchedule bool) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	schedulePath := child(fldPath, "schedule")
	if spec.Schedule == "" {
		allErrs = append(allErrs, errors.Required(schedulePath, ""))
	} else {
		if err := parseCronSchedule(spec.Schedule); err != nil {
			allErrs = append(allErrs, errors.Invalid(schedulePath, spec.Schedule, err.Error()))
		}
		switch {
		case allowTZInSchedule && strings.Contains(spec.Schedule, "TZ") && spec.TimeZone != nil:
			allErrs = append(allErrs, errors.Invalid(schedulePath, spec.Schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
		case !allowTZInSchedule && strings.Contains(spec.Schedule, "TZ"):
			allErrs = append(allErrs, errors.Invalid(schedulePath, spec.Schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
		}
	}
	allErrs = append(allErrs, validateTimeZone(spec.TimeZone, child(fldPath, "timeZone"))...)
	if d := spec.StartingDeadlineSeconds; d != nil {
		allErrs = append(allErrs, ValidateNonnegativeField(*d, child(fldPath, "startingDeadlineSeconds"))...)
	}
	switch spec.ConcurrencyPolicy {
	case "", api.AllowConcurrent, api.ForbidConcurrent, api.ReplaceConcurrent:
	default:
		allErrs = append(allErrs, errors.NotSupported(child(fldPath, "concurrencyPolicy"), string(spec.ConcurrencyPolicy),
			[]string{string(api.AllowConcurrent), string(api.ForbidConcurrent), string(api.ReplaceConcurrent)}))
	}
	allErrs = append(allErrs, validateOptionalNonnegative(spec.SuccessfulJobsHistoryLimit, child(fldPath, "successfulJobsHistoryLimit"))...)
	allErrs = append(allErrs, validateOptionalNonnegative(spec.FailedJobsHistoryLimit, child(fldPath, "failedJobsHistoryLimit"))...)
	return append(allErrs, validateJobTemplateSpec(&spec.JobTemplate, child(fldPath, "jobTemplate"))...)
}

// validateJobTemplateSpec checks the Job a CronJob stamps out. Its selector
// is always generated for each Job, so the template may not carry one.
func validateJobTemplateSpec(tmpl *api.JobTemplateSpec, fldPath string) errors.FieldErrorList {
	allErrs := ValidateLabels(tmpl.Labels, child(fldPath, "metadata", "labels"))
	allErrs = append(allErrs, ValidateAnnotations(tmpl.Annotations, child(fldPath, "metadata", "annotations"))...)
	specPath := child(fldPath, "spec")
	allErrs = append(allErrs, validateJobSpec(&tmpl.Spec, specPath, false)...)
	if tmpl.Spec.Selector != nil {
		allErrs = append(allErrs, errors.Invalid(child(specPath, "selector"), tmpl.Spec.Selector, "`selector` will be auto-generated"))
	}
	if tmpl.Spec.ManualSelector != nil && *tmpl.Spec.ManualSelector {
		allErrs = append(allErrs, errors.NotSupported(child(specPath, "manualSelector"), true, []string{"nil", "false"}))
	}
	return allErrs
}

var timeZoneCharacters = regexp.MustCompile(`^[A-Za-z\.\-_0-9+]{1,14}$`)

// validateTimeZone checks spec.timeZone: an explicit IANA zone name such as
// "Europe/Paris", never "Local" (whose meaning would depend on the machine
// the controller happens to run on).
func validateTimeZone(zone *string, fldPath string) errors.FieldErrorList {
	if zone == nil {
		return nil
	}
	if *zone == "" {
		return errors.FieldErrorList{errors.Invalid(fldPath, *zone, "timeZone must be nil or non-empty string")}
	}
	for _, part := range strings.Split(*zone, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !timeZoneCharacters.MatchString(part) {
			return errors.FieldErrorList{errors.Invalid(fldPath, *zone, "unknown time zone "+*zone)}
		}
	}
	if strings.EqualFold(*zone, "Local") {
		return errors.FieldErrorList{errors.Invalid(fldPath, *zone, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones")}
	}
	if _, err := time.LoadLocation(*zone); err != nil {
		return errors.FieldErrorList{errors.Invalid(fldPath, *zone, err.Error())}
	}
	return nil
}
