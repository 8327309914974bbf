package ctl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// rolloutStatusOptions are the flags of `ctl rollout status`.
type rolloutStatusOptions struct {
	f   *factory
	sel selection

	watch    bool
	revision int64
	timeout  time.Duration
}

// errWaitTimeout is what kubectl says when --timeout ends a watch
// (apimachinery's wait.ErrWaitTimeout).
var errWaitTimeout = errors.New("timed out waiting for the condition")

// newRolloutStatusCommand is `ctl rollout status`.
func newRolloutStatusCommand(f *factory) *cobra.Command {
	o := &rolloutStatusOptions{f: f, watch: true}
	o.sel.listWithoutNames = true
	cmd := &cobra.Command{
		Use:   "status (TYPE NAME | TYPE/NAME) [flags]",
		Short: "Show the status of the rollout",
		Long: `status watches a rollout and prints a line each time the object changes,
until the rollout is done; it exits 0 then, and 1 if the rollout cannot
finish: for a Deployment, when the controller has set its Progressing
condition to ProgressDeadlineExceeded (no progress for
spec.progressDeadlineSeconds).

The lines are kubectl's (its DeploymentStatusViewer), from the Deployment's
status as the controller reports it, in this order of checks:
  Waiting for deployment spec update to be observed...   (observedGeneration < generation)
  N out of M new replicas have been updated...           (updatedReplicas < spec.replicas)
  N old replicas are pending termination...              (replicas > updatedReplicas)
  N of M updated replicas are available...               (availableReplicas < updatedReplicas)
  deployment "x" successfully rolled out

With --watch=false it prints the current line once and exits 0.`,
		Example: `  ctl rollout status deploy/ng-dep
  ctl rollout status deploy/ng-dep --timeout=2m
  ctl rollout status statefulset/web --watch=false`,
		ValidArgsFunction: completeResourceTypeAndName(f, rolloutTypes, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args)
		},
	}
	flags := cmd.Flags()
	flags.BoolVarP(&o.watch, "watch", "w", true, "watch the status of the rollout until it is done")
	flags.Int64Var(&o.revision, "revision", 0, "pin to this revision: fail if the Deployment is at another; 0 (default) is the latest")
	flags.DurationVar(&o.timeout, "timeout", 0, "how long to watch before giving up; 0 (default) waits forever")
	o.sel.addFlags(flags, selectionFlags{usage: "identifying the resource to get from a server", selector: true})
	return cmd
}

// run is `ctl rollout status`.
func (o *rolloutStatusOptions) run(ctx context.Context, commandPath string, args []string) error {
	if o.sel.empty(args) {
		return fmt.Errorf("required resource not specified")
	}
	if o.revision < 0 {
		return fmt.Errorf("revision must be a positive integer: %v", o.revision)
	}
	found, err := o.sel.visit(ctx, o.f, args, commandPath)
	if err != nil {
		return err
	}
	if len(found.errs) > 0 {
		return joinErrors(found.errs)
	}
	if len(found.infos) != 1 {
		return fmt.Errorf("rollout status is only supported on individual resources and resource collections - %d resources were found", len(found.infos))
	}
	info := found.infos[0]
	viewer, err := statusViewerFor(info)
	if err != nil {
		return err
	}
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	return o.watchStatus(ctx, c, info, viewer)
}

// statusViewer computes the status line of one object and whether its
// rollout is done; an error ends the watch (a deadline exceeded).
type statusViewer func(obj map[string]any, revision int64) (string, bool, error)

// statusViewerFor picks the viewer for the object's kind, as kubectl's
// StatusViewerFor does.
func statusViewerFor(info resourceInfo) (statusViewer, error) {
	switch info.resource.Group + "/" + info.resource.Kind {
	case "apps/Deployment":
		return func(obj map[string]any, revision int64) (string, bool, error) {
			d, err := decodeInto[api.Deployment](obj)
			if err != nil {
				return "", false, err
			}
			return deploymentStatus(d, revision)
		}, nil
	case "apps/DaemonSet":
		return func(obj map[string]any, _ int64) (string, bool, error) {
			ds, err := decodeInto[api.DaemonSet](obj)
			if err != nil {
				return "", false, err
			}
			return daemonSetStatus(ds)
		}, nil
	case "apps/StatefulSet":
		return func(obj map[string]any, _ int64) (string, bool, error) {
			sts, err := decodeInto[api.StatefulSet](obj)
			if err != nil {
				return "", false, err
			}
			return statefulSetStatus(sts)
		}, nil
	}
	kind := info.resource.Kind
	if info.resource.Group != "" {
		kind += "." + info.resource.Group
	}
	return nil, fmt.Errorf("no status viewer has been implemented for %s", kind)
}

// watchStatus prints the rollout's status at every change of the
// object until it is done (watchUntil: a list, then a watch resumed when
// the server closes it).
func (o *rolloutStatusOptions) watchStatus(ctx context.Context, c *client.Client, info resourceInfo, viewer statusViewer) error {
	// check prints the status of one version of the object and reports
	// whether to stop.
	check := func(obj map[string]any) (bool, error) {
		status, done, err := viewer(obj, o.revision)
		if err != nil {
			return true, err
		}
		fmt.Fprint(o.f.out(), status)
		return done || !o.watch, nil
	}
	// A new object of the same name would be another rollout; kubectl
	// stops rather than watch it. An object missing from the first list
	// is waited for, as kubectl's precondition-less UntilWithSync does.
	gone := func(deleted bool) (bool, error) {
		return deleted, fmt.Errorf("object has been deleted")
	}
	return timeoutOr(ctx, watchUntil(ctx, info.dynamic(c), info.name, check, gone))
}

