package kubelet

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/kubelet/runtime"
)

// forgettingRuntime is the simulated runtime, recording the pods the
// kubelet tells it to forget.
type forgettingRuntime struct {
	*runtime.Simulated
	mu     sync.Mutex
	forgot []string
}

func (r *forgettingRuntime) ForgetPod(uid string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forgot = append(r.forgot, uid)
	r.Simulated.ForgetPod(uid)
}

func (r *forgettingRuntime) forgotten() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.forgot)
}

// TestRemovedPodIsForgottenByTheRuntime: once a pod's object is gone and
// its containers have stopped, the runtime drops what it keeps for the
// pod (the simulated runtime's emptyDir volumes); not before.
func TestRemovedPodIsForgottenByTheRuntime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		rt := &forgettingRuntime{Simulated: runtime.NewSimulated(nil, clock.Real{})}
		pod := testPod("gone", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/stop-seconds": "3"})
		h := startWorkerOn(t, pod, newFakeSink(), nil, rt)
		synctest.Wait()
		h.w.remove()
		synctest.Wait()
		if got := rt.forgotten(); len(got) != 0 {
			t.Fatalf("forgotten while its container still stops: %v", got)
		}
		at(start, 5*time.Second)
		if got := rt.forgotten(); !slices.Equal(got, []string{string(pod.UID)}) {
			t.Errorf("forgotten pods %v, want [%s]", got, pod.UID)
		}
	})
}
