package describe

import (
	"kplane/pkg/api"
	"kplane/pkg/humanize"
)

// describeJob prints a Job: selector, who controls it (a CronJob),
// parallelism, completions and limits, when it started and finished, its
// pods by outcome, the pod template and Events.
func describeJob(in Input, s Settings) (string, error) {
	job, err := decode[api.Job](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", job.Name)
		w.write(level0, "Namespace:\t%s\n", job.Namespace)
		w.write(level0, "Selector:\t%s\n", selectorString(job.Spec.Selector))
		printLabelsMultiline(w, "Labels", job.Labels)
		printAnnotationsMultiline(w, "Annotations", job.Annotations)
		if controlledBy := controllerOf(job.ObjectMeta); controlledBy != "" {
			w.write(level0, "Controlled By:\t%s\n", controlledBy)
		}
		if job.Spec.Parallelism != nil {
			w.write(level0, "Parallelism:\t%d\n", *job.Spec.Parallelism)
		}
		if job.Spec.Completions != nil {
			w.write(level0, "Completions:\t%d\n", *job.Spec.Completions)
		} else {
			w.write(level0, "Completions:\t<unset>\n")
		}
		if job.Spec.CompletionMode != nil {
			w.write(level0, "Completion Mode:\t%s\n", *job.Spec.CompletionMode)
		}
		if job.Spec.Suspend != nil {
			w.write(level0, "Suspend:\t%v\n", *job.Spec.Suspend)
		}
		if job.Spec.BackoffLimit != nil {
			w.write(level0, "Backoff Limit:\t%v\n", *job.Spec.BackoffLimit)
		}
		if job.Spec.TTLSecondsAfterFinished != nil {
			w.write(level0, "TTL Seconds After Finished:\t%v\n", *job.Spec.TTLSecondsAfterFinished)
		}
		if job.Status.StartTime != nil {
			w.write(level0, "Start Time:\t%s\n", s.timestamp(job.Status.StartTime.Time))
		}
		if job.Status.CompletionTime != nil {
			w.write(level0, "Completed At:\t%s\n", s.timestamp(job.Status.CompletionTime.Time))
		}
		if job.Status.StartTime != nil && job.Status.CompletionTime != nil {
			w.write(level0, "Duration:\t%s\n", humanize.Duration(job.Status.CompletionTime.Sub(job.Status.StartTime.Time)))
		}
		if job.Spec.ActiveDeadlineSeconds != nil {
			w.write(level0, "Active Deadline Seconds:\t%ds\n", *job.Spec.ActiveDeadlineSeconds)
		}
		if job.Status.Ready == nil {
			w.write(level0, "Pods Statuses:\t%d Active / %d Succeeded / %d Failed\n", job.Status.Active, job.Status.Succeeded, job.Status.Failed)
		} else {
			w.write(level0, "Pods Statuses:\t%d Active (%d Ready) / %d Succeeded / %d Failed\n", job.Status.Active, *job.Status.Ready, job.Status.Succeeded, job.Status.Failed)
		}
		if job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == "Indexed" {
			w.write(level0, "Completed Indexes:\t%s\n", capIndexes(job.Status.CompletedIndexes, 50))
		}
		describePodTemplate(&job.Spec.Template, w, s)
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	}), nil
}

// capIndexes shortens a list of completed indexes ("1,3-5,7") after about
// softLimit characters, at a comma, with "...".
func capIndexes(indexes string, softLimit int) string {
	if indexes == "" {
		return "<none>"
	}
	i := softLimit
	for ; i < len(indexes); i++ {
		if indexes[i] == ',' {
			break
		}
	}
	if i >= len(indexes) {
		return indexes
	}
	return indexes[:i+1] + "..."
}

// describeCronJob prints a CronJob: its schedule and policies, the Job
// template (with its pod template), the last schedule time, the Jobs
// running now and Events.
func describeCronJob(in Input, s Settings) (string, error) {
	cj, err := decode[api.CronJob](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", cj.Name)
		w.write(level0, "Namespace:\t%s\n", cj.Namespace)
		printLabelsMultiline(w, "Labels", cj.Labels)
		printAnnotationsMultiline(w, "Annotations", cj.Annotations)
		w.write(level0, "Schedule:\t%s\n", cj.Spec.Schedule)
		w.write(level0, "Concurrency Policy:\t%s\n", cj.Spec.ConcurrencyPolicy)
		w.write(level0, "Suspend:\t%s\n", printBoolPtr(cj.Spec.Suspend))
		if cj.Spec.TimeZone != nil {
			w.write(level0, "Time Zone:\t%s\n", *cj.Spec.TimeZone)
		}
		if cj.Spec.SuccessfulJobsHistoryLimit != nil {
			w.write(level0, "Successful Job History Limit:\t%d\n", *cj.Spec.SuccessfulJobsHistoryLimit)
		} else {
			w.write(level0, "Successful Job History Limit:\t<unset>\n")
		}
		if cj.Spec.FailedJobsHistoryLimit != nil {
			w.write(level0, "Failed Job History Limit:\t%d\n", *cj.Spec.FailedJobsHistoryLimit)
		} else {
			w.write(level0, "Failed Job History Limit:\t<unset>\n")
		}
		if cj.Spec.StartingDeadlineSeconds != nil {
			w.write(level0, "Starting Deadline Seconds:\t%ds\n", *cj.Spec.StartingDeadlineSeconds)
		} else {
			w.write(level0, "Starting Deadline Seconds:\t<unset>\n")
		}
		describeJobTemplate(cj.Spec.JobTemplate, w, s)
		if cj.Status.LastScheduleTime != nil {
			w.write(level0, "Last Schedule Time:\t%s\n", s.timestamp(cj.Status.LastScheduleTime.Time))
		} else {
			w.write(level0, "Last Schedule Time:\t<unset>\n")
		}
		w.write(level0, "Active Jobs:\t")
		if len(cj.Status.Active) == 0 {
			w.writeLine("<none>")
		} else {
			for i, job := range cj.Status.Active {
				if i != 0 {
					w.write(level0, ", ")
				}
				w.write(level0, "%s", job.Name)
			}
			w.writeLine("")
		}
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	}), nil
}

func describeJobTemplate(t api.JobTemplateSpec, w prefixWriter, s Settings) {
	if t.Spec.Selector != nil {
		w.write(level0, "Selector:\t%s\n", selectorString(t.Spec.Selector))
	} else {
		w.write(level0, "Selector:\t<unset>\n")
	}
	if t.Spec.Parallelism != nil {
		w.write(level0, "Parallelism:\t%d\n", *t.Spec.Parallelism)
	} else {
		w.write(level0, "Parallelism:\t<unset>\n")
	}
	if t.Spec.Completions != nil {
		w.write(level0, "Completions:\t%d\n", *t.Spec.Completions)
	} else {
		w.write(level0, "Completions:\t<unset>\n")
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		w.write(level0, "Active Deadline Seconds:\t%ds\n", *t.Spec.ActiveDeadlineSeconds)
	}
	describePodTemplate(&t.Spec.Template, w, s)
}
