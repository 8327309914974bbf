package api

// This file holds the batch/v1 resources: Job (pods that run to completion)
// and CronJob (Jobs created on a schedule).

// Job runs pods until a number of them complete successfully, retrying
// failures up to backoffLimit.
type Job struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       JobSpec   `json:"spec,omitempty"`
	Status     JobStatus `json:"status,omitempty"`
}

// JobSpec is the desired state of a Job.
type JobSpec struct {
	Parallelism             *int32                `json:"parallelism,omitempty"`
	Completions             *int32                `json:"completions,omitempty"`
	ActiveDeadlineSeconds   *int64                `json:"activeDeadlineSeconds,omitempty"`
	PodFailurePolicy        *PodFailurePolicy     `json:"podFailurePolicy,omitempty"`
	SuccessPolicy           *SuccessPolicy        `json:"successPolicy,omitempty"`
	BackoffLimit            *int32                `json:"backoffLimit,omitempty"`
	BackoffLimitPerIndex    *int32                `json:"backoffLimitPerIndex,omitempty"`
	MaxFailedIndexes        *int32                `json:"maxFailedIndexes,omitempty"`
	Selector                *LabelSelector        `json:"selector,omitempty"`
	ManualSelector          *bool                 `json:"manualSelector,omitempty"`
	Template                PodTemplateSpec       `json:"template"`
	TTLSecondsAfterFinished *int32                `json:"ttlSecondsAfterFinished,omitempty"`
	CompletionMode          *CompletionMode       `json:"completionMode,omitempty"`
	Suspend                 *bool                 `json:"suspend,omitempty"`
	PodReplacementPolicy    *PodReplacementPolicy `json:"podReplacementPolicy,omitempty"`
	ManagedBy               *string               `json:"managedBy,omitempty"`
}

// CompletionMode says how a Job's pods are counted towards completion.
type CompletionMode string

// The completion modes; NonIndexed is the default.
const (
	// NonIndexedCompletion: any completions successful pods finish the Job.
	NonIndexedCompletion CompletionMode = "NonIndexed"
	// IndexedCompletion: each index 0…completions-1 needs one successful pod.
	IndexedCompletion CompletionMode = "Indexed"
)

// PodReplacementPolicy says when a failed pod's replacement is created.
type PodReplacementPolicy string

// The pod replacement policies.
const (
	// PodReplacementTerminatingOrFailed replaces a pod as soon as it starts terminating.
	PodReplacementTerminatingOrFailed PodReplacementPolicy = "TerminatingOrFailed"
	// PodReplacementFailed waits until the old pod has fully failed.
	PodReplacementFailed PodReplacementPolicy = "Failed"
)

// PodFailurePolicy decides, per failed pod, whether to fail the Job, ignore
// the failure, or count it against backoffLimit.
type PodFailurePolicy struct {
	Rules []PodFailurePolicyRule `json:"rules"`
}

// PodFailurePolicyAction is what a matching pod failure rule does.
type PodFailurePolicyAction string

// The pod failure policy actions.
const (
	PodFailurePolicyActionFailJob   PodFailurePolicyAction = "FailJob"
	PodFailurePolicyActionFailIndex PodFailurePolicyAction = "FailIndex"
	PodFailurePolicyActionIgnore    PodFailurePolicyAction = "Ignore"
	PodFailurePolicyActionCount     PodFailurePolicyAction = "Count"
)

// PodFailurePolicyRule matches failed pods by exit codes or pod conditions.
type PodFailurePolicyRule struct {
	Action          PodFailurePolicyAction                   `json:"action"`
	OnExitCodes     *PodFailurePolicyOnExitCodesRequirement  `json:"onExitCodes,omitempty"`
	OnPodConditions []PodFailurePolicyOnPodConditionsPattern `json:"onPodConditions,omitempty"`
}

// PodFailurePolicyOnExitCodesRequirement matches container exit codes (In or NotIn a set).
type PodFailurePolicyOnExitCodesRequirement struct {
	ContainerName *string `json:"containerName,omitempty"`
	Operator      string  `json:"operator"`
	Values        []int32 `json:"values"`
}

// PodFailurePolicyOnPodConditionsPattern matches a pod condition, e.g. DisruptionTarget=True.
type PodFailurePolicyOnPodConditionsPattern struct {
	Type   PodConditionType `json:"type"`
	Status ConditionStatus  `json:"status"`
}

// SuccessPolicy lets an Indexed Job succeed before every index completes.
type SuccessPolicy struct {
	Rules []SuccessPolicyRule `json:"rules"`
}

// SuccessPolicyRule is met when the given indexes, or a count of them, succeed.
type SuccessPolicyRule struct {
	SucceededIndexes *string `json:"succeededIndexes,omitempty"`
	SucceededCount   *int32  `json:"succeededCount,omitempty"`
}

