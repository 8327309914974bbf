package ctl

// Drain through the eviction subresource, as kubectl's drain.Helper
// evictPods (staging/src/k8s.io/kubectl/pkg/drain/drain.go): one goroutine
// per pod asks for its eviction, prints "evicting pod NS/NAME" each time it
// asks, and, while the pod's PodDisruptionBudget refuses (429), prints the
// refusal and asks again after 5 seconds; once the eviction is granted it
// waits for the pod to be gone and prints "pod/NAME evicted". All of it
// stops at --timeout.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// evictionRetryWait is how long drain waits before asking again for an
// eviction a budget refused: kubectl's fixed 5 s.
const evictionRetryWait = 5 * time.Second

// evictPods evicts pods concurrently with the delete options opts and
// waits until each is gone; a server dry run only asks. The errors of
// every pod are joined, as kubectl aggregates them.
func (o *drainOptions) evictPods(ctx context.Context, c *client.Client, pods []*api.Pod, opts client.DeleteOptions, serverDryRun bool) error {
	timeout := o.timeout
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	errs := make([]error, len(pods))
	var wg sync.WaitGroup
	for i, pod := range pods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = o.evictPod(ctx, c, pod, opts, serverDryRun)
		}()
	}
	wg.Wait()
	var failed []error
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
		}
	}
	return joinErrors(failed)
}

// evictPod asks for one pod's eviction until it is granted, then waits for
// the pod to be gone.
func (o *drainOptions) evictPod(ctx context.Context, c *client.Client, pod *api.Pod, opts client.DeleteOptions, serverDryRun bool) error {
ask:
	for {
		if serverDryRun {
			fmt.Fprintf(o.f.out(), "evicting pod %s/%s (server dry run)\n", pod.Namespace, pod.Name)
		} else {
			fmt.Fprintf(o.f.out(), "evicting pod %s/%s\n", pod.Namespace, pod.Name)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("error when evicting pods/%q -n %q: global timeout reached: %v", pod.Name, pod.Namespace, o.timeout)
		}
		deleteOptions := opts
		eviction := &api.Eviction{ObjectMeta: api.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace}, DeleteOptions: &deleteOptions}
		err := c.Evict(ctx, eviction)
		switch {
		case err == nil:
			break ask
		case apierrors.IsNotFound(err):
			return nil // gone already
		case apierrors.IsTooManyRequests(err):
			fmt.Fprintf(o.f.errOut(), "error when evicting pods/%q -n %q (will retry after %v): %s\n", pod.Name, pod.Namespace, o.evictionRetryWait, statusMessage(err))
			if sleepContext(ctx, o.evictionRetryWait) != nil {
				return fmt.Errorf("error when evicting pods/%q -n %q: global timeout reached: %v", pod.Name, pod.Namespace, o.timeout)
			}
		case apierrors.IsForbidden(err) && apierrors.HasStatusCause(err, apierrors.NamespaceTerminatingCause) && pod.DeletionTimestamp != nil:
			// A pod already going in a namespace being deleted: nothing
			// to ask for, only to wait for.
			break ask
		case apierrors.IsForbidden(err) && apierrors.HasStatusCause(err, apierrors.NamespaceTerminatingCause):
			fmt.Fprintf(o.f.errOut(), "error when evicting pod %q from terminating namespace %q (will retry after %v): %s\n", pod.Name, pod.Namespace, o.evictionRetryWait, statusMessage(err))
			if sleepContext(ctx, o.evictionRetryWait) != nil {
				return fmt.Errorf("error when evicting pods/%q -n %q: global timeout reached: %v", pod.Name, pod.Namespace, o.timeout)
			}
		default:
			return fmt.Errorf("error when evicting pods/%q -n %q: %s", pod.Name, pod.Namespace, statusMessage(err))
		}
	}
	if serverDryRun {
		return nil
	}
	if _, err := o.waitForDelete(ctx, c, []*api.Pod{pod}, "evicted"); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("global timeout reached: %v", o.timeout)
		}
		return fmt.Errorf("error when waiting for pod %q in namespace %q to terminate: %w", pod.Name, pod.Namespace, err)
	}
	return nil
}

// statusMessage is an API error's Status message (what kubectl prints),
// without the client's "evict pod x:" context; other errors as they are.
func statusMessage(err error) string {
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		return se.ErrStatus.Message
	}
	return err.Error()
}

// printPendingPods lists the pods still on node after a failed drain, as
// kubectl does ("There are pending pods in node … when an error occurred").
// It reads them again with a fresh context: the drain's may have run out.
func (o *drainOptions) printPendingPods(ctx context.Context, c *client.Client, node string, cause error) {
	pending, _, _, err := o.podsForDeletion(context.WithoutCancel(ctx), c, node)
	if err != nil {
		return
	}
	o.printPending(node, cause, pending)
}

// printPending prints kubectl's list of the pods still on node after a
// drain failed with cause; it prints nothing when there are none.
func (o *drainOptions) printPending(node string, cause error, pending []*api.Pod) {
	if len(pending) == 0 {
		return
	}
	fmt.Fprintf(o.f.errOut(), "There are pending pods in node %q when an error occurred: %v\n", node, cause)
	for _, pod := range pending {
		fmt.Fprintf(o.f.errOut(), "pod/%s\n", pod.Name)
	}
}
