package ctl

import (
	"fmt"

	"github.com/spf13/cobra"
)

// newCreateJobCommand is `ctl create job NAME --image=… | --from=cronjob/NAME`.
func newCreateJobCommand(f *factory) *cobra.Command {
	var w writeFlags
	var image, from string
	cmd := &cobra.Command{
		Use:   "job NAME --image=image [--from=cronjob/name] -- [COMMAND] [args...]",
		Short: "Create a job that runs an image, or a CronJob's job now",
		Long: `job creates a Job whose one pod runs --image to completion (restartPolicy
Never); words after -- are the container's command. --from=cronjob/NAME
instead starts the CronJob's job template right now, as the CronJob
controller would at its next schedule: the Job is owned by the CronJob and
annotated cronjob.kubernetes.io/instantiate=manual.`,
		Example: `  ctl create job hello --image=busybox -- echo hello
  ctl create job backup-now --from=cronjob/backup`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || cmd.ArgsLenAtDash() == 0 {
				return usageError(cmd.CommandPath(), "exactly one NAME is required, got 0")
			}
			name, words := args[0], args[1:]
			if (image == "") == (from == "") {
				return fmt.Errorf("either --image or --from must be specified")
			}
			var job map[string]any
			if image != "" {
				job = jobObject(name, nil, nil, jobSpecFor(name, image, words, "Never"))
			} else {
				var err error
				if job, err = jobFromCronJob(cmd, f, name, from); err != nil {
					return err
				}
			}
			return generated(cmd.Context(), f, &w, job, true)
		},
	}
	cmd.Flags().StringVar(&image, "image", "", "the image the job's container runs")
	cmd.Flags().StringVar(&from, "from", "", "cronjob/NAME: run this CronJob's job template now")
	w.add(cmd.Flags(), "kubectl-create")
	return cmd
}

// jobSpecFor is the JobSpec kubectl's job and cronjob generators build:
// one container named after the object, running command if given.
func jobSpecFor(name, image string, command []string, restartPolicy string) map[string]any {
	container := map[string]any{"name": name, "image": image, "resources": map[string]any{}}
	if len(command) > 0 {
		container["command"] = stringsToAny(command)
	}
	return map[string]any{
		"template": map[string]any{
			"metadata": map[string]any{"creationTimestamp": nil},
			"spec": map[string]any{
				"containers":    []any{container},
				"restartPolicy": restartPolicy,
			},
		},
	}
}

// jobObject is a generated Job.
func jobObject(name string, labels, annotations map[string]any, spec map[string]any) map[string]any {
	meta := map[string]any{"name": name, "creationTimestamp": nil}
	if len(labels) > 0 {
		meta["labels"] = labels
	}
	if len(annotations) > 0 {
		meta["annotations"] = annotations
	}
	return map[string]any{
		"apiVersion": "batch/v1", "kind": "Job",
		"metadata": meta, "spec": spec, "status": map[string]any{},
	}
}

// jobFromCronJob builds the Job a CronJob would start, owned by it.
func jobFromCronJob(cmd *cobra.Command, f *factory, name, from string) (map[string]any, error) {
	sel := selection{}
	found, err := sel.visit(cmd.Context(), f, []string{from}, cmd.CommandPath())
	if err != nil {
		return nil, err
	}
	if len(found.errs) > 0 {
		return nil, found.errs[0]
	}
	cronJob := found.infos[0]
	if cronJob.resource.Kind != "CronJob" {
		// Worded with the Go type kubectl decoded, as kubectl words it.
		return nil, fmt.Errorf("unknown object type *%s.%s", cronJob.resource.Version, cronJob.resource.Kind)
	}
	spec, _ := cronJob.object["spec"].(map[string]any)
	template, _ := spec["jobTemplate"].(map[string]any)
	templateMeta, _ := template["metadata"].(map[string]any)
	labels, _ := templateMeta["labels"].(map[string]any)
	annotations := map[string]any{"cronjob.kubernetes.io/instantiate": "manual"}
	if a, ok := templateMeta["annotations"].(map[string]any); ok {
		for k, v := range a {
			annotations[k] = v
		}
	}
	jobSpec, _ := template["spec"].(map[string]any)
	job := jobObject(name, labels, annotations, deepCopyObject(jobSpec))
	job["metadata"].(map[string]any)["ownerReferences"] = []any{map[string]any{
		"apiVersion": "batch/v1", "kind": "CronJob", "name": cronJob.name,
		"uid": metadataString(cronJob.object, "uid"), "controller": true,
	}}
	return job, nil
}

// newCreateCronJobCommand is `ctl create cronjob NAME --image=… --schedule=…`.
func newCreateCronJobCommand(f *factory) *cobra.Command {
	var w writeFlags
	var image, schedule, restart string
	cmd := &cobra.Command{
		Use:     "cronjob NAME --image=image --schedule='0/5 * * * ?' -- [COMMAND] [args...]",
		Aliases: []string{"cj"},
		Short:   "Create a cron job",
		Long: `cronjob creates a CronJob: at each time --schedule (cron syntax: minute hour
day-of-month month day-of-week, or @hourly, @daily…) matches, the CronJob
controller creates a Job from the template, whose one container runs
--image; words after -- are its command.`,
		Example: `  ctl create cronjob tick --image=busybox --schedule='*/1 * * * *' -- date`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || cmd.ArgsLenAtDash() == 0 {
				return usageError(cmd.CommandPath(), "exactly one NAME is required, got 0")
			}
			name := args[0]
			return generated(cmd.Context(), f, &w, map[string]any{
				"apiVersion": "batch/v1", "kind": "CronJob",
				"metadata": map[string]any{"name": name, "creationTimestamp": nil},
				"spec": map[string]any{
					"schedule": schedule,
					"jobTemplate": map[string]any{
						"metadata": map[string]any{"name": name, "creationTimestamp": nil},
						"spec":     jobSpecFor(name, image, args[1:], restart),
					},
				},
				"status": map[string]any{},
			}, true)
		},
	}
	cmd.Flags().StringVar(&image, "image", "", "the image the jobs' container runs (required)")
	cmd.Flags().StringVar(&schedule, "schedule", "", "when to start a job, in cron syntax (required)")
	cmd.Flags().StringVar(&restart, "restart", "OnFailure", "the jobs' pods' restartPolicy: OnFailure or Never")
	_ = cmd.MarkFlagRequired("image")
	_ = cmd.MarkFlagRequired("schedule")
	w.add(cmd.Flags(), "kubectl-create")
	return cmd
}
