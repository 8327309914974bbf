package job_test

// Integration tests of pod tracking with the batch.kubernetes.io/job-tracking
// finalizer: counts that survive the deletion of finished pods, pods deleted
// while running, and Jobs deleted with their pods still tracked (with the
// garbage collector running next to the Job controller, as in the
// controller-manager).

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/garbagecollector"
	"kplane/pkg/controllers/job"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

// startWithGarbageCollector runs the Job controller and the garbage
// collector on one informer factory until the test ends.
func startWithGarbageCollector(t *testing.T, c *client.Client) {
	t.Helper()
	h := controllertest.NewControllers(t, c)
	jobs, err := job.New(c, h.Factory, h.Recorder("job-controller"), job.Options{Logger: h.Logger})
	if err != nil {
		t.Fatalf("new job controller: %v", err)
	}
	gc, err := garbagecollector.New(c, h.Factory, h.Recorder(""), garbagecollector.Options{Logger: h.Logger})
	if err != nil {
		t.Fatalf("new garbage collector: %v", err)
	}
	h.Run(2, jobs, gc)
}

// podsOf lists every pod that carries the Job's controller-uid label, being
// deleted or not.
func podsOf(t *testing.T, c *client.Client, j *api.Job) []*api.Pod {
	t.Helper()
	list, err := c.Pods(j.Namespace).List(context.Background(), client.ListOptions{
		LabelSelector: api.JobControllerUIDLabel + "=" + j.UID})
	if err != nil {
		t.Fatalf("list pods: %v", err)
	}
	return list.Items
}

// waitNoPods waits until none of the Job's pods is left.
func waitNoPods(t *testing.T, c *client.Client, j *api.Job) {
	t.Helper()
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		pods := podsOf(t, c, j)
		var left []string
		for _, p := range pods {
			left = append(left, fmt.Sprintf("%s (%s, finalizers %v, deleting %v)", p.Name, p.Status.Phase, p.Finalizers, p.DeletionTimestamp != nil))
		}
		return len(pods) == 0, fmt.Sprintf("pods left: %v", left)
	})
}

func deletePod(t *testing.T, c *client.Client, name string) {
	t.Helper()
	if err := c.Pods("default").Delete(context.Background(), name, client.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("delete pod %s: %v", name, err)
	}
}

// completions 4, parallelism 2, and every pod is deleted the moment it
// succeeds (as a user, a GC or a pod-gc might): the Job still counts each
// success once and completes 4/4. Counting the pods it can see would stall
// at 1 or 2.
func TestJobCountsPodsDeletedAfterTheySucceed(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startController(t, c)
	created, err := c.Jobs("default").Create(context.Background(), piJob("pi", 2, 4), client.CreateOptions{})
	if err != nil {
		t.Fatalf("create job: %v", err)
	}
	seen := map[string]bool{}
	for range 4 {
		var next *api.Pod
		framework.Eventually(t, waitTimeout, func() (bool, string) {
			active, _ := jobPods(t, c, created)
			for _, p := range active {
				if !seen[p.Name] {
					next = p
					return true, ""
				}
			}
			return false, fmt.Sprintf("%d active pods, all seen", len(active))
		})
		if !slices.Contains(next.Finalizers, api.JobTrackingFinalizer) {
			t.Errorf("pod %s has finalizers %v, want %s", next.Name, next.Finalizers, api.JobTrackingFinalizer)
		}
		seen[next.Name] = true
		finish(t, c, next.Name, api.PodSucceeded)
		deletePod(t, c, next.Name)
	}
	j := waitJob(t, c, "pi", func(j *api.Job) bool { return isTrue(j, api.JobComplete) })
	if j.Status.Succeeded != 4 || j.Status.Failed != 0 {
		t.Errorf("succeeded %d, failed %d; want 4, 0", j.Status.Succeeded, j.Status.Failed)
	}
	if u := j.Status.UncountedTerminatedPods; u == nil || len(u.Succeeded)+len(u.Failed) != 0 {
		t.Errorf("uncountedTerminatedPods %+v, want empty", u)
	}
	// Released, the deleted pods are gone for good.
	waitNoPods(t, c, created)
}

// A pod deleted before it finishes counts as failed, and the Job replaces
// it; the pod itself, released, goes away.
func TestJobPodDeletedWhileRunningCountsAsFailed(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startController(t, c)
	created, err := c.Jobs("default").Create(context.Background(), piJob("pi", 1, 1), client.CreateOptions{})
	if err != nil {
		t.Fatalf("create job: %v", err)
	}
	var first *api.Pod
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		active, _ := jobPods(t, c, created)
		if len(active) == 1 {
			first = active[0]
		}
		return len(active) == 1, fmt.Sprintf("%d active", len(active))
	})
	deletePod(t, c, first.Name)
	waitJob(t, c, "pi", func(j *api.Job) bool { return j.Status.Failed == 1 && j.Status.Active == 1 })
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		_, err := c.Pods("default").Get(context.Background(), first.Name, client.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprintf("deleted pod still there: %v", err)
	})
	active, _ := jobPods(t, c, created)
	if len(active) != 1 || active[0].Name == first.Name {
		t.Errorf("active pods %v, want one replacement", active)
	}
}

// Deleting a Job — Background (kubectl's default: the Job goes at once, the
// garbage collector deletes the pods after it) or Foreground (the Job waits
// for its pods) — leaves no pod behind: the Job controller releases every
// tracked pod once its Job is gone or being deleted.
func TestJobDeletionLeavesNoPodsBehind(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startWithGarbageCollector(t, c)
	ctx := context.Background()
	for _, policy := range []api.DeletionPropagation{api.DeletePropagationBackground, api.DeletePropagationForeground} {
		t.Run(string(policy), func(t *testing.T) {
			created, err := c.Jobs("default").Create(ctx, piJob("pi-"+strings.ToLower(string(policy)), 2, 4), client.CreateOptions{})
			if err != nil {
				t.Fatalf("create job: %v", err)
			}
			var active []*api.Pod
			framework.Eventually(t, waitTimeout, func() (bool, string) {
				active, _ = jobPods(t, c, created)
				return len(active) == 2, fmt.Sprintf("%d active", len(active))
			})
			// One pod has finished, one runs, when the Job is deleted.
			finish(t, c, active[0].Name, api.PodSucceeded)
			err = c.Jobs("default").Delete(ctx, created.Name, client.DeleteOptions{PropagationPolicy: &policy})
			if err != nil {
				t.Fatalf("delete job: %v", err)
			}
			waitNoPods(t, c, created)
			framework.Eventually(t, waitTimeout, func() (bool, string) {
				_, err := c.Jobs("default").Get(ctx, created.Name, client.GetOptions{})
				return apierrors.IsNotFound(err), fmt.Sprintf("job still there: %v", err)
			})
		})
	}
}
