package ctl

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	"kplane/pkg/ctl/describe"
)

// rolloutHistoryOptions are the flags of `ctl rollout history`.
type rolloutHistoryOptions struct {
	f        *factory
	sel      selection
	revision int64
}

// newRolloutHistoryCommand is `ctl rollout history`.
func newRolloutHistoryCommand(f *factory) *cobra.Command {
	o := &rolloutHistoryOptions{f: f}
	o.sel.listWithoutNames = true
	cmd := &cobra.Command{
		Use:   "history (TYPE NAME | TYPE/NAME) [flags]",
		Short: "View rollout history",
		Long: `history lists a Deployment's revisions: one per ReplicaSet it owns, numbered
by the ReplicaSet's deployment.kubernetes.io/revision annotation, with the
kubernetes.io/change-cause annotation the ReplicaSet copied from the
Deployment when it was created (set it with ` + "`ctl annotate`" + `).
--revision=N shows the pod template of revision N.

Only revisions whose ReplicaSet still exists are listed: the controller
deletes old ReplicaSets beyond spec.revisionHistoryLimit (default 10).`,
		Example: `  ctl rollout history deploy/ng-dep
  ctl rollout history deploy/ng-dep --revision=2`,
		ValidArgsFunction: completeResourceTypeAndName(f, rolloutTypes, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args)
		},
	}
	flags := cmd.Flags()
	flags.Int64Var(&o.revision, "revision", 0, "show the pod template of this revision")
	o.sel.addFlags(flags, selectionFlags{usage: "identifying the resource to get from a server", selector: true})
	return cmd
}

// run is `ctl rollout history`.
func (o *rolloutHistoryOptions) run(ctx context.Context, commandPath string, args []string) error {
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
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	errs := found.errs
	for _, info := range found.infos {
		if info.resource.Group+"/"+info.resource.Kind != "apps/Deployment" {
			errs = append(errs, fmt.Errorf("no history viewer has been implemented for %q", groupKind(info)))
			continue
		}
		d, err := decodeInto[api.Deployment](info.object)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rss, err := ownedReplicaSets(ctx, c, d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		history, err := deploymentHistory(rss, o.revision)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		withRevision := ""
		if o.revision > 0 {
			withRevision = fmt.Sprintf("with revision #%v", o.revision)
		}
		// kubectl prints this as the "operation" of its name printer:
		// "deployment.apps/x " + "<with revision>\n<history>", and a newline.
		fmt.Fprintf(o.f.out(), "%s %s\n%s\n", info.objectName(), withRevision, history)
	}
	return joinErrors(errs)
}

// groupKind names a kind as apimachinery's GroupKind.String does:
// "Pod", "ReplicaSet.apps".
func groupKind(info resourceInfo) string {
	if info.resource.Group == "" {
		return info.resource.Kind
	}
	return info.resource.Kind + "." + info.resource.Group
}

// deploymentHistory is kubectl's DeploymentHistoryViewer on a Deployment's
// ReplicaSets: the REVISION / CHANGE-CAUSE table, or with revision > 0 the
// pod template of that revision. ReplicaSets whose revision annotation
// cannot be read are skipped, as kubectl skips them (with a warning in its
// log).
func deploymentHistory(rss []*api.ReplicaSet, revision int64) (string, error) {
	templates := map[int64]api.PodTemplateSpec{}
	for _, rs := range rss {
		v, err := deploymentRevision(&rs.ObjectMeta)
		if err != nil {
			continue
		}
		template := api.DeepCopyValue(rs.Spec.Template)
		if cause := rs.Annotations[changeCauseAnnotation]; cause != "" {
			if template.Annotations == nil {
				template.Annotations = map[string]string{}
			}
			template.Annotations[changeCauseAnnotation] = cause
		}
		templates[v] = template
	}
	if len(templates) == 0 {
		return "No rollout history found.", nil
	}
	if revision > 0 {
		template, ok := templates[revision]
		if !ok {
			return "", fmt.Errorf("unable to find the specified revision")
		}
		return describe.PodTemplate(&template), nil
	}
	revisions := make([]int64, 0, len(templates))
	for v := range templates {
		revisions = append(revisions, v)
	}
	sort.Slice(revisions, func(i, j int) bool { return revisions[i] < revisions[j] })
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintf(w, "REVISION\tCHANGE-CAUSE\n")
	for _, v := range revisions {
		cause := templates[v].Annotations[changeCauseAnnotation]
		if cause == "" {
			cause = "<none>"
		}
		fmt.Fprintf(w, "%d\t%s\n", v, cause)
	}
	flushTabwriter(w)
	return b.String(), nil
}

// flushTabwriter ends a tabwriter whose destination cannot fail (a strings.Builder).
func flushTabwriter(w *tabwriter.Writer) { _ = w.Flush() }
