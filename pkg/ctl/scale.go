package ctl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// scaleOptions are the flags of `ctl scale`.
type scaleOptions struct {
	f   *factory
	sel selection

	replicas        int
	currentReplicas int
	resourceVersion string
	timeout         time.Duration
	output          string
	dryRunFlag      string
}

// Timings of kubectl's scaler: a conflicting update is retried every
// second for up to five minutes, and --timeout polls every second.
const (
	scaleRetryInterval = time.Second
	scaleRetryTimeout  = 5 * time.Minute
	scaleWaitInterval  = time.Second
)

// scalableTypes are the types `scale` completes, as kubectl's list.
var scalableTypes = []string{"deployment", "replicaset", "replicationcontroller", "statefulset"}

// newScaleCommand is `ctl scale`.
func newScaleCommand(f *factory) *cobra.Command {
	o := &scaleOptions{f: f}
	cmd := &cobra.Command{
		Use:   "scale [--resource-version=version] [--current-replicas=count] --replicas=COUNT (-f FILENAME | TYPE NAME)",
		Short: "Set a new size for a deployment, replica set, or replication controller",
		Long: `scale sets the desired number of replicas of a workload through its scale
subresource (PATCH …/deployments/NAME/scale), the one interface through
which kubectl and the horizontal pod autoscaler resize any scalable kind.
Only spec.replicas changes; the controllers then create or delete pods.

--current-replicas and --resource-version are preconditions: the size is
changed only if the workload still has that size or version (the scale is
then read and written back, a compare-and-swap). --timeout waits until the
workload reports the new number of replicas.`,
		Example: `  ctl scale deploy/ng-dep --replicas=5
  ctl scale --current-replicas=2 --replicas=3 deployment/ng-dep
  ctl scale --replicas=3 rs/ng-dep-5d4b7c9f
  ctl scale statefulset web --replicas=0 --timeout=1m`,
		ValidArgsFunction: completeResourceTypeAndName(f, scalableTypes, true),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args)
		},
	}
	flags := cmd.Flags()
	flags.IntVar(&o.replicas, "replicas", 0, "the new desired number of replicas (required)")
	_ = cmd.MarkFlagRequired("replicas")
	flags.IntVar(&o.currentReplicas, "current-replicas", -1, "scale only if the current size is this; -1 (default) for no condition")
	flags.StringVar(&o.resourceVersion, "resource-version", "", "scale only if the workload's resourceVersion is this")
	flags.DurationVar(&o.timeout, "timeout", 0, "wait this long for the workload to report the new size; 0 does not wait")
	flags.StringVarP(&o.output, "output", "o", "", "print the object instead of a message: name, yaml, json or jsonpath=TEMPLATE")
	addDryRunFlag(flags, &o.dryRunFlag)
	o.sel.addFlags(flags, selectionFlags{usage: "identifying the resource to set a new size", selector: true, all: true})
	return cmd
}

// run is `ctl scale`.
func (o *scaleOptions) run(ctx context.Context, commandPath string, args []string) error {
	out, err := parseOutput(o.output, "name", "yaml", "json")
	if err != nil {
		return err
	}
	dryRun, err := parseDryRun(o.dryRunFlag)
	if err != nil {
		return err
	}
	if o.replicas < 0 {
		return fmt.Errorf("The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0")
	}
	if o.currentReplicas < -1 {
		return fmt.Errorf("The --current-replicas must specify an integer of -1 or greater")
	}
	if o.sel.empty(args) {
		return errNoResources
	}
	found, err := o.sel.visit(ctx, o.f, args, commandPath)
	if err != nil {
		return err
	}
	if o.resourceVersion != "" && len(found.infos) > 1 {
		return fmt.Errorf("cannot use --resource-version with multiple resources")
	}
	if len(found.infos) == 0 {
		if len(found.errs) > 0 {
			// Worded as kubectl 1.32 words it, the reason appended.
			return fmt.Errorf("no objects passed to scale %s", joinErrors(found.errs).Error())
		}
		return fmt.Errorf("no objects passed to scale")
	}
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	for _, info := range found.infos {
		if dryRun == "client" {
			setNestedField(info.object, int64(o.replicas), "spec", "replicas")
		} else {
			actual, err := o.scaleOne(ctx, c, info, dryRun == "server")
			if err != nil {
				return err
			}
			setNestedField(info.object, int64(actual), "spec", "replicas")
		}
		if err := printResult(o.f.out(), out, info.object, "scaled", dryRun); err != nil {
			return err
		}
	}
	return joinErrors(found.errs)
}

