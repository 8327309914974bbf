package kubelet

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// decisions are the messages of the decisions recorded about the harness's
// pod, oldest first; each record is checked to name the pod, the kubelet
// and an upstream file.
func (h *harness) decisions() []string {
	h.t.Helper()
	records, _ := h.journal.After(0)
	pod := h.w.currentPod()
	var out []string
	for _, r := range records {
		if r.Type != debug.TypeDecision {
			continue
		}
		if r.Key != pod.Namespace+"/"+pod.Name || r.Resource != "pods" || r.Actor != decisionActor || r.UID != pod.UID ||
			!strings.HasPrefix(r.Source, "pkg/kubelet/") {
			h.t.Errorf("decision record %+v; want about pods %s/%s by the kubelet, citing pkg/kubelet/…", r, pod.Namespace, pod.Name)
		}
		out = append(out, r.Message)
	}
	return out
}

// expectDecisions fails unless the pod's decisions are want, in order.
func (h *harness) expectDecisions(want ...string) {
	h.t.Helper()
	if got := h.decisions(); !slices.Equal(got, want) {
		h.t.Errorf("decisions:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

const admitted = "pod bound to node1 → admitted (kplane's kubelet runs no admission checks), sandbox IP 10.244.1.2"

// A crashing container: restarted at once the first time, then held in
// CrashLoopBackOff with the delay and the time it ends. The bubble's clock
// starts at midnight. Waiting on (the worker wakes again) repeats nothing.
func TestDecisionsOfACrashLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		pod := testPod("crasher", api.RestartPolicyOnFailure, map[string]string{"sim.kplane.io/crash-after.app": "1s", "sim.kplane.io/exit-code.app": "3"})
		h := startWorker(t, pod)
		at(start, 5*time.Second)
		h.w.poke() // a wake-up while waiting: no new decision
		synctest.Wait()
		h.expectDecisions(admitted,
			"container app exited with code 3 at 00:00:01, restartPolicy OnFailure → restart now (restart 1)",
			"container app exited with code 3 at 00:00:02 after 1 restarts → CrashLoopBackOff: back-off 10s, restart at 00:00:12")
	})
}

// A readiness probe's settled results are recorded when they change the
// container's readiness, with the threshold they reached.
func TestDecisionsOfAReadinessProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		pod := testPod("probed", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/readiness": "fail-after:10s"})
		pod.Spec.Containers[0].ReadinessProbe = &api.Probe{PeriodSeconds: 1, FailureThreshold: 3, SuccessThreshold: 1,
			ProbeHandler: api.ProbeHandler{HTTPGet: &api.HTTPGetAction{Path: "/healthz", Port: api.FromInt(80)}}}
		h := startWorker(t, pod)
		at(start, 13*time.Second)
		h.expectDecisions(admitted,
			"Readiness probe of container app succeeded 1 times in a row (threshold 1) → container Ready: the pod's endpoints get traffic once every container is",
			"Readiness probe of container app failed 3 times in a row (threshold 3) → container not Ready: the pod leaves its Services' ready endpoints")
	})
}

// A failed liveness probe is recorded, then the kill it causes and the
// restart after it.
func TestDecisionsOfALivenessProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		pod := testPod("live", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/liveness.app": "fail-after:5s"})
		pod.Spec.Containers[0].LivenessProbe = &api.Probe{InitialDelaySeconds: 1, PeriodSeconds: 1, FailureThreshold: 3, SuccessThreshold: 1,
			ProbeHandler: api.ProbeHandler{TCPSocket: &api.TCPSocketAction{Port: api.FromInt(8080)}}}
		h := startWorker(t, pod)
		at(start, 7500*time.Millisecond)
		h.expectDecisions(admitted,
			"Liveness probe of container app failed 3 times in a row (threshold 3) → the kubelet kills the container",
			"container app: Container app failed liveness probe, will be restarted → kill it (grace 30s), restarted after it exits",
			"container app was stopped to be restarted and exited with code 0 at 00:00:07, restartPolicy Always → restart now (restart 1)")
	})
}

// Deleting the pod, or passing its activeDeadlineSeconds, stops its
// containers with the grace period; the record says which and why.
func TestDecisionsOfTermination(t *testing.T) {
	t.Run("deleted", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			pod := testPod("doomed", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/stop-seconds": "3"})
			h := startWorker(t, pod)
			synctest.Wait()
			deleted := api.DeepCopy(pod)
			now, grace := api.NewTime(time.Now()), int64(20)
			deleted.DeletionTimestamp, deleted.DeletionGracePeriodSeconds = &now, &grace
			h.w.update(deleted)
			synctest.Wait()
			h.expectDecisions(admitted, "pod deleted → stop 1 running containers [app]: SIGTERM now, SIGKILL after the grace period 20s")
		})
	})
	t.Run("activeDeadlineSeconds", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			pod := testPod("deadline", api.RestartPolicyNever, map[string]string{"sim.kplane.io/run-seconds": "forever"})
			deadline := int64(5)
			pod.Spec.ActiveDeadlineSeconds = &deadline
			h := startWorker(t, pod)
			at(start, 6*time.Second)
			h.expectDecisions(admitted,
				"pod active since 00:00:00, activeDeadlineSeconds 5 passed (DeadlineExceeded) → stop 1 running containers [app]: SIGTERM now, SIGKILL after the grace period 30s")
		})
	})
}
