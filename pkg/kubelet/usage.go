package kubelet

// This file publishes what each pod's containers use, for the HPA and
// `ctl top`. Upstream, the kubelet serves this from /metrics/resource and
// metrics-server scrapes every kubelet into the metrics.k8s.io API. kplane
// takes the shortest path that works with nothing but the API: every
// UsageReportInterval (15 s, metrics-server's resolution) the kubelet
// writes each running pod's usage into the pod's kplane.io/usage
// annotation — only when it changed, and only once the pod has been running
// for an interval, so starting a thousand pods costs no extra writes.
// Anyone with a pod informer can read it with ParsePodUsage.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// UsageAnnotation holds a pod's reported usage as JSON (see PodUsage).
const UsageAnnotation = "kplane.io/usage"

// PodUsage is the value of UsageAnnotation: when it was measured, over
// what window, and per container the CPU and memory in use. Example:
//
//	{"timestamp":"2025-01-02T03:04:05Z","window":"15s",
//	 "containers":{"web":{"cpu":"250m","memory":"64Mi"}}}
type PodUsage struct {
	Timestamp  api.Time                  `json:"timestamp"`
	Window     string                    `json:"window"`
	Containers map[string]ContainerUsage `json:"containers"`
}

// ContainerUsage is one container's CPU (cores, usually in millicores) and
// memory (bytes) in use.
type ContainerUsage struct {
	CPU    api.Quantity `json:"cpu"`
	Memory api.Quantity `json:"memory"`
}

// ParsePodUsage reads a pod's reported usage; ok is false when the kubelet
// has not reported any (yet).
func ParsePodUsage(pod *api.Pod) (usage *PodUsage, ok bool, err error) {
	v, found := pod.Annotations[UsageAnnotation]
	if !found {
		return nil, false, nil
	}
	usage = &PodUsage{}
	if err := json.Unmarshal([]byte(v), usage); err != nil {
		return nil, false, fmt.Errorf("parse %s of pod %s/%s: %w", UsageAnnotation, pod.Namespace, pod.Name, err)
	}
	return usage, true, nil
}

// runUsageReports publishes usage every UsageReportInterval until ctx ends.
// Each node starts at a random point of the interval, so a process with
// many nodes spreads its writes out.
func (k *Kubelet) runUsageReports(ctx context.Context) {
	interval := k.opts.UsageReportInterval
	if interval <= 0 {
		return
	}
	timer := k.clock.NewTimer(time.Duration(rand.Int64N(int64(interval))))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C():
		}
		k.reportUsage(ctx, interval)
		timer.Reset(interval)
	}
}

// reportUsage writes the usage of every pod whose usage changed.
func (k *Kubelet) reportUsage(ctx context.Context, interval time.Duration) {
	k.mu.Lock()
	workers := make([]*podWorker, 0, len(k.workers))
	for _, w := range k.workers {
		workers = append(workers, w)
	}
	k.mu.Unlock()
	now := k.clock.Now()
	for _, w := range workers {
		containers, changed := w.usage(now, interval)
		if !changed || ctx.Err() != nil {
			continue
		}
		pod := w.currentPod()
		value, _ := json.Marshal(PodUsage{Timestamp: api.NewTime(now.UTC().Truncate(time.Second)),
			Window: interval.String(), Containers: containers})
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
			"annotations": map[string]string{UsageAnnotation: string(value)}}})
		_, err := k.client.Pods(pod.Namespace).Patch(ctx, pod.Name, client.MergePatchType, patch, client.PatchOptions{})
		if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
			k.log.Warn("could not report pod usage", "pod", pod.Namespace+"/"+pod.Name, "err", err)
			w.forgetUsage()
		}
	}
}

// usage returns the usage of the pod's containers that have been running
// for at least interval, and whether it differs from the last report.
func (w *podWorker) usage(now time.Time, interval time.Duration) (map[string]ContainerUsage, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	containers := map[string]ContainerUsage{}
	for name, st := range w.containers {
		run := st.current
		if !run.isRunning() || run.container == nil || now.Sub(run.startedAt) < interval {
			continue
		}
		milliCPU, memory := run.container.Usage()
		containers[name] = ContainerUsage{CPU: api.NewMilliQuantity(milliCPU, api.DecimalSI),
			Memory: api.NewQuantity(memory, api.BinarySI)}
	}
	if len(containers) == 0 {
		return nil, false
	}
	key := fmt.Sprint(containers)
	if key == w.reportedUsage {
		return nil, false
	}
	w.reportedUsage = key
	return containers, true
}

// forgetUsage makes the next report go out even if unchanged (the last one
// failed).
func (w *podWorker) forgetUsage() {
	w.mu.Lock()
	w.reportedUsage = ""
	w.mu.Unlock()
}
