package ctl

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
)

// restartedAtAnnotation is the pod template annotation `rollout restart`
// sets to the current time: a template change like any other, so the
// controller replaces every pod the way it rolls out a new image.
const restartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"

// newRolloutRestartCommand is `ctl rollout restart`.
func newRolloutRestartCommand(f *factory) *cobra.Command {
	o := &rolloutPatchOptions{f: f}
	cmd := &cobra.Command{
		Use:   "restart RESOURCE",
		Short: "Restart a resource",
		Long: `restart replaces every pod of a Deployment, DaemonSet or StatefulSet without
changing what runs: it sets the pod template annotation
kubectl.kubernetes.io/restartedAt to the current time, which makes a new
template (and for a Deployment a new ReplicaSet and revision) that the
controller rolls out with the object's usual strategy.`,
		Example: `  ctl rollout restart deploy/ng-dep
  ctl rollout restart deployment --selector=app=nginx`,
		ValidArgsFunction: completeResourceTypeAndName(f, rolloutTypes, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args, restartPatcher(time.Now), "restarted")
		},
	}
	o.addFlags(cmd, "identifying the resource to get from a server")
	return cmd
}

// restartPatcher is kubectl's defaultObjectRestarter, with the clock
// passed in so that tests can fix it.
func restartPatcher(now func() time.Time) rolloutPatcher {
	return func(info resourceInfo) ([]byte, error) {
		var template api.PodTemplateSpec
		switch info.resource.Group + "/" + info.resource.Kind {
		case "apps/Deployment":
			d, err := decodeInto[api.Deployment](info.object)
			if err != nil {
				return nil, err
			}
			if d.Spec.Paused {
				return nil, errors.New("can't restart paused deployment (run rollout resume first)")
			}
			template = d.Spec.Template
		case "apps/DaemonSet":
			ds, err := decodeInto[api.DaemonSet](info.object)
			if err != nil {
				return nil, err
			}
			template = ds.Spec.Template
		case "apps/StatefulSet":
			sts, err := decodeInto[api.StatefulSet](info.object)
			if err != nil {
				return nil, err
			}
			template = sts.Spec.Template
		default:
			return nil, errors.New("restarting is not supported")
		}
		stamp := now().Format(time.RFC3339)
		if template.Annotations[restartedAtAnnotation] == stamp {
			// kubectl's patch would be empty: the annotation already has
			// this second's value.
			return nil, wholeError{fmt.Errorf("failed to create patch for %v: if restart has already been triggered within the past second, please wait before attempting to trigger another", info.name)}
		}
		return json.Marshal(map[string]any{"spec": map[string]any{"template": map[string]any{
			"metadata": map[string]any{"annotations": map[string]string{restartedAtAnnotation: stamp}},
		}}})
	}
}
