package chaos

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
)

// DeploymentBounds are the limits a rolling update promises to keep its
// pods in: at most Replicas+MaxSurge that are not terminating, at least
// Replicas-MaxUnavailable available.
type DeploymentBounds struct {
	Replicas, MaxSurge, MaxUnavailable int
	// MinReadySeconds is how long a pod must have been Ready to count as
	// available.
	MinReadySeconds int32
}

// BoundsFor resolves a Deployment's rolling-update parameters against its
// replicas as upstream's ResolveFenceposts does
// (pkg/controller/deployment/util/deployment_util.go): maxSurge rounds a
// percentage up, maxUnavailable rounds it down, and when both come out 0
// maxUnavailable is 1, so that a rollout can progress at all.
func BoundsFor(d *api.Deployment) (DeploymentBounds, error) {
	replicas := 1
	if d.Spec.Replicas != nil {
		replicas = int(*d.Spec.Replicas)
	}
	// Upstream's defaults: 25% and 25%.
	surge, unavailable := api.FromString("25%"), api.FromString("25%")
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		if ru.MaxSurge != nil {
			surge = *ru.MaxSurge
		}
		if ru.MaxUnavailable != nil {
			unavailable = *ru.MaxUnavailable
		}
	}
	maxSurge, err := api.ScaledValueFromIntOrPercent(&surge, replicas, true)
	if err != nil {
		return DeploymentBounds{}, fmt.Errorf("deployment %s maxSurge: %w", d.Name, err)
	}
	maxUnavailable, err := api.ScaledValueFromIntOrPercent(&unavailable, replicas, false)
	if err != nil {
		return DeploymentBounds{}, fmt.Errorf("deployment %s maxUnavailable: %w", d.Name, err)
	}
	if maxSurge == 0 && maxUnavailable == 0 {
		maxUnavailable = 1
	}
	return DeploymentBounds{Replicas: replicas, MaxSurge: maxSurge, MaxUnavailable: maxUnavailable,
		MinReadySeconds: d.Spec.MinReadySeconds}, nil
}

// Violation is one sampled moment at which an invariant did not hold.
type Violation struct {
	// At is when the sample was taken; Cause is the event that led to it
	// ("MODIFIED web-7f9c-x2x4q", "relist").
	At    time.Time
	Cause string
	// Message says which invariant broke and by how much.
	Message string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s after %s: %s", v.At.Format("15:04:05.000"), v.Cause, v.Message)
}

// maxKeptViolations bounds the violations kept for the report: the first
// few say what went wrong; thousands more would only repeat it.
const maxKeptViolations = 20

// Checker holds the invariants of one Deployment and one StatefulSet and
// checks them against every pod set a watcher hands it. It is safe for
// concurrent use: the scenario changes the bounds while the watcher checks.
type Checker struct {
	// deploymentLabels and statefulSetLabels select each workload's pods
	// (every label must match); statefulSetName prefixes its pods' names.
	deploymentLabels, statefulSetLabels map[string]string
	statefulSetName                     string

	mu     sync.Mutex
	bounds DeploymentBounds
	// availabilityArmed turns on the lower bound: a Deployment that is
	// still creating its first pods has fewer available than it promises
	// for a rollout, and that is no violation.
	availabilityArmed bool
	samples           int
	violations        []Violation
	violationCount    int
	// mostNonTerminating and fewestAvailable are the extremes seen, for
	// the run's summary (fewestAvailable only while armed; -1 before).
	mostNonTerminating, fewestAvailable int
	mostPerOrdinal                      int
}

// NewChecker returns a Checker for the Deployment pods matching
// deploymentLabels and the StatefulSet named statefulSetName whose pods
// match statefulSetLabels.
func NewChecker(deploymentLabels map[string]string, statefulSetName string, statefulSetLabels map[string]string) *Checker {
	return &Checker{deploymentLabels: deploymentLabels, statefulSetName: statefulSetName,
		statefulSetLabels: statefulSetLabels, fewestAvailable: -1}
}

// SetBounds sets the Deployment's limits from now on. Change them only
// while the Deployment is at rest (its rollout complete), where the old and
// the new limits both hold.
func (c *Checker) SetBounds(b DeploymentBounds) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bounds = b
}

