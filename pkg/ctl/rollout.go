package ctl

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
)

// rolloutTypes are the kinds the rollout verbs complete, as kubectl's.
var rolloutTypes = []string{"deployment", "daemonset", "statefulset"}

// newRolloutCommand is `ctl rollout`, the parent of status, history, undo,
// pause, resume and restart.
func newRolloutCommand(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rollout SUBCOMMAND",
		Short: "Manage the rollout of a resource",
		Long: `rollout watches and steers the rollout of a Deployment, DaemonSet or
StatefulSet (pause and resume: Deployments only).

A Deployment keeps one ReplicaSet per pod template it has had, numbered by
the deployment.kubernetes.io/revision annotation the deployment controller
writes (see docs/controllers): "history" lists them, "undo" copies an older
one's template back into the Deployment (which the controller then rolls out
as a new revision), "pause" stops the controller from rolling out template
changes until "resume", and "restart" changes the template (an annotation
with the time) so that every pod is replaced. A DaemonSet or StatefulSet
keeps its templates as ControllerRevisions instead, which "history" and
"undo" read the same way.`,
		Example: `  ctl rollout status deploy/ng-dep
  ctl rollout history deploy/ng-dep
  ctl rollout undo deploy/ng-dep --to-revision=1
  ctl rollout restart deploy/ng-dep`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newRolloutStatusCommand(f))
	cmd.AddCommand(newRolloutHistoryCommand(f))
	cmd.AddCommand(newRolloutUndoCommand(f))
	cmd.AddCommand(newRolloutPauseCommand(f))
	cmd.AddCommand(newRolloutResumeCommand(f))
	cmd.AddCommand(newRolloutRestartCommand(f))
	return cmd
}

// deploymentRevision reads an object's deployment.kubernetes.io/revision
// annotation; a missing one is revision 0, as kubectl's
// deploymentutil.Revision reads it.
func deploymentRevision(meta *api.ObjectMeta) (int64, error) {
	v, ok := meta.Annotations[api.DeploymentRevisionAnnotation]
	if !ok {
		return 0, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

// ownedReplicaSets lists the ReplicaSets a Deployment controls: those its
// selector matches whose controller ownerReference is the Deployment (by
// UID), as kubectl's deploymentutil.GetAllReplicaSets finds them. They come
// back sorted by name, for a stable order.
func ownedReplicaSets(ctx context.Context, c *client.Client, d *api.Deployment) ([]*api.ReplicaSet, error) {
	selector, err := labels.FromLabelSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("deployment %q has an invalid selector: %w", d.Name, err)
	}
	list, err := c.ReplicaSets(d.Namespace).List(ctx, client.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		return nil, fmt.Errorf("failed to retrieve replica sets from deployment %s: %w", d.Name, err)
	}
	var owned []*api.ReplicaSet
	for _, rs := range list.Items {
		if controlledBy(&rs.ObjectMeta, d.UID) {
			owned = append(owned, rs)
		}
	}
	sort.Slice(owned, func(i, j int) bool { return owned[i].Name < owned[j].Name })
	return owned, nil
}

// controlledBy reports whether meta's controller ownerReference has uid.
func controlledBy(meta *api.ObjectMeta, uid string) bool {
	for _, ref := range meta.OwnerReferences {
		if ref.Controller != nil && *ref.Controller && ref.UID == uid {
			return true
		}
	}
	return false
}

// templateWithoutHash is a pod template's JSON without the pod-template-hash
// label: the deployment controller adds that label to each ReplicaSet's
// copy of the template, so a ReplicaSet's template and its Deployment's
// are compared without it (kubectl's equalIgnoreHash). Encoding drops empty
// fields, so an empty map and a missing one compare equal, as
// apimachinery's semantic equality treats them.
func templateWithoutHash(template api.PodTemplateSpec) ([]byte, error) {
	copied := api.DeepCopyValue(template)
	delete(copied.Labels, api.DefaultDeploymentUniqueLabelKey)
	if len(copied.Labels) == 0 {
		copied.Labels = nil
	}
	return json.Marshal(copied)
}

// equalIgnoringHash compares two pod templates without pod-template-hash.
func equalIgnoringHash(a, b api.PodTemplateSpec) bool {
	ja, errA := templateWithoutHash(a)
	jb, errB := templateWithoutHash(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}