// JobStatus is the observed state of a Job.
type JobStatus struct {
	Conditions              []JobCondition           `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	StartTime               *Time                    `json:"startTime,omitempty"`
	CompletionTime          *Time                    `json:"completionTime,omitempty"`
	Active                  int32                    `json:"active,omitempty"`
	Succeeded               int32                    `json:"succeeded,omitempty"`
	Failed                  int32                    `json:"failed,omitempty"`
	Terminating             *int32                   `json:"terminating,omitempty"`
	CompletedIndexes        string                   `json:"completedIndexes,omitempty"`
	FailedIndexes           *string                  `json:"failedIndexes,omitempty"`
	UncountedTerminatedPods *UncountedTerminatedPods `json:"uncountedTerminatedPods,omitempty"`
	Ready                   *int32                   `json:"ready,omitempty"`
}

// UncountedTerminatedPods lists the UIDs of finished pods the Job controller
// has not yet added to succeeded/failed (they still carry its finalizer).
type UncountedTerminatedPods struct {
	Succeeded []string `json:"succeeded,omitempty"`
	Failed    []string `json:"failed,omitempty"`
}

// JobConditionType names a Job condition.
type JobConditionType string

// The Job condition types.
const (
	JobSuspended          JobConditionType = "Suspended"
	JobComplete           JobConditionType = "Complete"
	JobFailed             JobConditionType = "Failed"
	JobFailureTarget      JobConditionType = "FailureTarget"
	JobSuccessCriteriaMet JobConditionType = "SuccessCriteriaMet"
)

// JobCondition is one condition of a Job.
type JobCondition struct {
	Type               JobConditionType `json:"type"`
	Status             ConditionStatus  `json:"status"`
	LastProbeTime      Time             `json:"lastProbeTime,omitempty"`
	LastTransitionTime Time             `json:"lastTransitionTime,omitempty"`
	Reason             string           `json:"reason,omitempty"`
	Message            string           `json:"message,omitempty"`
}

// Labels and finalizers the Job controller uses.
const (
	// JobControllerUIDLabel ties a Job's pods to it by UID.
	JobControllerUIDLabel = "batch.kubernetes.io/controller-uid"
	// JobNameLabel holds the Job's name on its pods.
	JobNameLabel = "batch.kubernetes.io/job-name"
	// LegacyJobControllerUIDLabel and LegacyJobNameLabel are the older, unprefixed labels, still set.
	LegacyJobControllerUIDLabel = "controller-uid"
	LegacyJobNameLabel          = "job-name"
	// JobCompletionIndexAnnotation holds an Indexed Job pod's index.
	JobCompletionIndexAnnotation = "batch.kubernetes.io/job-completion-index"
	// JobTrackingFinalizer keeps finished pods until the Job has counted them.
	JobTrackingFinalizer = "batch.kubernetes.io/job-tracking"
)

// JobTemplateSpec is the Job a CronJob creates.
type JobTemplateSpec struct {
	ObjectMeta `json:"metadata,omitempty"`
	Spec       JobSpec `json:"spec,omitempty"`
}

// CronJob creates a Job from its template at each time its cron schedule names.
type CronJob struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       CronJobSpec   `json:"spec,omitempty"`
	Status     CronJobStatus `json:"status,omitempty"`
}

// ConcurrencyPolicy says what a CronJob does when the previous Job is still running.
type ConcurrencyPolicy string

// The concurrency policies; Allow is the default.
const (
	AllowConcurrent   ConcurrencyPolicy = "Allow"
	ForbidConcurrent  ConcurrencyPolicy = "Forbid"
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
)

// CronJobSpec is the schedule and Job template of a CronJob.
type CronJobSpec struct {
	Schedule                   string            `json:"schedule"`
	TimeZone                   *string           `json:"timeZone,omitempty"`
	StartingDeadlineSeconds    *int64            `json:"startingDeadlineSeconds,omitempty"`
	ConcurrencyPolicy          ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`
	Suspend                    *bool             `json:"suspend,omitempty"`
	JobTemplate                JobTemplateSpec   `json:"jobTemplate"`
	SuccessfulJobsHistoryLimit *int32            `json:"successfulJobsHistoryLimit,omitempty"`
	FailedJobsHistoryLimit     *int32            `json:"failedJobsHistoryLimit,omitempty"`
}

// CronJobStatus is the observed state of a CronJob.
type CronJobStatus struct {
	Active             []ObjectReference `json:"active,omitempty"`
	LastScheduleTime   *Time             `json:"lastScheduleTime,omitempty"`
	LastSuccessfulTime *Time             `json:"lastSuccessfulTime,omitempty"`
}