// timeoutOr turns the end of --timeout into kubectl's message.
func timeoutOr(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return errWaitTimeout
	}
	return err
}

// progressDeadlineExceededReason is the reason of a Deployment's
// Progressing condition once it stopped making progress.
const progressDeadlineExceededReason = "ProgressDeadlineExceeded"

// deploymentStatus is kubectl 1.32's DeploymentStatusViewer: the line to
// print for one version of a Deployment, whether the rollout is done, and
// an error when it can never finish (or is not at the pinned revision).
func deploymentStatus(d *api.Deployment, revision int64) (string, bool, error) {
	if revision > 0 {
		current, err := deploymentRevision(&d.ObjectMeta)
		if err != nil {
			return "", false, fmt.Errorf("cannot get the revision of deployment %q: %v", d.Name, err)
		}
		if revision != current {
			return "", false, fmt.Errorf("desired revision (%d) is different from the running revision (%d)", revision, current)
		}
	}
	if d.Generation > d.Status.ObservedGeneration {
		return "Waiting for deployment spec update to be observed...\n", false, nil
	}
	for _, cond := range d.Status.Conditions {
		if cond.Type == api.DeploymentProgressing && cond.Reason == progressDeadlineExceededReason {
			return "", false, fmt.Errorf("deployment %q exceeded its progress deadline", d.Name)
		}
	}
	s := d.Status
	switch {
	case d.Spec.Replicas != nil && s.UpdatedReplicas < *d.Spec.Replicas:
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d out of %d new replicas have been updated...\n", d.Name, s.UpdatedReplicas, *d.Spec.Replicas), false, nil
	case s.Replicas > s.UpdatedReplicas:
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d old replicas are pending termination...\n", d.Name, s.Replicas-s.UpdatedReplicas), false, nil
	case s.AvailableReplicas < s.UpdatedReplicas:
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d of %d updated replicas are available...\n", d.Name, s.AvailableReplicas, s.UpdatedReplicas), false, nil
	}
	return fmt.Sprintf("deployment %q successfully rolled out\n", d.Name), true, nil
}

// daemonSetStatus is kubectl's DaemonSetStatusViewer.
func daemonSetStatus(ds *api.DaemonSet) (string, bool, error) {
	if ds.Spec.UpdateStrategy.Type != api.RollingUpdateDaemonSetStrategyType {
		return "", true, fmt.Errorf("rollout status is only available for %s strategy type", api.RollingUpdateStatefulSetStrategyType)
	}
	if ds.Generation > ds.Status.ObservedGeneration {
		return "Waiting for daemon set spec update to be observed...\n", false, nil
	}
	s := ds.Status
	switch {
	case s.UpdatedNumberScheduled < s.DesiredNumberScheduled:
		return fmt.Sprintf("Waiting for daemon set %q rollout to finish: %d out of %d new pods have been updated...\n", ds.Name, s.UpdatedNumberScheduled, s.DesiredNumberScheduled), false, nil
	case s.NumberAvailable < s.DesiredNumberScheduled:
		return fmt.Sprintf("Waiting for daemon set %q rollout to finish: %d of %d updated pods are available...\n", ds.Name, s.NumberAvailable, s.DesiredNumberScheduled), false, nil
	}
	return fmt.Sprintf("daemon set %q successfully rolled out\n", ds.Name), true, nil
}

// statefulSetStatus is kubectl's StatefulSetStatusViewer.
func statefulSetStatus(sts *api.StatefulSet) (string, bool, error) {
	if sts.Spec.UpdateStrategy.Type != api.RollingUpdateStatefulSetStrategyType {
		return "", true, fmt.Errorf("rollout status is only available for %s strategy type", api.RollingUpdateStatefulSetStrategyType)
	}
	if sts.Status.ObservedGeneration == 0 || sts.Generation > sts.Status.ObservedGeneration {
		return "Waiting for statefulset spec update to be observed...\n", false, nil
	}
	s := sts.Status
	if sts.Spec.Replicas != nil && s.ReadyReplicas < *sts.Spec.Replicas {
		return fmt.Sprintf("Waiting for %d pods to be ready...\n", *sts.Spec.Replicas-s.ReadyReplicas), false, nil
	}
	if ru := sts.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		if sts.Spec.Replicas != nil && ru.Partition != nil && s.UpdatedReplicas < *sts.Spec.Replicas-*ru.Partition {
			return fmt.Sprintf("Waiting for partitioned roll out to finish: %d out of %d new pods have been updated...\n", s.UpdatedReplicas, *sts.Spec.Replicas-*ru.Partition), false, nil
		}
		return fmt.Sprintf("partitioned roll out complete: %d new pods have been updated...\n", s.UpdatedReplicas), true, nil
	}
	if s.UpdateRevision != s.CurrentRevision {
		return fmt.Sprintf("waiting for statefulset rolling update to complete %d pods at revision %s...\n", s.UpdatedReplicas, s.UpdateRevision), false, nil
	}
	return fmt.Sprintf("statefulset rolling update complete %d pods at revision %s...\n", s.CurrentReplicas, s.CurrentRevision), true, nil
}
