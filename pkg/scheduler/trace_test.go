package scheduler_test

import (
	"strings"
	"testing"
	"time"

	"kplane/pkg/scheduler"
	"kplane/test/framework"
)

// TestTraceInformers: with --trace-informers the scheduler's log shows a
// pod's path through its informer: watch event, delta, store, handler.
func TestTraceInformers(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newClient(t, a)
	createNodes(t, c, threeNodes()...)
	logs, _ := startScheduler(t, a, func(o *scheduler.Options) { o.TraceInformers = true })
	createPods(t, c, makePod("traced"))
	waitBound(t, c, "traced")
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		out := logs.String()
		for _, stage := range []string{"stage=watch", "stage=delta", "stage=store", "stage=handler"} {
			found := false
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, stage) && strings.Contains(line, "key=default/traced") {
					found = true
				}
			}
			if !found {
				return false, "no " + stage + " line for default/traced in:\n" + out
			}
		}
		return true, ""
	})
}
