package ctl

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
)

// drainOptions are the flags of `ctl drain`.
type drainOptions struct {
	nodeOptions

	force                  bool
	ignoreDaemonSets       bool
	deleteEmptyDirData     bool
	ignoreErrors           bool
	gracePeriod            int
	timeout                time.Duration
	podSelector            string
	disableEviction        bool
	skipWaitForDeleteAfter int
	// evictionRetryWait is how long drain waits before asking again for
	// an eviction a budget refused: evictionRetryWait, which newDrainCommand
	// sets (tests shorten it).
	evictionRetryWait time.Duration
}

// drainPollInterval is how often drain looks whether the deleted pods are
// gone (kubectl: every second).
const drainPollInterval = time.Second

// configMirrorAnnotation marks the API copy of a kubelet's static pod; drain
// leaves those alone (deleting one does nothing to the static pod).
const configMirrorAnnotation = "kubernetes.io/config.mirror"

// newDrainCommand is `ctl drain`.
func newDrainCommand(f *factory) *cobra.Command {
	o := &drainOptions{nodeOptions: nodeOptions{f: f}, gracePeriod: -1, evictionRetryWait: evictionRetryWait}
	cmd := &cobra.Command{
		Use:   "drain NODE",
		Short: "Drain node in preparation for maintenance",
		Long: `drain empties a node before maintenance: it cordons the node (so nothing
new is scheduled there), then evicts its pods and waits until they are
gone; their controllers recreate them on other nodes.

An eviction (POST pods/NAME/eviction) is a delete that respects the pod's
PodDisruptionBudget: while the budget allows no disruption the apiserver
answers 429, and drain says so and tries that pod again every 5 seconds,
until the budget allows it (a replacement became Ready elsewhere) or
--timeout runs out. --disable-eviction deletes the pods instead, ignoring
budgets ("pod/x deleted" instead of "pod/x evicted").

Some pods stop the drain unless a flag allows them:
  pods of a DaemonSet          --ignore-daemonsets leaves them running (the
                               DaemonSet would put them back at once)
  pods with emptyDir volumes   --delete-emptydir-data: their data is lost
  pods no controller owns      --force: nothing will recreate them
Mirror pods (a kubelet's static pods) are always left alone.`,
		Example: `  ctl drain node1 --ignore-daemonsets
  ctl drain node1 --force --grace-period=0 --timeout=60s
  ctl uncordon node1`,
		ValidArgsFunction: completeResourceNames(f, "nodes"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd, args)
		},
	}
	flags := cmd.Flags()
	flags.BoolVar(&o.force, "force", false, "also delete pods that no ReplicationController, ReplicaSet, Job, DaemonSet or StatefulSet manages")
	flags.BoolVar(&o.ignoreDaemonSets, "ignore-daemonsets", false, "leave DaemonSet-managed pods alone instead of stopping")
	flags.BoolVar(&o.deleteEmptyDirData, "delete-emptydir-data", false, "also delete pods with emptyDir volumes (their data is lost)")
	flags.BoolVar(&o.ignoreErrors, "ignore-errors", false, "with several nodes, go on to the next node when one fails")
	flags.IntVar(&o.gracePeriod, "grace-period", -1, "seconds each pod gets to stop; -1 (default) uses the pod's own terminationGracePeriodSeconds")
	flags.DurationVar(&o.timeout, "timeout", 0, "how long to wait for the pods to be gone; 0 (default) waits forever")
	flags.StringVar(&o.podSelector, "pod-selector", "", "only delete the node's pods matching this label selector")
	flags.BoolVar(&o.disableEviction, "disable-eviction", false, "delete pods instead of evicting them, bypassing their PodDisruptionBudgets: use with caution")
	flags.IntVar(&o.skipWaitForDeleteAfter, "skip-wait-for-delete-timeout", 0, "do not wait for pods whose deletionTimestamp is older than this many seconds")
	o.addFlags(cmd)
	return cmd
}

// run is `ctl drain`: cordon every node, then empty them one by one,
// stopping at the first node that cannot be drained (unless
// --ignore-errors), as kubectl's RunDrain does.
func (o *drainOptions) run(ctx context.Context, cmd *cobra.Command, args []string) error {
	dryRun, err := parseDryRun(o.dryRunFlag)
	if err != nil {
		return err
	}
	if o.podSelector != "" {
		if _, err := labels.Parse(o.podSelector); err != nil {
			return fmt.Errorf("--pod-selector=<pod_selector> must be a valid label selector")
		}
	}
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	nodes, err := o.nodes(ctx, c, cmd, args)
	if err != nil {
		return err
	}
	o.setUnschedulable(ctx, c, nodes, true, dryRun)

	drained := map[string]bool{}
	for _, node := range nodes {
		err := o.drainNode(ctx, c, node.Name, dryRun)
		if err == nil {
			drained[node.Name] = true
			fmt.Fprintf(o.f.out(), "node/%s drained%s\n", node.Name, dryRun.suffix())
			continue
		}
		// kubectl 1.32's wording, "continuing command..." included.
		fmt.Fprintf(o.f.errOut(), "error: unable to drain node %q due to error: %s, continuing command...\n", node.Name, err)
		if o.ignoreErrors && len(nodes) > 1 {
			continue
		}
		var remaining []string
		for _, n := range nodes {
			if !drained[n.Name] {
				remaining = append(remaining, n.Name)
			}
		}
		fmt.Fprintf(o.f.errOut(), "There are pending nodes to be drained:\n")
		for _, name := range remaining {
			fmt.Fprintf(o.f.errOut(), " %s\n", name)
		}
		// kubectl prints the aggregated error last, one line per cause
		// and without "error: ", and exits 1.
		fmt.Fprintln(o.f.errOut(), err)
		return ExitError{Code: 1}
	}
	return nil
}

