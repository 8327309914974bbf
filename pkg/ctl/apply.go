package ctl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/api/patch"
	"kplane/pkg/api/schema"
	"kplane/pkg/client"
)

// lastAppliedAnnotation is where kubectl apply (and ctl apply) keeps the
// configuration it applied, to know next time what the user removed.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// maxApplyConflictRetries is how often apply recomputes its patch when
// the object changed between the GET and the PATCH (kubectl: 5).
const maxApplyConflictRetries = 5

// applyOptions are the flags of `ctl apply`.
type applyOptions struct {
	f         *factory
	write     writeFlags
	filenames []string
	recursive bool

	// selector (-l) applies only the objects of the files it matches and,
	// with prune, is the set pruned; all prunes without a selector.
	selector       string
	all            bool
	prune          bool
	pruneAllowlist []string
}

// newApplyCommand is `ctl apply -f`: client-side apply, as kubectl does it.
func newApplyCommand(f *factory) *cobra.Command {
	o := &applyOptions{f: f}
	cmd := &cobra.Command{
		Use:   "apply -f FILENAME",
		Short: "Apply a configuration to a resource by file name or stdin",
		Long: `apply makes the objects of the files exist as written: it creates an object
that does not exist, and otherwise sends a strategic merge patch computed
from three versions — the configuration applied last time (kept in the
kubectl.kubernetes.io/last-applied-configuration annotation), the file now,
and the live object — that changes what the file changed, deletes what was
removed from the file since the last apply, and leaves alone what others
(the server's defaults, controllers, an autoscaler) set.

Each object is reported as kubectl reports it: created, configured or
unchanged. One difference: when the patch is not empty but the server finds
that it changes nothing (its defaults inside an atomic list, such as a
StatefulSet's volumeClaimTemplates, make kubectl resend that list on every
apply), ctl says "unchanged" where kubectl says "configured".`,
		Example: `  ctl apply -f examples/
  ctl apply -f examples/nginx-dep.yaml --dry-run=server
  cat pod.yaml | ctl apply -f -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd.Context()) },
	}
	cmd.Flags().StringSliceVarP(&o.filenames, "filename", "f", nil, "files, directories or - (stdin) with the objects to apply")
	cmd.Flags().BoolVarP(&o.recursive, "recursive", "R", false, "process the directories given with -f recursively")
	cmd.Flags().StringVarP(&o.selector, "selector", "l", "", "apply only the objects of the files with these labels; with --prune, prune only such objects")
	cmd.Flags().BoolVar(&o.prune, "prune", false, "delete the objects of the selection (-l or --all) that an earlier apply created but the files no longer contain")
	cmd.Flags().BoolVar(&o.all, "all", false, "with --prune, prune every object of the allowlisted kinds applied before, whatever its labels")
	cmd.Flags().StringArrayVar(&o.pruneAllowlist, "prune-allowlist", nil, "a kind --prune looks at, group/version/kind (core/v1/ConfigMap); repeat for more (default: kubectl's list of common kinds)")
	o.write.add(cmd.Flags(), "kubectl-client-side-apply")
	return cmd
}

func (o *applyOptions) run(ctx context.Context) error {
	if len(o.filenames) == 0 {
		return errNoFilenames
	}
	dryRun, out, validation, err := o.write.parsed()
	if err != nil {
		return err
	}
	m, err := o.f.Mapper(ctx)
	if err != nil {
		return err
	}
	if o.all && o.selector != "" {
		return fmt.Errorf("cannot set --all and --selector at the same time")
	}
	var prune *pruner
	if o.prune {
		if !o.all && o.selector == "" {
			return fmt.Errorf("all resources selected for prune without explicitly passing --all. To prune all resources, pass the --all flag. If you did not mean to prune all resources, specify a label selector")
		}
		if prune, err = newPruner(m, o.pruneAllowlist, o.selector, dryRun, o.f); err != nil {
			return err
		}
	}
	objects, errs := readFileObjects(o.f, m, o.filenames, o.recursive, o.write.validates())
	if objects, err = selectByLabels(objects, o.selector); err != nil {
		return err
	}
	if len(objects) == 0 && len(errs) == 0 {
		return fmt.Errorf("no objects passed to apply")
	}
	opts := client.PatchOptions{FieldValidation: validation, FieldManager: o.write.fieldManager}
	for _, obj := range objects {
		if err := o.applyOne(ctx, obj, dryRun, out, opts); err != nil {
			errs = append(errs, err)
			continue
		}
		if prune != nil {
			prune.visit(obj)
		}
	}
	// kubectl prunes only after an apply without errors.
	if prune != nil && len(errs) == 0 {
		if err := prune.prune(ctx); err != nil {
			return err
		}
	}
	return joinErrors(errs)
}

// applyOne creates or patches one object and prints what happened.
func (o *applyOptions) applyOne(ctx context.Context, obj fileObject, dryRun dryRunStrategy, out outputFormat, opts client.PatchOptions) error {
	if obj.name == "" {
		return fmt.Errorf("error when retrieving current configuration of %s from server for: %q: resource name may not be empty", obj.resource.GroupResource(), obj.source)
	}
	modified, err := setLastApplied(obj.object)
	if err != nil {
		return err
	}
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	dyn := c.Dynamic(obj.resource.Client()).Namespace(obj.namespace)
	typ := schemaFor(obj.resource.Group, obj.resource.Kind)

	for attempt := 0; ; attempt++ {
		live, err := dyn.Get(ctx, obj.name, client.GetOptions{})
		if apierrors.IsNotFound(err) {
			created, err := createObject(ctx, o.f, obj, dryRun, opts)
			if err != nil {
				return sourceError("creating", obj.source, err)
			}
			return printResult(o.f.out(), out, created, "created", dryRun)
		}
		if err != nil {
			return sourceError("retrieving current configuration of", obj.source, err)
		}

		if dryRun == "client" {
			// As kubectl: a client dry run of an existing object computes
			// no patch and always says "configured".
			return printResult(o.f.out(), out, obj.object, "configured", dryRun)
		}
		if metadataAnnotation(live, lastAppliedAnnotation) == "" && attempt == 0 {
			fmt.Fprintf(o.f.errOut(), "Warning: resource %s/%s is missing the %s annotation which is required by ctl apply. ctl apply should only be used on resources created declaratively by either ctl create --save-config or ctl apply. The missing annotation will be patched automatically.\n",
				obj.resource.GroupResource(), obj.name, lastAppliedAnnotation)
		}
		body, err := applyPatch(live, modified, typ)
		if err != nil {
			return fmt.Errorf("error when computing the patch for %q: %w", obj.source, err)
		}
		if string(body) == "{}" {
			return printResult(o.f.out(), out, live, "unchanged", dryRun)
		}
		patchOpts := opts
		patchOpts.DryRun = dryRun == "server"
		patched, err := dyn.Patch(ctx, obj.name, client.StrategicMergePatchType, body, patchOpts)
		if apierrors.IsConflict(err) && attempt < maxApplyConflictRetries {
			continue
		}
		if err != nil {
			return sourceError("patching", obj.source, err)
		}
		// A patch that changes nothing once the server has applied and
		// defaulted it leaves the object as it was: say so, rather than
		// "configured". The status and resourceVersion are left out of the
		// comparison, since a controller may have written the status in
		// between (a StatefulSet's pods becoming ready).
		operation := "configured"
		if reflect.DeepEqual(withoutServerFields(patched), withoutServerFields(live)) {
			operation = "unchanged"
		}
		return printResult(o.f.out(), out, patched, operation, dryRun)
	}
}

// selectByLabels keeps the objects whose labels match selector ("" keeps
// all), as kubectl's builder filters file objects with -l.
func selectByLabels(objects []fileObject, selector string) ([]fileObject, error) {
	if selector == "" {
		return objects, nil
	}
	s, err := labels.Parse(selector)
	if err != nil {
		return nil, err
	}
	var out []fileObject
	for _, obj := range objects {
		if s.Matches(stringMap(obj.object, "labels")) {
			out = append(out, obj)
		}
	}
	return out, nil
}

// applyPatch is the strategic merge patch apply sends to turn live into
// modified: three-way, from the configuration last applied (live's
// annotation), modified (the file now) and live itself. "{}" means
// nothing to change. `diff` computes the same patch to show what apply
// would do.
func applyPatch(live map[string]any, modified []byte, typ *schema.Type) ([]byte, error) {
	original := metadataAnnotation(live, lastAppliedAnnotation)
	current, err := json.Marshal(live)
	if err != nil {
		return nil, fmt.Errorf("encode the live object: %w", err)
	}
	return patch.CreateThreeWayMergePatch([]byte(original), modified, current, typ)
}

// setLastApplied records the object in its own last-applied annotation, as
// kubectl does before sending it: the annotation holds the object without
// that annotation (annotations: {} if it had no others), encoded as
// compact JSON with sorted keys and a final newline. It returns the
// object, annotation included, as JSON: apply's "modified" configuration.
func setLastApplied(obj map[string]any) ([]byte, error) {
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
	}
	delete(annotations, lastAppliedAnnotation)
	meta["annotations"] = annotations

	var applied bytes.Buffer
	if err := json.NewEncoder(&applied).Encode(obj); err != nil {
		return nil, fmt.Errorf("encode the applied configuration: %w", err)
	}
	annotations[lastAppliedAnnotation] = applied.String()
	modified, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode the applied configuration: %w", err)
	}
	return modified, nil
}

// metadataAnnotation reads one annotation of an object.
func metadataAnnotation(obj map[string]any, key string) string {
	meta, _ := obj["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	s, _ := annotations[key].(string)
	return s
}

// apiTypes are the Go types of the kinds kplane serves, keyed by
// "<group>/<Kind>": their patchStrategy and patchMergeKey tags say which
// lists apply merges by key (see pkg/api/schema).
var apiTypes = map[string]reflect.Type{
	"/Namespace":                            reflect.TypeFor[api.Namespace](),
	"/Node":                                 reflect.TypeFor[api.Node](),
	"/Pod":                                  reflect.TypeFor[api.Pod](),
	"/Service":                              reflect.TypeFor[api.Service](),
	"/Endpoints":                            reflect.TypeFor[api.Endpoints](),
	"/ConfigMap":                            reflect.TypeFor[api.ConfigMap](),
	"/Secret":                               reflect.TypeFor[api.Secret](),
	"/ServiceAccount":                       reflect.TypeFor[api.ServiceAccount](),
	"/PersistentVolume":                     reflect.TypeFor[api.PersistentVolume](),
	"/PersistentVolumeClaim":                reflect.TypeFor[api.PersistentVolumeClaim](),
	"/ResourceQuota":                        reflect.TypeFor[api.ResourceQuota](),
	"/LimitRange":                           reflect.TypeFor[api.LimitRange](),
	"/Event":                                reflect.TypeFor[api.Event](),
	"/ReplicationController":                reflect.TypeFor[api.ReplicationController](),
	"apps/Deployment":                       reflect.TypeFor[api.Deployment](),
	"apps/ReplicaSet":                       reflect.TypeFor[api.ReplicaSet](),
	"apps/StatefulSet":                      reflect.TypeFor[api.StatefulSet](),
	"apps/DaemonSet":                        reflect.TypeFor[api.DaemonSet](),
	"apps/ControllerRevision":               reflect.TypeFor[api.ControllerRevision](),
	"batch/Job":                             reflect.TypeFor[api.Job](),
	"batch/CronJob":                         reflect.TypeFor[api.CronJob](),
	"autoscaling/HorizontalPodAutoscaler":   reflect.TypeFor[api.HorizontalPodAutoscaler](),
	"coordination.k8s.io/Lease":             reflect.TypeFor[api.Lease](),
	"discovery.k8s.io/EndpointSlice":        reflect.TypeFor[api.EndpointSlice](),
	"rbac.authorization.k8s.io/Role":        reflect.TypeFor[api.Role](),
	"rbac.authorization.k8s.io/ClusterRole": reflect.TypeFor[api.ClusterRole](),
	"rbac.authorization.k8s.io/RoleBinding": reflect.TypeFor[api.RoleBinding](),
	"rbac.authorization.k8s.io/ClusterRoleBinding": reflect.TypeFor[api.ClusterRoleBinding](),
}

// schemaFor describes a kind for the patch computation; nil for a kind
// without a Go type here (its lists are then replaced, never merged).
func schemaFor(group, kind string) *schema.Type {
	t, ok := apiTypes[group+"/"+kind]
	if !ok {
		return nil
	}
	return schema.Of(t)
}

// withoutServerFields returns a shallow copy of obj without what the server
// and controllers change on their own: status and metadata.resourceVersion.
func withoutServerFields(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != "status" {
			out[k] = v
		}
	}
	if meta, ok := obj["metadata"].(map[string]any); ok {
		m := make(map[string]any, len(meta))
		for k, v := range meta {
			if k != "resourceVersion" {
				m[k] = v
			}
		}
		out["metadata"] = m
	}
	return out
}
