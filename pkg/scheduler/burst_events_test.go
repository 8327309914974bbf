package scheduler_test

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/scheduler"
	"kplane/test/framework"
)

var schedulerBurstPods = flag.Int("scheduler-burst-pods", 2000, "pods in TestSchedulerBurstKeepsOneScheduledEventPerPod's burst")

// TestSchedulerBurstKeepsOneScheduledEventPerPod: the real scheduler
// places a burst of pods created as fast as eight clients can, and every
// pod ends with exactly one Scheduled Event that names the node it was
// bound to — none lost to a full queue or a rate limit, none doubled.
// Scheduled events are about different pods, so upstream's correlator
// never aggregates them; `make bench-events` runs it with 5 000 pods.
func TestSchedulerBurstKeepsOneScheduledEventPerPod(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a)
	pods := *schedulerBurstPods
	nodes := make([]nodeSpec, 50)
	for i := range nodes {
		nodes[i] = nodeSpec{name: fmt.Sprintf("node-%02d", i), pods: fmt.Sprint(pods/len(nodes) + 20)}
	}
	createNodes(t, c, nodes...)
	startScheduler(t, a, func(o *scheduler.Options) { o.Verbosity = 0 })

	start := time.Now()
	names := make(chan string)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for name := range names {
				if _, err := c.Pods("default").Create(context.Background(), makePod(name), client.CreateOptions{}); err != nil {
					t.Errorf("create pod %s: %v", name, err)
				}
			}
		})
	}
	for i := range pods {
		names <- fmt.Sprintf("burst-%05d", i)
	}
	close(names)
	wg.Wait()
	if t.Failed() {
		return
	}

	var bound map[string]string
	framework.Eventually(t, 2*time.Minute, func() (bool, string) {
		bound = podNodes(t, c)
		n := 0
		for _, node := range bound {
			if node != "" {
				n++
			}
		}
		return n == pods, fmt.Sprintf("%d of %d pods bound", n, pods)
	})
	boundAt := time.Since(start)

	var scheduled map[string][]*api.Event
	framework.Eventually(t, 2*time.Minute, func() (bool, string) {
		list, err := c.Events("default").List(context.Background(), client.ListOptions{})
		if err != nil {
			return false, fmt.Sprintf("list events: %v", err)
		}
		scheduled = map[string][]*api.Event{}
		for _, e := range list.Items {
			if e.Reason == "Scheduled" {
				scheduled[e.InvolvedObject.Name] = append(scheduled[e.InvolvedObject.Name], e)
			}
		}
		return len(scheduled) == pods, fmt.Sprintf("Scheduled events for %d of %d pods", len(scheduled), pods)
	})
	for pod, node := range bound {
		evs := scheduled[pod]
		if len(evs) != 1 {
			t.Errorf("pod %s has %d Scheduled events, want exactly 1", pod, len(evs))
			continue
		}
		ev := evs[0]
		want := fmt.Sprintf("Successfully assigned default/%s to %s", pod, node)
		if ev.Message != want || ev.ReportingController != "default-scheduler" || ev.Action != "Binding" {
			t.Errorf("pod %s: Scheduled event %q (reportingController %q, action %q), want %q (default-scheduler, Binding)",
				pod, ev.Message, ev.ReportingController, ev.Action, want)
		}
	}
	t.Logf("%d pods on %d nodes: all bound after %v, %d Scheduled events found after %v",
		pods, len(nodes), boundAt.Round(time.Millisecond), len(scheduled), time.Since(start).Round(time.Millisecond))
}
