package ctl

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"kplane/pkg/client"
)

// newSetCommand is `ctl set`: change one aspect of a workload's pod
// template (images, environment, resources) without editing the whole
// object.
func newSetCommand(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "set SUBCOMMAND",
		Short: "Change the pod template of workloads",
		Long: `set changes one part of the containers of pods or of the pod template of a
workload (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob,
ReplicationController). A changed template starts a rollout, exactly as an
edit of the same field would.`,
		Args: cobra.NoArgs,
		RunE: helpWithoutSubcommand,
	}
	cmd.AddCommand(newSetImageCommand(f))
	cmd.AddCommand(newSetEnvCommand(f))
	cmd.AddCommand(newSetResourcesCommand(f))
	return cmd
}

// visitForSet reads the objects a set verb changes. As kubectl's set verbs
// (which ask the builder for all infos at once), any object that cannot be
// read stops the command before anything changes.
func visitForSet(ctx context.Context, f *factory, sel *selection, resources []string, rootName string) ([]resourceInfo, error) {
	if sel.empty(resources) && !sel.selecting() {
		return nil, errNoResources
	}
	if (sel.labelSelector != "" || sel.fieldSelector != "") && hasTypeNameArg(resources) {
		return nil, fmt.Errorf("selectors and the all flag cannot be used when passing resource/name arguments")
	}
	if len(resources) == 0 && len(sel.filenames) == 0 && sel.selecting() {
		return nil, fmt.Errorf("at least one resource must be specified to use a selector")
	}
	if sel.all && len(resources) > 0 && hasTypeNameArg(resources) {
		// kubectl's builder ignores --all beside TYPE/NAME.
		sel.all = false
	}
	// kubectl's set verbs leave the builder's command name at its
	// default, so its hints say "kubectl get".
	found, err := sel.visit(ctx, f, resources, rootName+" get")
	if err != nil {
		return nil, err
	}
	if len(found.errs) > 0 {
		return nil, found.errs[0]
	}
	return found.infos, nil
}

// hasTypeNameArg reports whether an argument is in TYPE/NAME form.
func hasTypeNameArg(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, "/") })
}

// helpWithoutSubcommand is the RunE of a command that only groups
// subcommands (set, create service, create secret): as kubectl's
// DefaultSubCommandRun, it prints the help to standard error and fails.
func helpWithoutSubcommand(cmd *cobra.Command, _ []string) error {
	cmd.SetOut(cmd.ErrOrStderr())
	if err := cmd.Help(); err != nil {
		return err
	}
	return ExitError{Code: 1}
}

// podSpecOf finds the pod spec inside obj, where kubectl's
// polymorphichelpers.updatePodSpecForObject looks: a Pod's spec, a
// workload's spec.template.spec, a CronJob's
// spec.jobTemplate.spec.template.spec. It returns false for kinds without
// one.
func podSpecOf(obj map[string]any) (map[string]any, bool) {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	var path []string
	switch {
	case kind == "Pod" && apiVersion == "v1":
		path = []string{"spec"}
	case kind == "ReplicationController" && apiVersion == "v1",
		kind == "Deployment" && apiVersion == "apps/v1",
		kind == "ReplicaSet" && apiVersion == "apps/v1",
		kind == "StatefulSet" && apiVersion == "apps/v1",
		kind == "DaemonSet" && apiVersion == "apps/v1",
		kind == "Job" && apiVersion == "batch/v1":
		path = []string{"spec", "template", "spec"}
	case kind == "CronJob" && apiVersion == "batch/v1":
		path = []string{"spec", "jobTemplate", "spec", "template", "spec"}
	default:
		return nil, false
	}
	m := obj
	for _, key := range path {
		next, ok := m[key].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[key] = next
		}
		m = next
	}
	return m, true
}

// noPodTemplateError is kubectl's complaint about an object without pod
// spec, naming its Go type as kubectl does ("*v1.ConfigMap").
func noPodTemplateError(info resourceInfo) error {
	version := info.resource.Version
	return fmt.Errorf("%s/%s the object is not a pod or does not have a pod template: *%s.%s", info.resource.Name, info.name, version, info.resource.Kind)
}

// containersOf returns the containers (with initContainers: true, also
// the init containers) of a pod spec, as maps that can be changed in place.
func containersOf(spec map[string]any, initContainers bool) []map[string]any {
	var out []map[string]any
	fields := []string{"containers"}
	if initContainers {
		fields = []string{"initContainers", "containers"}
	}
	for _, field := range fields {
		list, _ := spec[field].([]any)
		for _, c := range list {
			if m, ok := c.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// setChange is what the set verbs share once each has changed its copy of
// an object: the patch from the object read to the changed one is sent
// (nothing is sent when nothing changed, and nothing is printed either, as
// kubectl does), and the result printed with message ("image updated").
type setChange struct {
	f       *factory
	out     outputFormat
	dryRun  dryRunStrategy
	message string
	// failure prefixes a refused patch, separator included: "failed to
	// patch image update to pod template: " (kubectl's resources verb
	// has no colon).
	failure string
}

// send patches info's object into changed and prints the result.
func (s setChange) send(ctx context.Context, info resourceInfo, changed map[string]any) error {
	body, patchType, err := editPatch(info, changed)
	if err != nil || body == nil {
		return err
	}
	if s.dryRun == "client" {
		return printResult(s.f.out(), s.out, changed, s.message, s.dryRun)
	}
	c, err := s.f.Client()
	if err != nil {
		return err
	}
	result, err := info.dynamic(c).Patch(ctx, info.name, patchType, body, client.PatchOptions{DryRun: s.dryRun == "server"})
	if err != nil {
		// kubectl words it with %v: the Status' message, without the
		// reason, after the prefix.
		return fmt.Errorf("%s%s", s.failure, err.Error())
	}
	return printResult(s.f.out(), s.out, result, s.message, s.dryRun)
}

// deepCopyObject copies a JSON object, so a verb can change the copy and
// compare it with the original.
func deepCopyObject(obj map[string]any) map[string]any {
	return deepCopyValue(obj).(map[string]any)
}

func deepCopyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopyValue(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopyValue(e)
		}
		return out
	}
	return v
}
