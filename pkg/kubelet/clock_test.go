package kubelet_test

// These tests run a kubelet on a fake clock (Options.Clock) and move time
// by hand: the Lease, the node status and a simulated container keep time
// by that clock alone. The fake clock starts in 2030, so any wall-clock
// read would show in the timestamps the kubelet writes, and any wall-clock
// timer would leave the tests waiting.

import (
	"context"
	"fmt"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/kubelet"
	"kplane/test/framework"
)

// fakeEpoch is where the tests' fake clocks start: whole seconds (the
// Node's heartbeats are truncated to seconds) and years from the wall clock.
var fakeEpoch = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// onFakeClock returns options for a kubelet on a fake clock, with
// upstream's intervals: a test steps through them, it does not wait them out.
func (cl *cluster) onFakeClock(node string) (kubelet.Options, *clock.Fake) {
	fake := clock.NewFake(fakeEpoch)
	opts := cl.fastOptions(node)
	defaults := kubelet.DefaultOptions()
	opts.Clock = fake
	opts.NodeLeaseRenewInterval = defaults.NodeLeaseRenewInterval
	opts.NodeStatusUpdateFrequency = defaults.NodeStatusUpdateFrequency
	opts.NodeStatusReportFrequency = defaults.NodeStatusReportFrequency
	opts.StatusBatchDelay = 0 // pod statuses are written without a step
	return opts, fake
}

// leaseRenewTime reads the node's Lease's renewTime (zero if none yet).
func (cl *cluster) leaseRenewTime(t *testing.T, node string) time.Time {
	t.Helper()
	lease, err := cl.client.Leases(kubelet.NodeLeaseNamespace).Get(context.Background(), node, client.GetOptions{})
	if err != nil || lease.Spec.RenewTime == nil {
		return time.Time{}
	}
	return lease.Spec.RenewTime.Time
}

// readyHeartbeat reads the lastHeartbeatTime of the node's Ready condition
// (zero if none yet).
func (cl *cluster) readyHeartbeat(t *testing.T, node string) time.Time {
	t.Helper()
	n, err := cl.client.Nodes().Get(context.Background(), node, client.GetOptions{})
	if err != nil {
		return time.Time{}
	}
	for _, c := range n.Status.Conditions {
		if c.Type == api.NodeReady {
			return c.LastHeartbeatTime.Time
		}
	}
	return time.Time{}
}

// TestLeaseAndNodeStatusKeepTheKubeletsTime steps a fake clock through a
// Lease renewal (every 10 s, plus up to 4 % jitter) and a node status
// report (an unchanged status is rewritten every 5 min).
func TestLeaseAndNodeStatusKeepTheKubeletsTime(t *testing.T) {
	cl := startCluster(t)
	opts, fake := cl.onFakeClock("node1")
	startKubelet(t, opts)

	// Registered at the fake time, and then blocked on the clock: the
	// Lease loop waits for its next renewal, the status loop for its tick.
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		renew, heartbeat := cl.leaseRenewTime(t, "node1"), cl.readyHeartbeat(t, "node1")
		return renew.Equal(fakeEpoch) && heartbeat.Equal(fakeEpoch) && fake.Waiters() == 2,
			fmt.Sprintf("lease renewTime %v, Ready heartbeat %v, %d timers waiting", renew, heartbeat, fake.Waiters())
	})

	// Just short of the renew interval nothing is due: no timer fired.
	fake.Step(opts.NodeLeaseRenewInterval - time.Millisecond)
	if n := fake.Waiters(); n != 2 {
		t.Fatalf("%d timers waiting after %v, want the same 2", n, opts.NodeLeaseRenewInterval-time.Millisecond)
	}

	// Past the interval and its largest jitter, the Lease is renewed at
	// exactly the fake time; the status tick finds nothing to write.
	renewBy := fakeEpoch.Add(opts.NodeLeaseRenewInterval * 104 / 100)
	fake.SetTime(renewBy)
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		renew := cl.leaseRenewTime(t, "node1")
		return renew.Equal(renewBy) && fake.Waiters() == 2, fmt.Sprintf("lease renewTime %v, want %v", renew, renewBy)
	})
	if hb := cl.readyHeartbeat(t, "node1"); !hb.Equal(fakeEpoch) {
		t.Errorf("an unchanged node status was rewritten after %v: heartbeat %v", renewBy.Sub(fakeEpoch), hb)
	}

	// At NodeStatusReportFrequency the unchanged status is written anyway.
	reportAt := fakeEpoch.Add(opts.NodeStatusReportFrequency)
	fake.SetTime(reportAt)
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		hb := cl.readyHeartbeat(t, "node1")
		return hb.Equal(reportAt), fmt.Sprintf("Ready heartbeat %v, want %v", hb, reportAt)
	})
}

