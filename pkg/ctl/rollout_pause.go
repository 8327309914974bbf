package ctl

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// rolloutPatchOptions are the flags pause, resume and restart share: they
// each compute a strategic merge patch per object and send it, as kubectl's
// set.CalculatePatches does for them.
type rolloutPatchOptions struct {
	f            *factory
	sel          selection
	output       string
	fieldManager string
}

// addFlags registers the shared flags.
func (o *rolloutPatchOptions) addFlags(cmd *cobra.Command, usage string) {
	o.sel.listWithoutNames = true
	flags := cmd.Flags()
	flags.StringVarP(&o.output, "output", "o", "", "print the object instead of a message: name, yaml, json or jsonpath=TEMPLATE")
	flags.StringVar(&o.fieldManager, "field-manager", "kubectl-rollout", "name of the manager recorded for the fields this command writes")
	o.sel.addFlags(flags, selectionFlags{usage: usage, selector: true})
}

// wholeError is a patcher's error that kubectl prints as it is, without
// the resource and name in front.
type wholeError struct{ error }

// rolloutPatcher computes one object's patch, or the reason it cannot be
// changed (printed after its resource and name).
type rolloutPatcher func(info resourceInfo) ([]byte, error)

// run applies patcher to every object named and reports each as
// "<kind>/<name> <operation>"; failures are collected, worded as kubectl
// words them: `error: deployments.apps "web" is already paused`.
func (o *rolloutPatchOptions) run(ctx context.Context, commandPath string, args []string, patcher rolloutPatcher, operation string) error {
	out, err := parseOutput(o.output, "name", "yaml", "json")
	if err != nil {
		return err
	}
	if o.sel.empty(args) {
		return fmt.Errorf("You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")
	}
	found, err := o.sel.visit(ctx, o.f, args, commandPath)
	if err != nil {
		return err
	}
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	errs := found.errs
	for _, info := range found.infos {
		patch, err := patcher(info)
		var whole wholeError
		switch {
		case errors.As(err, &whole):
			errs = append(errs, whole.error)
			continue
		case err != nil:
			errs = append(errs, fmt.Errorf("error: %s %q %v", info.resource.GroupResource(), info.name, err))
			continue
		}
		result, err := info.dynamic(c).Patch(ctx, info.name, client.StrategicMergePatchType, patch, client.PatchOptions{FieldManager: o.fieldManager})
		if err != nil {
			errs = append(errs, fmt.Errorf("failed to patch: %w", err))
			continue
		}
		if err := printResult(o.f.out(), out, result, operation, ""); err != nil {
			errs = append(errs, err)
		}
	}
	return joinErrors(errs)
}

// newRolloutPauseCommand is `ctl rollout pause`.
func newRolloutPauseCommand(f *factory) *cobra.Command {
	o := &rolloutPatchOptions{f: f}
	cmd := &cobra.Command{
		Use:   "pause RESOURCE",
		Short: "Mark the provided resource as paused",
		Long: `pause sets a Deployment's spec.paused. The deployment controller keeps a
paused Deployment's replica count in line but does not roll out template
changes, so several changes can be made and then rolled out together by
` + "`ctl rollout resume`" + `.`,
		Example:           `  ctl rollout pause deploy/ng-dep`,
		ValidArgsFunction: completeResourceTypeAndName(f, []string{"deployment"}, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args, pausePatch, "paused")
		},
	}
	o.addFlags(cmd, "identifying the resource to get from a server")
	return cmd
}

// newRolloutResumeCommand is `ctl rollout resume`.
func newRolloutResumeCommand(f *factory) *cobra.Command {
	o := &rolloutPatchOptions{f: f}
	cmd := &cobra.Command{
		Use:   "resume RESOURCE",
		Short: "Resume a paused resource",
		Long: `resume clears a paused Deployment's spec.paused, and the deployment
controller rolls out whatever template changes were made meanwhile.`,
		Example:           `  ctl rollout resume deploy/ng-dep`,
		ValidArgsFunction: completeResourceTypeAndName(f, []string{"deployment"}, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args, resumePatch, "resumed")
		},
	}
	o.addFlags(cmd, "identifying the resource to get from a server")
	return cmd
}

// pausePatch is kubectl's defaultObjectPauser.
func pausePatch(info resourceInfo) ([]byte, error) {
	if info.resource.Group+"/"+info.resource.Kind != "apps/Deployment" {
		return nil, errors.New("pausing is not supported")
	}
	d, err := decodeInto[api.Deployment](info.object)
	if err != nil {
		return nil, err
	}
	if d.Spec.Paused {
		return nil, errors.New("is already paused")
	}
	return []byte(`{"spec":{"paused":true}}`), nil
}

// resumePatch is kubectl's defaultObjectResumer. The patch deletes
// spec.paused, which is what a false (omitted) field becomes in kubectl's
// two-way patch.
func resumePatch(info resourceInfo) ([]byte, error) {
	if info.resource.Group+"/"+info.resource.Kind != "apps/Deployment" {
		return nil, errors.New("resuming is not supported")
	}
	d, err := decodeInto[api.Deployment](info.object)
	if err != nil {
		return nil, err
	}
	if !d.Spec.Paused {
		return nil, errors.New("is not paused")
	}
	return []byte(`{"spec":{"paused":null}}`), nil
}
