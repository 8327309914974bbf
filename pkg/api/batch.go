package api

// This file holds the batch/v1 resources: Job (pods that run to completion)
// and CronJob (Jobs created on a schedule).

// Job runs pods until a number of them complete successfully, retrying
// failures up to backoffLimit.
type Job struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       JobSpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     JobStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// JobSpec is the desired state of a Job.
type JobSpec struct {
	Parallelism             *int32                `json:"parallelism,omitempty" protobuf:"varint,1,opt,name=parallelism"`
	Completions             *int32                `json:"completions,omitempty" protobuf:"varint,2,opt,name=completions"`
	ActiveDeadlineSeconds   *int64                `json:"activeDeadlineSeconds,omitempty" protobuf:"varint,3,opt,name=activeDeadlineSeconds"`
	PodFailurePolicy        *PodFailurePolicy     `json:"podFailurePolicy,omitempty" protobuf:"bytes,11,opt,name=podFailurePolicy"`
	SuccessPolicy           *SuccessPolicy        `json:"successPolicy,omitempty" protobuf:"bytes,16,opt,name=successPolicy"`
	BackoffLimit            *int32                `json:"backoffLimit,omitempty" protobuf:"varint,7,opt,name=backoffLimit"`
	BackoffLimitPerIndex    *int32                `json:"backoffLimitPerIndex,omitempty" protobuf:"varint,12,opt,name=backoffLimitPerIndex"`
	MaxFailedIndexes        *int32                `json:"maxFailedIndexes,omitempty" protobuf:"varint,13,opt,name=maxFailedIndexes"`
	Selector                *LabelSelector        `json:"selector,omitempty" protobuf:"bytes,4,opt,name=selector"`
	ManualSelector          *bool                 `json:"manualSelector,omitempty" protobuf:"varint,5,opt,name=manualSelector"`
	Template                PodTemplateSpec       `json:"template" protobuf:"bytes,6,opt,name=template"`
	TTLSecondsAfterFinished *int32                `json:"ttlSecondsAfterFinished,omitempty" protobuf:"varint,8,opt,name=ttlSecondsAfterFinished"`
	CompletionMode          *CompletionMode       `json:"completionMode,omitempty" protobuf:"bytes,9,opt,name=completionMode,casttype=CompletionMode"`
	Suspend                 *bool                 `json:"suspend,omitempty" protobuf:"varint,10,opt,name=suspend"`
	PodReplacementPolicy    *PodReplacementPolicy `json:"podReplacementPolicy,omitempty" protobuf:"bytes,14,opt,name=podReplacementPolicy,casttype=podReplacementPolicy"`
	ManagedBy               *string               `json:"managedBy,omitempty" protobuf:"bytes,15,opt,name=managedBy"`
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
	Rules []PodFailurePolicyRule `json:"rules" protobuf:"bytes,1,opt,name=rules"`
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
	Action          PodFailurePolicyAction                   `json:"action" protobuf:"bytes,1,req,name=action"`
	OnExitCodes     *PodFailurePolicyOnExitCodesRequirement  `json:"onExitCodes,omitempty" protobuf:"bytes,2,opt,name=onExitCodes"`
	OnPodConditions []PodFailurePolicyOnPodConditionsPattern `json:"onPodConditions,omitempty" protobuf:"bytes,3,opt,name=onPodConditions"`
}

// PodFailurePolicyOnExitCodesRequirement matches container exit codes (In or NotIn a set).
type PodFailurePolicyOnExitCodesRequirement struct {
	ContainerName *string `json:"containerName,omitempty" protobuf:"bytes,1,opt,name=containerName"`
	Operator      string  `json:"operator" protobuf:"bytes,2,req,name=operator"`
	Values        []int32 `json:"values" protobuf:"varint,3,rep,name=values"`
}

// PodFailurePolicyOnPodConditionsPattern matches a pod condition, e.g. DisruptionTarget=True.
type PodFailurePolicyOnPodConditionsPattern struct {
	Type   PodConditionType `json:"type" protobuf:"bytes,1,req,name=type"`
	Status ConditionStatus  `json:"status" protobuf:"bytes,2,req,name=status"`
}

// SuccessPolicy lets an Indexed Job succeed before every index completes.
type SuccessPolicy struct {
	Rules []SuccessPolicyRule `json:"rules" protobuf:"bytes,1,opt,name=rules"`
}