// TestSimulatedContainerRunsOnTheKubeletsClock runs a container that the
// simulated runtime ends after a minute: it ends when the fake clock has
// moved a minute, and its status shows fake start and finish times.
func TestSimulatedContainerRunsOnTheKubeletsClock(t *testing.T) {
	cl := startCluster(t)
	opts, fake := cl.onFakeClock("node1")
	startKubelet(t, opts)
	waitNodesReady(t, cl, 1)

	cl.createBoundPod(t, simplePod("job", api.RestartPolicyNever, map[string]string{"sim.kplane.io/run-seconds": "1m"}), "node1")
	running := cl.waitPod(t, "job", func(p *api.Pod) bool { return p.Status.Phase == api.PodRunning })
	started := running.Status.ContainerStatuses[0].State.Running.StartedAt.Time
	if !started.Equal(fake.Now()) {
		t.Fatalf("container started at %v, want the fake clock's %v", started, fake.Now())
	}

	fake.Step(time.Minute)
	done := cl.waitPod(t, "job", func(p *api.Pod) bool { return p.Status.Phase == api.PodSucceeded })
	term := done.Status.ContainerStatuses[0].State.Terminated
	if term == nil || term.ExitCode != 0 || !term.StartedAt.Time.Equal(started) || !term.FinishedAt.Time.Equal(started.Add(time.Minute)) {
		t.Errorf("terminated state = %+v, want exit 0 from %v to %v", term, started, started.Add(time.Minute))
	}
}

// TestTerminationGraceRunsOnAVirtualClock runs a kubelet on a clock.Virtual,
// the clock of a --virtual-clock cluster: a container that ignores SIGTERM
// (it would take 10 min to stop) in a pod deleted with a 30 s grace period
// is killed as soon as the clock jumps past the grace period — no 30 s
// wait — and the pod goes.
func TestTerminationGraceRunsOnAVirtualClock(t *testing.T) {
	cl := startCluster(t)
	virtual := clock.NewVirtual(0)
	opts := cl.fastOptions("node1")
	opts.Clock = virtual
	opts.VirtualClock = true // the kubelet moves the clock it was given; no kplane-clock ConfigMap: offset 0
	startKubelet(t, opts)
	cl.createBoundPod(t, simplePod("stubborn", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/stop-seconds": "600"}), "node1")
	running := cl.waitPod(t, "stubborn", func(p *api.Pod) bool { return p.Status.Phase == api.PodRunning })

	grace := int64(30)
	if err := cl.client.Pods("default").Delete(context.Background(), "stubborn", client.DeleteOptions{GracePeriodSeconds: &grace}); err != nil {
		t.Fatal(err)
	}
	// The Killing event comes as the grace period starts. The container's
	// timer is set a moment later, so the clock jumps again on each poll
	// until the pod goes; on the wall clock that would take 30 s.
	cl.waitEventsUID(t, "stubborn", running.UID, "Killing")
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		virtual.Advance(31 * time.Second)
		return cl.getPod(t, "default", "stubborn") == nil, "the pod is still there after the clock passed its grace period"
	})
}
