package ctl

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	"kplane/pkg/client"
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
		Long: `history lists the revisions of a Deployment, DaemonSet or StatefulSet, with
the kubernetes.io/change-cause annotation the workload had when each
revision was made (set it with ` + "`ctl annotate`" + ` before changing the template).
--revision=N shows the pod template of revision N.

A Deployment's revisions are the ReplicaSets it owns, numbered by their
deployment.kubernetes.io/revision annotation. A DaemonSet's or StatefulSet's
are the ControllerRevisions it controls: each holds one pod template the
workload has run, as a patch that puts that template back.

Only revisions that still exist are listed: the controllers delete the
oldest unused ones beyond spec.revisionHistoryLimit (default 10).`,
		Example: `  ctl rollout history deploy/ng-dep
  ctl rollout history deploy/ng-dep --revision=2
  ctl rollout history ds/nginx-ds
  ctl rollout history sts/nginx-ss --revision=1`,
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
		history, err := o.history(ctx, c, info)
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

// history is one object's history, read the way its kind keeps it:
// a Deployment's in its ReplicaSets, a DaemonSet's or StatefulSet's in
// ControllerRevisions (rollout_revisions.go). Other kinds have none.
func (o *rolloutHistoryOptions) history(ctx context.Context, c *client.Client, info resourceInfo) (string, error) {
	switch {
	case info.resource.Group == "apps" && info.resource.Kind == "Deployment":
		return o.deploymentHistory(ctx, c, info)
	case keepsControllerRevisions(info):
		w, err := getRevisionedWorkload(ctx, c, info)
		if err != nil {
			return "", err
		}
		return controllerRevisionHistory(w, o.revision)
	}
	return "", fmt.Errorf("no history viewer has been implemented for %q", groupKind(info))
}

// deploymentHistory reads the ReplicaSets of the Deployment info names
// and shows its history (kubectl's DeploymentHistoryViewer).
func (o *rolloutHistoryOptions) deploymentHistory(ctx context.Context, c *client.Client, info resourceInfo) (string, error) {
	d, err := decodeInto[api.Deployment](info.object)
	if err != nil {
		return "", err
	}
	rss, err := ownedReplicaSets(ctx, c, d)
	if err != nil {
		return "", err
	}
	return deploymentHistory(rss, o.revision)
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
	causes := make(map[int64]string, len(templates))
	for v, template := range templates {
		causes[v] = template.Annotations[changeCauseAnnotation]
	}
	return revisionTable(causes), nil
}

// revisionTable is the history overview kubectl prints for every kind: a
// REVISION / CHANGE-CAUSE table, oldest revision first, "<none>" where a
// revision has no change-cause.
func revisionTable(causes map[int64]string) string {
	revisions := make([]int64, 0, len(causes))
	for v := range causes {
		revisions = append(revisions, v)
	}
	sort.Slice(revisions, func(i, j int) bool { return revisions[i] < revisions[j] })
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintf(w, "REVISION\tCHANGE-CAUSE\n")
	for _, v := range revisions {
		cause := causes[v]
		if cause == "" {
			cause = "<none>"
		}
		fmt.Fprintf(w, "%d\t%s\n", v, cause)
	}
	flushTabwriter(w)
	return b.String()
}

// flushTabwriter ends a tabwriter whose destination cannot fail (a strings.Builder).
func flushTabwriter(w *tabwriter.Writer) { _ = w.Flush() }
