package podautoscaler

// This file is the arithmetic of one metric: from the pods' usage and
// their requests to a replica count, as upstream's
// pkg/controller/podautoscaler/replica_calculator.go computes it. Every
// function here is pure — pods, metrics and the time in, numbers out — so
// the table tests in replica_calculator_test.go pin the behaviour down.
//
// The core is one ratio: usage over target. Utilization 150% against a
// target of 50% is a ratio of 3, so 2 pods become ceil(3 × 2) = 6. Around
// it sit upstream's three refinements:
//
//   - tolerance: a ratio within 1 ± 0.1 changes nothing, so noise in the
//     measurements does not make the HPA flap;
//   - missing metrics: a running pod with no figure yet is assumed to use
//     its full request (100%, or the target if higher) when the others say
//     "scale down", and nothing when they say "scale up" — the assumption
//     that moves the count least;
//   - unready pods: a pod not yet Ready (or, for CPU, still in its
//     initialization period) is assumed to use nothing, and only when the
//     others say "scale up": a starting pod's CPU burst must not cause a
//     second scale-up.
//
// With assumptions made, the ratio is recomputed; if the assumptions flip
// the direction, or bring the ratio within tolerance, nothing changes.

import (
	"errors"
	"fmt"
	"math"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
)

// PodMetric is one pod's usage of a resource, in milli-units (millicores,
// or millibytes for memory, as upstream keeps them), and the sample's end
// and length.
type PodMetric struct {
	Timestamp time.Time
	Window    time.Duration
	Value     int64
}

// PodMetricsInfo is the usage of each pod, by pod name.
type PodMetricsInfo map[string]PodMetric

// calculatorOptions are the controller's tunables that the arithmetic uses.
type calculatorOptions struct {
	// scaleUpTolerance and scaleDownTolerance are how far above and below
	// 1 the usage ratio may be before the HPA acts: the controller's
	// --horizontal-pod-autoscaler-tolerance (0.1), or an HPA's own
	// behavior.scaleUp/scaleDown.tolerance (upstream's 1.33
	// HPAConfigurableTolerance).
	scaleUpTolerance, scaleDownTolerance float64
	// cpuInitializationPeriod is how long after a pod starts its CPU
	// figures are suspect (--horizontal-pod-autoscaler-cpu-initialization-period, 5m).
	cpuInitializationPeriod time.Duration
	// initialReadinessDelay is how long after a pod starts a flip of its
	// Ready condition counts as "still starting" rather than "has been
	// ready before" (--horizontal-pod-autoscaler-initial-readiness-delay, 30s).
	initialReadinessDelay time.Duration
}

// within reports whether ratio is close enough to 1 to change nothing.
func (o calculatorOptions) within(ratio float64) bool {
	return 1.0-o.scaleDownTolerance <= ratio && ratio <= 1.0+o.scaleUpTolerance
}

// podGroups sorts the target's pods for one metric, as upstream's groupPods.
type podGroups struct {
	// ready counts the pods whose figure is used as measured.
	ready int
	// unready are pending pods and, for CPU, pods not yet Ready or still
	// starting: their figures are set aside.
	unready map[string]bool
	// missing are running pods without a figure.
	missing map[string]bool
	// ignored are pods being deleted or failed: they count for nothing.
	ignored map[string]bool
}

// groupPods sorts pods by how their figure in metrics is to be used, at
// time now.
func groupPods(pods []*api.Pod, metrics PodMetricsInfo, resource api.ResourceName, opts calculatorOptions, now time.Time) podGroups {
	g := podGroups{unready: map[string]bool{}, missing: map[string]bool{}, ignored: map[string]bool{}}
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil || pod.Status.Phase == api.PodFailed {
			g.ignored[pod.Name] = true
			continue
		}
		if pod.Status.Phase == api.PodPending {
			g.unready[pod.Name] = true
			continue
		}
		metric, found := metrics[pod.Name]
		if !found {
			g.missing[pod.Name] = true
			continue
		}
		if resource == api.ResourceCPU && cpuSampleUnready(pod, metric, opts, now) {
			g.unready[pod.Name] = true
			continue
		}
		g.ready++
	}
	return g
}

// cpuSampleUnready reports whether a pod's CPU sample is set aside: the
// pod is not Ready, or is within its initialization period and the sample
// was (partly) taken before it became Ready; after that period, only a pod
// that has never been Ready since its start is set aside.
func cpuSampleUnready(pod *api.Pod, metric PodMetric, opts calculatorOptions, now time.Time) bool {
	ready := controllerutil.GetPodReadyCondition(pod)
	if ready == nil || pod.Status.StartTime == nil {
		return true
	}
	start := pod.Status.StartTime.Time
	if start.Add(opts.cpuInitializationPeriod).After(now) {
		return ready.Status == api.ConditionFalse || metric.Timestamp.Before(ready.LastTransitionTime.Add(metric.Window))
	}
	return ready.Status == api.ConditionFalse && start.Add(opts.initialReadinessDelay).After(ready.LastTransitionTime.Time)
}