// podDeleteStatus is the verdict of drain's filters on one pod, as
// kubectl's drain.PodDeleteStatus.
type podDeleteStatus struct {
	delete bool
	// reason is "", "warning" or "error"; message says why.
	reason, message string
}

// The messages of kubectl's drain filters.
const (
	daemonSetFatal      = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
	daemonSetWarning    = "ignoring DaemonSet-managed Pods"
	localStorageFatal   = "Pods with local storage (use --delete-emptydir-data to override)"
	localStorageWarning = "deleting Pods with local storage"
	unmanagedFatal      = "cannot delete Pods that declare no controller (use --force to override)"
	unmanagedWarning    = "deleting Pods that declare no controller"
)

// podFilters decide, in kubectl's order, what happens to each pod of a
// node; the first that does not allow deletion has the last word.
// daemonSetExists says whether a DaemonSet still exists (an orphaned
// DaemonSet pod is an unmanaged one).
func (o *drainOptions) filterPod(pod *api.Pod, daemonSetExists func(namespace, name string) (bool, error), now time.Time) podDeleteStatus {
	finished := pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed
	filters := []func() podDeleteStatus{
		// Pods long in deletion are not waited for.
		func() podDeleteStatus {
			if o.skipWaitForDeleteAfter > 0 && pod.DeletionTimestamp != nil &&
				int(now.Sub(pod.DeletionTimestamp.Time).Seconds()) > o.skipWaitForDeleteAfter {
				return podDeleteStatus{}
			}
			return podDeleteStatus{delete: true}
		},
		func() podDeleteStatus {
			ref := controllerRef(&pod.ObjectMeta)
			if ref == nil || ref.Kind != "DaemonSet" || finished {
				return podDeleteStatus{delete: true}
			}
			exists, err := daemonSetExists(pod.Namespace, ref.Name)
			switch {
			case err != nil:
				return podDeleteStatus{reason: "error", message: err.Error()}
			case !exists && o.force:
				return podDeleteStatus{delete: true, reason: "warning", message: fmt.Sprintf("daemonsets.apps %q not found", ref.Name)}
			case !exists:
				return podDeleteStatus{reason: "error", message: fmt.Sprintf("daemonsets.apps %q not found", ref.Name)}
			case !o.ignoreDaemonSets:
				return podDeleteStatus{reason: "error", message: daemonSetFatal}
			}
			return podDeleteStatus{reason: "warning", message: daemonSetWarning}
		},
		func() podDeleteStatus {
			if _, ok := pod.Annotations[configMirrorAnnotation]; ok {
				return podDeleteStatus{}
			}
			return podDeleteStatus{delete: true}
		},
		func() podDeleteStatus {
			if !hasEmptyDir(pod) || finished {
				return podDeleteStatus{delete: true}
			}
			if !o.deleteEmptyDirData {
				return podDeleteStatus{reason: "error", message: localStorageFatal}
			}
			return podDeleteStatus{delete: true, reason: "warning", message: localStorageWarning}
		},
		func() podDeleteStatus {
			if finished || controllerRef(&pod.ObjectMeta) != nil {
				return podDeleteStatus{delete: true}
			}
			if o.force {
				return podDeleteStatus{delete: true, reason: "warning", message: unmanagedWarning}
			}
			return podDeleteStatus{reason: "error", message: unmanagedFatal}
		},
	}
	var status podDeleteStatus
	for _, filter := range filters {
		status = filter()
		if !status.delete {
			break
		}
	}
	return status
}

// controllerRef is the object's controller ownerReference (the one with
// controller: true), or nil: upstream's metav1.GetControllerOf.
func controllerRef(meta *api.ObjectMeta) *api.OwnerReference {
	for i := range meta.OwnerReferences {
		if ref := &meta.OwnerReferences[i]; ref.Controller != nil && *ref.Controller {
			return ref
		}
	}
	return nil
}

// hasEmptyDir reports whether the pod has an emptyDir volume.
func hasEmptyDir(pod *api.Pod) bool {
	for _, v := range pod.Spec.Volumes {
		if v.EmptyDir != nil {
			return true
		}
	}
	return false
}

