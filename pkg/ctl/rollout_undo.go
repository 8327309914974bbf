package ctl

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/ctl/describe"
)

// rolloutUndoOptions are the flags of `ctl rollout undo`.
type rolloutUndoOptions struct {
	f          *factory
	sel        selection
	toRevision int64
	output     string
	dryRunFlag string
}

// newRolloutUndoCommand is `ctl rollout undo`.
func newRolloutUndoCommand(f *factory) *cobra.Command {
	o := &rolloutUndoOptions{f: f}
	o.sel.listWithoutNames = true
	cmd := &cobra.Command{
		Use:   "undo (TYPE NAME | TYPE/NAME) [flags]",
		Short: "Undo a previous rollout",
		Long: `undo rolls a Deployment, DaemonSet or StatefulSet back to an earlier
revision: the previous one, or --to-revision (see ` + "`ctl rollout history`" + `). It is
done on the client, as kubectl does.

For a Deployment: find the ReplicaSet the Deployment owns with that
revision, and patch the Deployment's pod template to be that ReplicaSet's
template (without the pod-template-hash label the controller added).

For a DaemonSet or StatefulSet: find the ControllerRevision with that
revision, and send its data — a strategic merge patch that replaces
spec.template — to the workload as it is.

Either way the controller then sees a template it already has a revision
for, and gives that revision the next number, so the revision you rolled
back to disappears from the history and reappears as the newest. When the
current template already is that revision's, nothing is sent ("skipped
rollback").`,
		Example: `  ctl rollout undo deploy/ng-dep
  ctl rollout undo deploy/ng-dep --to-revision=1
  ctl rollout undo ds/nginx-ds --dry-run=client
  ctl rollout undo sts/nginx-ss --to-revision=1`,
		ValidArgsFunction: completeResourceTypeAndName(f, rolloutTypes, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args)
		},
	}
	flags := cmd.Flags()
	flags.Int64Var(&o.toRevision, "to-revision", 0, "the revision to roll back to; 0 (default) is the previous one")
	flags.StringVarP(&o.output, "output", "o", "", "print only the name of each object: name")
	addDryRunFlag(flags, &o.dryRunFlag)
	o.sel.addFlags(flags, selectionFlags{usage: "identifying the resource to get from a server", selector: true})
	return cmd
}