// podRequests sums each pod's request of resource (of one container, when
// container is set). A container without a request makes utilization
// meaningless: upstream's error.
func podRequests(pods []*api.Pod, container string, resource api.ResourceName) (map[string]int64, error) {
	requests := make(map[string]int64, len(pods))
	for _, pod := range pods {
		var sum int64
		for _, c := range pod.Spec.Containers {
			if container != "" && c.Name != container {
				continue
			}
			q, ok := c.Resources.Requests[resource]
			if !ok {
				return nil, fmt.Errorf("missing request for %s in container %s of Pod %s", resource, c.Name, pod.Name)
			}
			sum += q.MilliValue()
		}
		requests[pod.Name] = sum
	}
	return requests, nil
}

// utilizationRatio is upstream's GetResourceUtilizationRatio: the pods'
// total usage over their total request, in percent (rounded down), that
// over the target; and the raw average usage per pod, in milli-units.
func utilizationRatio(metrics PodMetricsInfo, requests map[string]int64, target int32) (ratio float64, utilization int32, rawAverage int64, err error) {
	var usageTotal, requestTotal int64
	entries := 0
	for name, m := range metrics {
		request, ok := requests[name]
		if !ok {
			continue // a pod the lister does not know (yet)
		}
		usageTotal += m.Value
		requestTotal += request
		entries++
	}
	if requestTotal == 0 {
		return 0, 0, 0, errors.New("no metrics returned matched known pods")
	}
	utilization = int32(usageTotal * 100 / requestTotal)
	return float64(utilization) / float64(target), utilization, usageTotal / int64(entries), nil
}

// averageRatio is upstream's GetMetricUsageRatio: the average usage per pod
// over the target average.
func averageRatio(metrics PodMetricsInfo, target int64) (ratio float64, average int64) {
	var total int64
	for _, m := range metrics {
		total += m.Value
	}
	average = total / int64(len(metrics))
	return float64(average) / float64(target), average
}

// replicaProposal is one metric's answer: the replica count it asks for and
// the figures behind it, which the status and the decision record show.
type replicaProposal struct {
	replicas int32
	// utilization is the average utilization in percent (Utilization
	// targets only); average the average usage per pod, milli-units.
	utilization int32
	average     int64
	// ratio is usage over target as measured, before any assumption.
	ratio float64
	// readyPods, missingPods, unreadyPods, ignoredPods count the groups.
	readyPods, missingPods, unreadyPods, ignoredPods int
	// assumed says which assumption was made, for the record ("" if none).
	assumed string
}

// prepareMetrics is the start both calculations share: it sorts pods
// into groups and returns a copy of metrics without the figures of ignored
// and unready pods, the figures the measured ratio is taken from. No pods,
// or no figure left, is upstream's error.
func prepareMetrics(pods []*api.Pod, metrics PodMetricsInfo, resource api.ResourceName, opts calculatorOptions, now time.Time) (PodMetricsInfo, podGroups, error) {
	if len(pods) == 0 {
		return nil, podGroups{}, errors.New("no pods returned by selector while calculating replica count")
	}
	metrics = copyMetrics(metrics)
	groups := groupPods(pods, metrics, resource, opts, now)
	removeMetrics(metrics, groups.ignored)
	removeMetrics(metrics, groups.unready)
	if len(metrics) == 0 {
		return nil, podGroups{}, errors.New("did not receive metrics for targeted pods (pods might be unready)")
	}
	return metrics, groups, nil
}

// newProposal is a proposal to keep currentReplicas, with the measured
// ratio and the size of each group.
func newProposal(currentReplicas int32, ratio float64, groups podGroups) replicaProposal {
	return replicaProposal{replicas: currentReplicas, ratio: ratio,
		readyPods: groups.ready, missingPods: len(groups.missing), unreadyPods: len(groups.unready), ignoredPods: len(groups.ignored)}
}

// measuredReplicas is the count the measured ratio asks for when no
// assumption is to be made — no pod lacks a figure, and no unready pod was
// set aside while the ratio says scale up — with measured true; outside
// tolerance that is ceil(ratio × ready pods), within it currentReplicas.
func measuredReplicas(currentReplicas int32, ratio float64, groups podGroups, opts calculatorOptions) (replicas int32, measured bool) {
	if len(groups.missing) > 0 || scaleUpWithUnready(ratio, groups) {
		return 0, false
	}
	if opts.within(ratio) {
		return currentReplicas, true
	}
	return int32(math.Ceil(ratio * float64(groups.ready))), true
}

// scaleUpWithUnready reports whether the unready pods' figures are to be
// assumed: only when there are some and the ratio says scale up.
func scaleUpWithUnready(ratio float64, groups podGroups) bool {
	return len(groups.unready) > 0 && ratio > 1.0
}