// podsForDeletion lists a node's pods and sorts them by the filters'
// verdicts: the pods to delete, the warnings (message → pods) and the
// errors (message → pods), as kubectl's GetPodsForDeletion.
func (o *drainOptions) podsForDeletion(ctx context.Context, c *client.Client, node string) ([]*api.Pod, map[string][]string, []error, error) {
	list, err := c.Pods("").List(ctx, client.ListOptions{LabelSelector: o.podSelector, FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		return nil, nil, nil, err
	}
	daemonSetExists := func(namespace, name string) (bool, error) {
		_, err := c.DaemonSets(namespace).Get(ctx, name, client.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	}
	var pods []*api.Pod
	warnings := map[string][]string{}
	failed := map[string][]string{}
	now := time.Now()
	for _, pod := range list.Items {
		status := o.filterPod(pod, daemonSetExists, now)
		key := pod.Namespace + "/" + pod.Name
		switch status.reason {
		case "warning":
			warnings[status.message] = append(warnings[status.message], key)
		case "error":
			failed[status.message] = append(failed[status.message], key)
		}
		if status.delete {
			pods = append(pods, pod)
		}
	}
	var errs []error
	for _, msg := range sortedMapKeys(failed) {
		// kubectl 1.32 puts "cannot delete" before every message, even
		// those that already start with it.
		errs = append(errs, fmt.Errorf("cannot delete %s: %s", msg, strings.Join(failed[msg], ", ")))
	}
	return pods, warnings, errs, nil
}

// drainNode deletes the node's pods and waits until they are gone.
func (o *drainOptions) drainNode(ctx context.Context, c *client.Client, node string, dryRun dryRunStrategy) error {
	pods, warnings, errs, err := o.podsForDeletion(ctx, c, node)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return joinErrors(errs)
	}
	if len(warnings) > 0 {
		var parts []string
		for _, msg := range sortedMapKeys(warnings) {
			parts = append(parts, fmt.Sprintf("%s: %s", msg, strings.Join(warnings[msg], ", ")))
		}
		fmt.Fprintf(o.f.errOut(), "Warning: %s\n", strings.Join(parts, "; "))
	}
	if dryRun == "client" {
		for _, pod := range pods {
			fmt.Fprintf(o.f.out(), "evicting pod %s/%s (dry run)\n", pod.Namespace, pod.Name)
		}
		return nil
	}

	opts := client.DeleteOptions{}
	if o.gracePeriod >= 0 {
		grace := int64(o.gracePeriod)
		opts.GracePeriodSeconds = &grace
	}
	if dryRun == "server" {
		opts.DryRun = []string{api.DryRunAll}
	}
	if !o.disableEviction {
		if err := o.evictPods(ctx, c, pods, opts, dryRun == "server"); err != nil {
			o.printPendingPods(ctx, c, node, err)
			return err
		}
		return nil
	}
	for _, pod := range pods {
		err := c.Pods(pod.Namespace).Delete(ctx, pod.Name, opts)
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	if dryRun == "server" {
		for _, pod := range pods {
			fmt.Fprintf(o.f.out(), "pod/%s deleted (server dry run)\n", pod.Name)
		}
		return nil
	}
	pending, err := o.waitForDelete(ctx, c, pods, "deleted")
	if err != nil {
		o.printPending(node, err, pending)
		return err
	}
	return nil
}

// waitForDelete polls every second until each pod is gone (not found, or
// replaced by a pod of the same name with another UID), printing
// "pod/x <verb>" ("deleted", "evicted") as each goes; with --timeout it
// gives up and returns the pods still there.
func (o *drainOptions) waitForDelete(ctx context.Context, c *client.Client, pods []*api.Pod, verb string) ([]*api.Pod, error) {
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	now := time.Now()
	for {
		var pending []*api.Pod
		for i, pod := range pods {
			current, err := c.Pods(pod.Namespace).Get(ctx, pod.Name, client.GetOptions{})
			// On an error, the pods not checked yet are pending too.
			switch {
			case apierrors.IsNotFound(err) || (err == nil && current.UID != pod.UID):
				fmt.Fprintf(o.f.out(), "pod/%s %s\n", pod.Name, verb)
			case err != nil && ctx.Err() != nil:
				return append(pending, pods[i:]...), errWaitTimeout
			case err != nil:
				return append(pending, pods[i:]...), err
			case o.skipWaitForDeleteAfter > 0 && current.DeletionTimestamp != nil &&
				int(now.Sub(current.DeletionTimestamp.Time).Seconds()) > o.skipWaitForDeleteAfter:
				fmt.Fprintf(o.f.out(), "pod %q has DeletionTimestamp older than %v seconds, skipping\n", pod.Name, o.skipWaitForDeleteAfter)
			default:
				pending = append(pending, pod)
			}
		}
		if len(pending) == 0 {
			return nil, nil
		}
		pods = pending
		if sleepContext(ctx, drainPollInterval) != nil {
			return pending, errWaitTimeout
		}
		now = time.Now()
	}
}

// sortedMapKeys returns m's keys in order, for stable messages.
func sortedMapKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
