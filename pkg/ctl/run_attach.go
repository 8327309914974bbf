package ctl

// `ctl run -i`, `-t`, `--attach` and `--rm`: kubectl run's attaching
// flow. The pod is created with stdin (and stdinOnce, so the end of input
// ends it) and tty as asked; once it runs, ctl attaches to it over
// pods/attach, as kubectl does; afterwards it waits for a Never/OnFailure
// pod to end, exits with its container's exit code, and with --rm deletes
// the pod.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// runPodTimeout is kubectl run's --pod-running-timeout default: how long
// to wait for the pod to run, and then to end.
const runPodTimeout = time.Minute

// runAttached creates podObj and attaches to its container.
func (o *runOptions) runAttached(ctx context.Context, f *factory, podObj map[string]any) (err error) {
	container := podObj["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	if o.stdin {
		container["stdin"], container["stdinOnce"] = true, true
	}
	if o.tty {
		container["tty"] = true
	}
	pod, err := decodeInto[api.Pod](podObj)
	if err != nil {
		return err
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	namespace, _, err := f.Namespace()
	if err != nil {
		return err
	}
	if _, err := c.Pods(namespace).Create(ctx, pod, client.CreateOptions{}); err != nil {
		return err
	}
	if o.rm {
		defer func() {
			// The session may have ended with ctx; the pod must still go.
			if derr := c.Pods(namespace).Delete(context.WithoutCancel(ctx), pod.Name, client.DeleteOptions{}); derr != nil {
				if err == nil {
					err = derr
				}
				return
			}
			fmt.Fprintf(f.out(), "pod %q deleted\n", pod.Name)
		}()
	}

	running, err := waitForPod(ctx, c, namespace, pod.Name, func(p *api.Pod) bool {
		return p.Status.Phase != api.PodPending
	})
	if err != nil {
		return err
	}
	if running.Status.Phase == api.PodRunning {
		tty := o.tty && f.canUseTTY(o.stdin, false)
		if o.stdin {
			fmt.Fprintln(f.errOut(), "If you don't see a command prompt, try pressing enter.")
		}
		if err := f.remoteCommand(ctx, namespace, pod.Name, "attach", url.Values{"container": {pod.Name}}, o.stdin, tty); err != nil {
			return err
		}
	} else {
		// It ended before ctl could attach: its output is in the log. A
		// tail of -1 is "all of it": zero would ask for tailLines=0.
		if err := (&logsOptions{tail: -1}).stream(ctx, c, logRequest{pod: running, container: pod.Name}, f.out()); err != nil {
			return err
		}
	}
	if o.restart == string(api.RestartPolicyAlways) {
		return nil
	}
	ended, err := waitForPod(ctx, c, namespace, pod.Name, func(p *api.Pod) bool {
		return p.Status.Phase == api.PodSucceeded || (o.restart == string(api.RestartPolicyNever) && p.Status.Phase == api.PodFailed)
	})
	if err != nil {
		return err
	}
	if ended.Status.Phase == api.PodFailed {
		statuses := ended.Status.ContainerStatuses
		if len(statuses) == 0 || statuses[0].State.Terminated == nil || statuses[0].State.Terminated.ExitCode == 0 {
			return fmt.Errorf("pod %s/%s failed with unknown exit code", namespace, pod.Name)
		}
		term := statuses[0].State.Terminated
		// kubectl's words, ending in one newline.
		msg := fmt.Sprintf("pod %s/%s terminated (%s)\n%s", namespace, pod.Name, term.Reason, term.Message)
		fmt.Fprint(f.errOut(), strings.TrimSuffix(msg, "\n")+"\n")
		return ExitError{Code: int(term.ExitCode)}
	}
	return nil
}

// waitForPod watches the pod until done says so, for at most
// runPodTimeout, as kubectl run's waitForPod does with UntilWithSync: a
// list, then a watch from its resourceVersion. A pod that is missing or
// deleted meanwhile ends the wait with NotFound, as kubectl's
// precondition and exit condition do.
func waitForPod(ctx context.Context, c *client.Client, namespace, name string, done func(*api.Pod) bool) (*api.Pod, error) {
	ctx, cancel := context.WithTimeout(ctx, runPodTimeout)
	defer cancel()
	var last *api.Pod
	check := func(obj map[string]any) (bool, error) {
		pod, err := decodeInto[api.Pod](obj)
		if err != nil {
			return true, err
		}
		last = pod
		return done(pod), nil
	}
	gone := func(bool) (bool, error) {
		return true, apierrors.NewNotFound(apierrors.Resource{Resource: "pods"}, name)
	}
	err := watchUntil(ctx, c.Dynamic(client.PodsResource).Namespace(namespace), name, check, gone)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		phase := api.PodPhase("")
		if last != nil {
			phase = last.Status.Phase
		}
		return nil, fmt.Errorf("timed out waiting for pod %s/%s (phase %s)", namespace, name, phase)
	}
	if err != nil {
		return nil, err
	}
	return last, nil
}