// assumeUnreadyIdle puts the unready pods back into metrics at zero usage
// when the ratio says scale up (upstream's rule for both calculations),
// and returns assumed with that assumption added.
func assumeUnreadyIdle(metrics PodMetricsInfo, groups podGroups, ratio float64, assumed string) string {
	if !scaleUpWithUnready(ratio, groups) {
		return assumed
	}
	for name := range groups.unready {
		metrics[name] = PodMetric{Value: 0}
	}
	return joinAssumptions(assumed, fmt.Sprintf("%d unready pods assumed idle", len(groups.unready)))
}

// resourceUtilizationReplicas is upstream's GetResourceReplicas: the
// replicas that bring the pods' average utilization of resource to
// target percent of their requests.
func resourceUtilizationReplicas(currentReplicas, target int32, resource api.ResourceName, container string,
	pods []*api.Pod, metrics PodMetricsInfo, opts calculatorOptions, now time.Time) (replicaProposal, error) {
	metrics, groups, err := prepareMetrics(pods, metrics, resource, opts, now)
	if err != nil {
		return replicaProposal{}, err
	}
	requests, err := podRequests(pods, container, resource)
	if err != nil {
		return replicaProposal{}, err
	}
	ratio, utilization, rawAverage, err := utilizationRatio(metrics, requests, target)
	if err != nil {
		return replicaProposal{}, err
	}
	p := newProposal(currentReplicas, ratio, groups)
	p.utilization, p.average = utilization, rawAverage
	if replicas, measured := measuredReplicas(currentReplicas, ratio, groups, opts); measured {
		p.replicas = replicas
		return p, nil
	}
	if len(groups.missing) > 0 {
		if ratio < 1.0 {
			// Scaling down: a pod without a figure is assumed busy.
			fallback := int64(max(100, target))
			for name := range groups.missing {
				metrics[name] = PodMetric{Value: requests[name] * fallback / 100}
			}
			p.assumed = fmt.Sprintf("%d pods without metrics assumed at %d%% of request", len(groups.missing), fallback)
		} else if ratio > 1.0 {
			// Scaling up: a pod without a figure is assumed idle.
			for name := range groups.missing {
				metrics[name] = PodMetric{Value: 0}
			}
			p.assumed = fmt.Sprintf("%d pods without metrics assumed idle", len(groups.missing))
		}
	}
	p.assumed = assumeUnreadyIdle(metrics, groups, ratio, p.assumed)
	newRatio, _, _, err := utilizationRatio(metrics, requests, target)
	if err != nil {
		return replicaProposal{}, err
	}
	p.replicas = settle(currentReplicas, ratio, newRatio, len(metrics), opts)
	return p, nil
}

// resourceAverageValueReplicas is upstream's GetRawResourceReplicas (by
// way of calcPlainMetricReplicas): the replicas that bring the average
// usage per pod to target milli-units.
func resourceAverageValueReplicas(currentReplicas int32, target int64, resource api.ResourceName,
	pods []*api.Pod, metrics PodMetricsInfo, opts calculatorOptions, now time.Time) (replicaProposal, error) {
	metrics, groups, err := prepareMetrics(pods, metrics, resource, opts, now)
	if err != nil {
		return replicaProposal{}, err
	}
	ratio, average := averageRatio(metrics, target)
	p := newProposal(currentReplicas, ratio, groups)
	p.average = average
	if replicas, measured := measuredReplicas(currentReplicas, ratio, groups, opts); measured {
		p.replicas = replicas
		return p, nil
	}
	if len(groups.missing) > 0 {
		// Scaling down, a pod without a figure is assumed at the target;
		// otherwise idle.
		assume := int64(0)
		if ratio < 1.0 {
			assume = target
		}
		for name := range groups.missing {
			metrics[name] = PodMetric{Value: assume}
		}
		p.assumed = fmt.Sprintf("%d pods without metrics assumed at %dm", len(groups.missing), assume)
	}
	p.assumed = assumeUnreadyIdle(metrics, groups, ratio, p.assumed)
	newRatio, _ := averageRatio(metrics, target)
	p.replicas = settle(currentReplicas, ratio, newRatio, len(metrics), opts)
	return p, nil
}

// settle is the last step of both calculations once assumptions were
// made: no change if the new ratio is within tolerance or points the other
// way than the measured one, or if the new count moves against it.
func settle(currentReplicas int32, ratio, newRatio float64, pods int, opts calculatorOptions) int32 {
	if opts.within(newRatio) || (ratio < 1.0 && newRatio > 1.0) || (ratio > 1.0 && newRatio < 1.0) {
		return currentReplicas
	}
	replicas := int32(math.Ceil(newRatio * float64(pods)))
	if (newRatio < 1.0 && replicas > currentReplicas) || (newRatio > 1.0 && replicas < currentReplicas) {
		return currentReplicas
	}
	return replicas
}

func copyMetrics(in PodMetricsInfo) PodMetricsInfo {
	out := make(PodMetricsInfo, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

func removeMetrics(metrics PodMetricsInfo, pods map[string]bool) {
	for name := range pods {
		delete(metrics, name)
	}
}

func joinAssumptions(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