// ArmAvailability turns on the lower bound on available pods; call it once
// the Deployment has been fully available.
func (c *Checker) ArmAvailability() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.availabilityArmed = true
}

// Check takes one sample: pods is the namespace's whole pod set after the
// event cause, at time now.
func (c *Checker) Check(now time.Time, cause string, pods []*api.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.samples++
	nonTerminating, available := 0, 0
	perOrdinal := map[int][]string{}
	for _, pod := range pods {
		if matches(pod, c.deploymentLabels) && !isTerminating(pod) {
			nonTerminating++
			if controllerutil.IsPodAvailable(pod, c.bounds.MinReadySeconds, now) {
				available++
			}
		}
		if matches(pod, c.statefulSetLabels) {
			if ordinal, ok := ordinalOf(c.statefulSetName, pod.Name); ok {
				perOrdinal[ordinal] = append(perOrdinal[ordinal], pod.UID)
			}
		}
	}
	c.mostNonTerminating = max(c.mostNonTerminating, nonTerminating)
	if most := c.bounds.Replicas + c.bounds.MaxSurge; nonTerminating > most {
		c.violate(now, cause, fmt.Sprintf("%d non-terminating pods of the Deployment, more than replicas+maxSurge = %d+%d",
			nonTerminating, c.bounds.Replicas, c.bounds.MaxSurge))
	}
	if c.availabilityArmed {
		if c.fewestAvailable < 0 || available < c.fewestAvailable {
			c.fewestAvailable = available
		}
		if least := c.bounds.Replicas - c.bounds.MaxUnavailable; available < least {
			c.violate(now, cause, fmt.Sprintf("%d available pods of the Deployment, fewer than replicas-maxUnavailable = %d-%d",
				available, c.bounds.Replicas, c.bounds.MaxUnavailable))
		}
	}
	for ordinal, uids := range perOrdinal {
		c.mostPerOrdinal = max(c.mostPerOrdinal, len(uids))
		if len(uids) > 1 {
			c.violate(now, cause, fmt.Sprintf("%d pods of StatefulSet %s with ordinal %d (uids %s)",
				len(uids), c.statefulSetName, ordinal, strings.Join(uids, ", ")))
		}
	}
}

func (c *Checker) violate(now time.Time, cause, message string) {
	c.violationCount++
	if len(c.violations) < maxKeptViolations {
		c.violations = append(c.violations, Violation{At: now, Cause: cause, Message: message})
	}
}

// CheckerReport is what a Checker saw over a run.
type CheckerReport struct {
	// Samples is how many pod sets were checked (one per watch event or
	// relist).
	Samples int
	// Violations are the first few broken samples; ViolationCount counts
	// them all.
	Violations     []Violation
	ViolationCount int
	// MostNonTerminating and FewestAvailable are the extremes sampled
	// (FewestAvailable is -1 if availability was never armed);
	// MostPerOrdinal is the most pods seen at once with one ordinal.
	MostNonTerminating, FewestAvailable, MostPerOrdinal int
}

// Report returns what the checker saw so far.
func (c *Checker) Report() CheckerReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CheckerReport{Samples: c.samples, Violations: append([]Violation(nil), c.violations...),
		ViolationCount: c.violationCount, MostNonTerminating: c.mostNonTerminating,
		FewestAvailable: c.fewestAvailable, MostPerOrdinal: c.mostPerOrdinal}
}

// isTerminating reports whether a pod is on its way out: marked for
// deletion, or finished (upstream's controllers do not count Succeeded or
// Failed pods as active either).
func isTerminating(pod *api.Pod) bool {
	return pod.DeletionTimestamp != nil || pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed
}

// matches reports whether pod carries every label in selector; an empty
// selector matches nothing, so a checker without a workload checks nothing.
func matches(pod *api.Pod, selector map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if pod.Labels[k] != v {
			return false
		}
	}
	return true
}

// ordinalOf parses the ordinal of a StatefulSet pod, named <set>-<ordinal>.
func ordinalOf(statefulSet, podName string) (int, bool) {
	suffix, ok := strings.CutPrefix(podName, statefulSet+"-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(suffix)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