// scaleOne sets one workload's replicas through its scale subresource and
// returns the replicas the server recorded. Without preconditions it is a
// blind merge patch; with them, a read, a check and a write carrying the
// resourceVersion read, retried on conflicts as kubectl's scaler does.
func (o *scaleOptions) scaleOne(ctx context.Context, c *client.Client, info resourceInfo, serverDryRun bool) (int32, error) {
	if o.currentReplicas == -1 && o.resourceVersion == "" {
		body := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, o.replicas)
		scale, err := info.dynamic(c).Patch(ctx, info.name, client.MergePatchType, body, client.PatchOptions{DryRun: serverDryRun}, "scale")
		if err != nil {
			return 0, err
		}
		replicas, _ := nestedInteger(scale, "spec", "replicas")
		return int32(replicas), o.wait(ctx, c, info, serverDryRun)
	}

	deadline := time.Now().Add(scaleRetryTimeout)
	for {
		scale, err := c.GetScale(ctx, info.resource.Client(), info.namespace, info.name)
		if err != nil {
			return 0, err
		}
		if o.currentReplicas != -1 && int(scale.Spec.Replicas) != o.currentReplicas {
			return 0, fmt.Errorf("Expected replicas to be %d, was %d", o.currentReplicas, scale.Spec.Replicas)
		}
		if o.resourceVersion != "" && scale.ResourceVersion != o.resourceVersion {
			return 0, fmt.Errorf("Expected resource version to be %s, was %s", o.resourceVersion, scale.ResourceVersion)
		}
		scale.Spec.Replicas = int32(o.replicas)
		updated, err := c.UpdateScale(ctx, info.resource.Client(), info.namespace, scale)
		if apierrors.IsConflict(err) && time.Now().Before(deadline) {
			if err := sleepContext(ctx, scaleRetryInterval); err != nil {
				return 0, err
			}
			continue
		}
		if err != nil {
			return 0, err
		}
		return updated.Spec.Replicas, o.wait(ctx, c, info, serverDryRun)
	}
}

// wait polls the scale until the workload reports --replicas replicas, for
// --timeout.
func (o *scaleOptions) wait(ctx context.Context, c *client.Client, info resourceInfo, serverDryRun bool) error {
	if o.timeout == 0 || serverDryRun {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	for {
		scale, err := c.GetScale(ctx, info.resource.Client(), info.namespace, info.name)
		if err == nil && scale.Spec.Replicas == int32(o.replicas) && scale.Status.Replicas == int32(o.replicas) {
			return nil
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return err
		}
		if err := sleepContext(ctx, scaleWaitInterval); err != nil {
			return fmt.Errorf("timed out waiting for %q to be synced", info.name)
		}
	}
}

// sleepContext waits d, or less if ctx ends first (then it returns ctx's error).
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// setNestedField sets obj.<path> to value, creating maps on the way.
func setNestedField(obj map[string]any, value any, path ...string) {
	m := obj
	for _, key := range path[:len(path)-1] {
		next, ok := m[key].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[key] = next
		}
		m = next
	}
	m[path[len(path)-1]] = value
}

// nestedInteger reads a whole number at obj.<path>.
func nestedInteger(obj map[string]any, path ...string) (int64, bool) {
	var v any = obj
	for _, key := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return 0, false
		}
		v = m[key]
	}
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		return int64(n), true
	}
	return 0, false
}
