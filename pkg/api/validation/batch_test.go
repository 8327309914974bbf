package validation

import (
	"testing"

	"kplane/pkg/api"
)

const seedJob = `
apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  parallelism: 2
  completions: 5
  template:
    spec:
      containers:
        - name: pi
          image: perl
          command: ["perl",  "-Mbignum=bpi", "-wle", "print bpi(2000)"]
      restartPolicy: Never
`

func TestValidateJob(t *testing.T) {
	manual := true
	tests := []struct {
		name   string
		mutate func(j *api.Job)
		want   []fieldErr
	}{
		{"seed", func(j *api.Job) {}, nil},
		{"restartPolicy defaulted to Always", func(j *api.Job) { j.Spec.Template.Spec.RestartPolicy = api.RestartPolicyAlways },
			[]fieldErr{{notSupported, "spec.template.spec.restartPolicy"}}},
		{"OnFailure", func(j *api.Job) { j.Spec.Template.Spec.RestartPolicy = api.RestartPolicyOnFailure }, nil},
		{"negative parallelism", func(j *api.Job) { j.Spec.Parallelism = int32Ptr(-1) }, []fieldErr{{invalid, "spec.parallelism"}}},
		{"negative completions", func(j *api.Job) { j.Spec.Completions = int32Ptr(-1) }, []fieldErr{{invalid, "spec.completions"}}},
		{"negative backoffLimit", func(j *api.Job) { j.Spec.BackoffLimit = int32Ptr(-1) }, []fieldErr{{invalid, "spec.backoffLimit"}}},
		{"zero deadline", func(j *api.Job) { j.Spec.ActiveDeadlineSeconds = int64Ptr(0) }, []fieldErr{{invalid, "spec.activeDeadlineSeconds"}}},
		{"manual selector missing", func(j *api.Job) { j.Spec.ManualSelector = &manual }, []fieldErr{{required, "spec.selector"}}},
		{"manual selector matching", func(j *api.Job) {
			j.Spec.ManualSelector = &manual
			j.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"job": "pi"}}
			j.Spec.Template.Labels = map[string]string{"job": "pi"}
		}, nil},
		{"generated selector matching", func(j *api.Job) {
			j.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{api.JobControllerUIDLabel: "123"}}
			j.Spec.Template.Labels = map[string]string{api.JobControllerUIDLabel: "123", api.JobNameLabel: "pi"}
		}, nil},
		{"selector not matching", func(j *api.Job) {
			j.Spec.ManualSelector = &manual
			j.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"job": "pi"}}
		}, []fieldErr{{invalid, "spec.template.metadata.labels"}}},
		{"indexed without completions", func(j *api.Job) {
			j.Spec.Completions = nil
			mode := api.IndexedCompletion
			j.Spec.CompletionMode = &mode
		}, []fieldErr{{required, "spec.completions"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := decode[*api.Job](t, seedJob)
			tt.mutate(j)
			expectFields(t, ValidateCreate(j), tt.want...)
		})
	}
	j := decode[*api.Job](t, seedJob)
	j.Spec.Template.Spec.RestartPolicy = api.RestartPolicyAlways
	expectMessages(t, ValidateCreate(j), `spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"`)
}

func TestValidateJobUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(j *api.Job)
		want   []fieldErr
	}{
		{"parallelism", func(j *api.Job) { j.Spec.Parallelism = int32Ptr(3) }, nil},
		{"suspend", func(j *api.Job) { s := true; j.Spec.Suspend = &s }, nil},
		{"completions", func(j *api.Job) { j.Spec.Completions = int32Ptr(6) }, []fieldErr{{invalid, "spec.completions"}}},
		{"template", func(j *api.Job) { j.Spec.Template.Spec.Containers[0].Image = "perl:5" }, []fieldErr{{invalid, "spec.template"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := asStored(decode[*api.Job](t, seedJob))
			j := asStored(old)
			tt.mutate(j)
			expectFields(t, ValidateUpdate(j, old), tt.want...)
		})
	}
	old := asStored(decode[*api.Job](t, seedJob))
	j := asStored(old)
	j.Spec.Template.Spec.Containers[0].Image = "perl:5"
	expectMessages(t, ValidateUpdate(j, old), "spec.template: Invalid value: field is immutable\nchanged: spec.template.spec.containers[0].image")
}