// run is `ctl rollout undo`.
func (o *rolloutUndoOptions) run(ctx context.Context, commandPath string, args []string) error {
	out, err := parseOutput(o.output, "name")
	if err != nil {
		return err
	}
	dryRun, err := parseDryRun(o.dryRunFlag)
	if err != nil {
		return err
	}
	if o.sel.empty(args) {
		return fmt.Errorf("required resource not specified")
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
		var result string
		switch {
		case info.resource.Group == "apps" && info.resource.Kind == "Deployment":
			result, err = o.rollback(ctx, c, info, dryRun)
		case keepsControllerRevisions(info):
			result, err = rollbackToControllerRevision(ctx, c, info, o.toRevision, dryRun)
		default:
			err = fmt.Errorf("no rollbacker has been implemented for %q", groupKind(info))
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := printResult(o.f.out(), out, info.object, result, dryRun); err != nil {
			errs = append(errs, err)
		}
	}
	return joinErrors(errs)
}

// rollback is kubectl's DeploymentRollbacker (for a DaemonSet or
// StatefulSet see rollbackToControllerRevision): it returns what to print
// after the object's name ("rolled back", "skipped rollback (…)", or with
// --dry-run=client the template it would restore).
func (o *rolloutUndoOptions) rollback(ctx context.Context, c *client.Client, info resourceInfo, dryRun dryRunStrategy) (string, error) {
	if o.toRevision < 0 {
		return "", revisionNotFound(o.toRevision)
	}
	d, err := c.Deployments(info.namespace).Get(ctx, info.name, client.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("failed to retrieve Deployment %s: %w", info.name, err)
	}
	rss, err := ownedReplicaSets(ctx, c, d)
	if err != nil {
		return "", err
	}
	target, err := rollbackTarget(d.Name, rss, o.toRevision)
	if err != nil {
		return "", err
	}
	if dryRun == "client" {
		return describe.PodTemplate(&target.Spec.Template), nil
	}
	if d.Spec.Paused {
		return "", fmt.Errorf("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again")
	}
	if equalIgnoringHash(target.Spec.Template, d.Spec.Template) {
		return fmt.Sprintf("skipped rollback (current template already matches revision %d)", o.toRevision), nil
	}
	patch, err := rollbackPatch(d, target)
	if err != nil {
		return "", fmt.Errorf("failed restoring revision %d: %w", o.toRevision, err)
	}
	opts := client.PatchOptions{DryRun: dryRun == "server"}
	if _, err := c.Deployments(d.Namespace).Patch(ctx, d.Name, client.JSONPatchType, patch, opts); err != nil {
		return "", fmt.Errorf("failed restoring revision %d: %w", o.toRevision, err)
	}
	return "rolled back", nil
}

// revisionNotFound is kubectl's revisionNotFoundErr.
func revisionNotFound(revision int64) error {
	return fmt.Errorf("unable to find specified revision %v in history", revision)
}

// rollbackTarget picks the ReplicaSet to roll back to: the one with
// toRevision, or for 0 the second-highest revision (the one before the
// current), as kubectl's deploymentRevision does.
func rollbackTarget(deployment string, rss []*api.ReplicaSet, toRevision int64) (*api.ReplicaSet, error) {
	var latest, previous *api.ReplicaSet
	latestRevision, previousRevision := int64(-1), int64(-1)
	for _, rs := range rss {
		v, err := deploymentRevision(&rs.ObjectMeta)
		if err != nil {
			continue
		}
		switch {
		case toRevision > 0:
			if v == toRevision {
				return rs, nil
			}
		case v > latestRevision:
			previous, previousRevision = latest, latestRevision
			latest, latestRevision = rs, v
		case v > previousRevision:
			previous, previousRevision = rs, v
		}
	}
	if toRevision > 0 {
		return nil, revisionNotFound(toRevision)
	}
	if previous == nil {
		return nil, fmt.Errorf("no rollout history found for deployment %q", deployment)
	}
	return previous, nil
}

// rollbackAnnotationsToKeep are the Deployment's own annotations, kept
// through a rollback; every other annotation comes from the ReplicaSet
// rolled back to (kubectl's annotationsToSkip).
var rollbackAnnotationsToKeep = map[string]bool{
	lastAppliedAnnotation:                       true,
	api.DeploymentRevisionAnnotation:            true,
	"deployment.kubernetes.io/revision-history": true,
	api.DeploymentDesiredReplicasAnnotation:     true,
	api.DeploymentMaxReplicasAnnotation:         true,
	"deprecated.deployment.rollback.to":         true,
}

// rollbackPatch is the JSON patch kubectl sends: replace spec.template
// with the ReplicaSet's (minus pod-template-hash) and metadata.annotations
// with the Deployment's own plus the ReplicaSet's others (its
// change-cause among them).
func rollbackPatch(d *api.Deployment, target *api.ReplicaSet) ([]byte, error) {
	template := api.DeepCopyValue(target.Spec.Template)
	delete(template.Labels, api.DefaultDeploymentUniqueLabelKey)
	annotations := map[string]string{}
	for k := range rollbackAnnotationsToKeep {
		if v, ok := d.Annotations[k]; ok {
			annotations[k] = v
		}
	}
	for k, v := range target.Annotations {
		if !rollbackAnnotationsToKeep[k] {
			annotations[k] = v
		}
	}
	return json.Marshal([]map[string]any{
		{"op": "replace", "path": "/spec/template", "value": template},
		{"op": "replace", "path": "/metadata/annotations", "value": annotations},
	})
}
