package e2e

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// trackedJobManifest: completions 4, parallelism 2, pods that succeed after
// half a second on the simulated runtime.
const trackedJobManifest = `apiVersion: batch/v1
kind: Job
metadata:
  name: tracked
spec:
  parallelism: 2
  completions: 4
  template:
    metadata:
      annotations:
        sim.kplane.io/run-seconds: "500ms"
    spec:
      containers:
        - name: work
          image: busybox
      restartPolicy: Never
`

// sleeperJobManifest is a Job named name whose two pods run for an hour.
func sleeperJobManifest(name string) string {
	return fmt.Sprintf(`apiVersion: batch/v1
kind: Job
metadata:
  name: %s
spec:
  parallelism: 2
  completions: 2
  template:
    metadata:
      annotations:
        sim.kplane.io/run-seconds: "1h"
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: work
          image: busybox
      restartPolicy: Never
`, name)
}

// TestControllersJobTracksDeletedPods runs the Job controller's pod tracking
// (the batch.kubernetes.io/job-tracking finalizer) against the real
// processes. The test deletes every pod of a completions-4 Job the moment
// it succeeds, and the Job still reaches 4/4 Complete: each success was
// recorded before its pod could go. Then `kubectl delete job` — Background,
// kubectl's default, and Foreground — leaves no pod behind, although the
// pods carried the finalizer when their Job went; nor does deleting the
// namespace of a running Job hang.
func TestControllersJobTracksDeletedPods(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 2)
	cl := c.Client(t)
	ctx := context.Background()
	applyYAML(t, c, trackedJobManifest)

	deleted := map[string]bool{}
	deleteSucceeded := func() {
		for _, p := range listPods(t, cl, "default", "batch.kubernetes.io/job-name=tracked") {
			if p.Status.Phase != api.PodSucceeded || p.DeletionTimestamp != nil {
				continue
			}
			err := cl.Pods("default").Delete(ctx, p.Name, client.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				t.Fatalf("delete pod %s: %v", p.Name, err)
			}
			deleted[p.Name] = true
		}
	}
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		deleteSucceeded()
		j, err := cl.Jobs("default").Get(ctx, "tracked", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return isJobComplete(j), fmt.Sprintf("status %+v; deleted pods %v", j.Status, sortedKeys(deleted))
	})
	deleteSucceeded() // the last one, if it finished between the two reads above

	out := c.MustKubectl(t, "get", "jobs", "tracked", "--no-headers")
	if !regexp.MustCompile(`^tracked\s+Complete\s+4/4\s`).MatchString(out) {
		t.Errorf("kubectl get jobs tracked: %q, want Complete 4/4", out)
	}
	if len(deleted) != 4 {
		t.Errorf("the test deleted %d pods (%v), want all 4", len(deleted), sortedKeys(deleted))
	}
	// Released once counted, the deleted pods are gone.
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return len(nonEmptyLines(out)) == 0 },
		"get", "pods", "-l", "batch.kubernetes.io/job-name=tracked", "--no-headers")

	// Jobs deleted while their pods run: nothing may stay behind.
	for _, tt := range []struct{ name, cascade string }{{"sleeper", "background"}, {"sleeper-fg", "foreground"}} {
		applyYAML(t, c, sleeperJobManifest(tt.name))
		waitRunningPods(t, c, "default", "batch.kubernetes.io/job-name="+tt.name, 2)
		for _, p := range listPods(t, cl, "default", "batch.kubernetes.io/job-name="+tt.name) {
			if !slices.Contains(p.Finalizers, api.JobTrackingFinalizer) {
				t.Errorf("running pod %s has finalizers %v, want %s", p.Name, p.Finalizers, api.JobTrackingFinalizer)
			}
		}
		// kubectl waits until the Job itself is gone (--wait is on by
		// default); with foreground that is after its pods.
		if got := c.MustKubectl(t, "delete", "job", tt.name, "--cascade="+tt.cascade, "--timeout=60s"); got != fmt.Sprintf("job.batch %q deleted\n", tt.name) {
			t.Errorf("kubectl delete job %s: %q", tt.name, got)
		}
		waitKubectl(t, c, controllersTimeout, func(out string) bool { return len(nonEmptyLines(out)) == 0 },
			"get", "pods", "-l", "batch.kubernetes.io/job-name="+tt.name, "--no-headers")
	}

	// A namespace deletion does not hang on a running Job's tracked pods.
	c.MustKubectl(t, "create", "namespace", "batch-work")
	applyYAML(t, c, strings.Replace(sleeperJobManifest("sleeper"), "metadata:\n  name: sleeper", "metadata:\n  name: sleeper\n  namespace: batch-work", 1))
	waitRunningPods(t, c, "batch-work", "batch.kubernetes.io/job-name=sleeper", 2)
	if got := c.MustKubectl(t, "delete", "namespace", "batch-work", "--timeout=60s"); got != "namespace \"batch-work\" deleted\n" {
		t.Errorf("kubectl delete namespace batch-work: %q", got)
	}
}

// isJobComplete reports whether the Job has condition Complete=True.
func isJobComplete(j *api.Job) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == api.JobComplete && c.Status == api.ConditionTrue {
			return true
		}
	}
	return false
}