// SuccessPolicyRule is met when the given indexes, or a count of them, succeed.
type SuccessPolicyRule struct {
	SucceededIndexes *string `json:"succeededIndexes,omitempty" protobuf:"bytes,1,opt,name=succeededIndexes"`
	SucceededCount   *int32  `json:"succeededCount,omitempty" protobuf:"varint,2,opt,name=succeededCount"`
}

// JobStatus is the observed state of a Job.
type JobStatus struct {
	Conditions              []JobCondition           `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
	StartTime               *Time                    `json:"startTime,omitempty" protobuf:"bytes,2,opt,name=startTime"`
	CompletionTime          *Time                    `json:"completionTime,omitempty" protobuf:"bytes,3,opt,name=completionTime"`
	Active                  int32                    `json:"active,omitempty" protobuf:"varint,4,opt,name=active"`
	Succeeded               int32                    `json:"succeeded,omitempty" protobuf:"varint,5,opt,name=succeeded"`
	Failed                  int32                    `json:"failed,omitempty" protobuf:"varint,6,opt,name=failed"`
	Terminating             *int32                   `json:"terminating,omitempty" protobuf:"varint,11,opt,name=terminating"`
	CompletedIndexes        string                   `json:"completedIndexes,omitempty" protobuf:"bytes,7,opt,name=completedIndexes"`
	FailedIndexes           *string                  `json:"failedIndexes,omitempty" protobuf:"bytes,10,opt,name=failedIndexes"`
	UncountedTerminatedPods *UncountedTerminatedPods `json:"uncountedTerminatedPods,omitempty" protobuf:"bytes,8,opt,name=uncountedTerminatedPods"`
	Ready                   *int32                   `json:"ready,omitempty" protobuf:"varint,9,opt,name=ready"`
}

// UncountedTerminatedPods lists the UIDs of finished pods the Job controller
// has not yet added to succeeded/failed (they still carry its finalizer).
type UncountedTerminatedPods struct {
	Succeeded []string `json:"succeeded,omitempty" protobuf:"bytes,1,rep,name=succeeded,casttype=k8s.io/apimachinery/pkg/types.UID"`
	Failed    []string `json:"failed,omitempty" protobuf:"bytes,2,rep,name=failed,casttype=k8s.io/apimachinery/pkg/types.UID"`
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
	Type               JobConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=JobConditionType"`
	Status             ConditionStatus  `json:"status" protobuf:"bytes,2,opt,name=status,casttype=k8s.io/api/core/v1.ConditionStatus"`
	LastProbeTime      Time             `json:"lastProbeTime,omitempty" protobuf:"bytes,3,opt,name=lastProbeTime"`
	LastTransitionTime Time             `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	Reason             string           `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	Message            string           `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
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
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       JobSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// CronJob creates a Job from its template at each time its cron schedule names.
type CronJob struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       CronJobSpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     CronJobStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
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
	Schedule                   string            `json:"schedule" protobuf:"bytes,1,opt,name=schedule"`
	TimeZone                   *string           `json:"timeZone,omitempty" protobuf:"bytes,8,opt,name=timeZone"`
	StartingDeadlineSeconds    *int64            `json:"startingDeadlineSeconds,omitempty" protobuf:"varint,2,opt,name=startingDeadlineSeconds"`
	ConcurrencyPolicy          ConcurrencyPolicy `json:"concurrencyPolicy,omitempty" protobuf:"bytes,3,opt,name=concurrencyPolicy,casttype=ConcurrencyPolicy"`
	Suspend                    *bool             `json:"suspend,omitempty" protobuf:"varint,4,opt,name=suspend"`
	JobTemplate                JobTemplateSpec   `json:"jobTemplate" protobuf:"bytes,5,opt,name=jobTemplate"`
	SuccessfulJobsHistoryLimit *int32            `json:"successfulJobsHistoryLimit,omitempty" protobuf:"varint,6,opt,name=successfulJobsHistoryLimit"`
	FailedJobsHistoryLimit     *int32            `json:"failedJobsHistoryLimit,omitempty" protobuf:"varint,7,opt,name=failedJobsHistoryLimit"`
}

// CronJobStatus is the observed state of a CronJob.
type CronJobStatus struct {
	Active             []ObjectReference `json:"active,omitempty" protobuf:"bytes,1,rep,name=active"`
	LastScheduleTime   *Time             `json:"lastScheduleTime,omitempty" protobuf:"bytes,4,opt,name=lastScheduleTime"`
	LastSuccessfulTime *Time             `json:"lastSuccessfulTime,omitempty" protobuf:"bytes,5,opt,name=lastSuccessfulTime"`
}