const baseCronJob = `
apiVersion: batch/v1
kind: CronJob
metadata:
  name: hello
spec:
  schedule: "*/1 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - name: hello
            image: busybox
            command: [sh, -c, date; echo Hello]
          restartPolicy: OnFailure
`

func TestValidateCronJob(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(c *api.CronJob)
		want   []fieldErr
	}{
		{"valid", func(c *api.CronJob) {}, nil},
		{"@hourly", func(c *api.CronJob) { c.Spec.Schedule = "@hourly" }, nil},
		{"no schedule", func(c *api.CronJob) { c.Spec.Schedule = "" }, []fieldErr{{required, "spec.schedule"}}},
		{"six fields", func(c *api.CronJob) { c.Spec.Schedule = "0 */1 * * * *" }, []fieldErr{{invalid, "spec.schedule"}}},
		{"minute 60", func(c *api.CronJob) { c.Spec.Schedule = "60 * * * *" }, []fieldErr{{invalid, "spec.schedule"}}},
		{"TZ in schedule", func(c *api.CronJob) { c.Spec.Schedule = "TZ=UTC 0 * * * *" }, []fieldErr{{invalid, "spec.schedule"}}},
		{"time zone", func(c *api.CronJob) { c.Spec.TimeZone = strPtr("Europe/Paris") }, nil},
		{"bad time zone", func(c *api.CronJob) { c.Spec.TimeZone = strPtr("Mars/Olympus") }, []fieldErr{{invalid, "spec.timeZone"}}},
		{"Local time zone", func(c *api.CronJob) { c.Spec.TimeZone = strPtr("Local") }, []fieldErr{{invalid, "spec.timeZone"}}},
		{"bad concurrencyPolicy", func(c *api.CronJob) { c.Spec.ConcurrencyPolicy = "Sometimes" }, []fieldErr{{notSupported, "spec.concurrencyPolicy"}}},
		{"Forbid", func(c *api.CronJob) { c.Spec.ConcurrencyPolicy = api.ForbidConcurrent }, nil},
		{"name too long", func(c *api.CronJob) { c.Name = "a-cronjob-name-that-is-longer-than-fifty-two-characters" }, []fieldErr{{invalid, "metadata.name"}}},
		{"selector in template", func(c *api.CronJob) {
			c.Spec.JobTemplate.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
		}, []fieldErr{{invalid, "spec.jobTemplate.spec.selector"}}},
		{"template restartPolicy Always", func(c *api.CronJob) { c.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = api.RestartPolicyAlways },
			[]fieldErr{{notSupported, "spec.jobTemplate.spec.template.spec.restartPolicy"}}},
		{"negative history limit", func(c *api.CronJob) { c.Spec.FailedJobsHistoryLimit = int32Ptr(-1) }, []fieldErr{{invalid, "spec.failedJobsHistoryLimit"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := decode[*api.CronJob](t, baseCronJob)
			tt.mutate(c)
			expectFields(t, ValidateCreate(c), tt.want...)
		})
	}
	c := decode[*api.CronJob](t, baseCronJob)
	c.Spec.Schedule = "0 */1 * * * *"
	expectMessages(t, ValidateCreate(c), `spec.schedule: Invalid value: "0 */1 * * * *": expected exactly 5 fields, found 6: [0 */1 * * * *]`)

	old := asStored(decode[*api.CronJob](t, baseCronJob))
	c = asStored(old)
	c.Spec.Schedule = "@daily"
	expectFields(t, ValidateUpdate(c, old))
}
