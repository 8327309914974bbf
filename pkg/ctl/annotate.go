package ctl

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// changeCauseAnnotation is what `rollout history` shows as CHANGE-CAUSE;
// annotate may always overwrite it, as kubectl lets it.
const changeCauseAnnotation = "kubernetes.io/change-cause"

// annotateOptions are the flags of `ctl annotate`.
type annotateOptions struct {
	f   *factory
	sel selection

	overwrite       bool
	list            bool
	resourceVersion string
	output          string
	dryRunFlag      string
	fieldManager    string
}

// newAnnotateCommand is `ctl annotate`: add, change or remove annotations.
func newAnnotateCommand(f *factory) *cobra.Command {
	o := &annotateOptions{f: f}
	cmd := &cobra.Command{
		Use:   "annotate [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version]",
		Short: "Update the annotations on a resource",
		Long: `annotate sets (KEY=VALUE) and removes (KEY-) annotations: free-form
metadata that selectors ignore but tools read. kplane's simulated kubelet
reads some live (sim.kplane.io/readiness, …; see docs/kubelet.md), and
` + "`rollout history`" + ` shows kubernetes.io/change-cause.

Changing an existing annotation needs --overwrite (except
kubernetes.io/change-cause); removing one does not. With --resource-version
the change applies only if the object is still at that version.`,
		Example: `  ctl annotate pods web-0 description='my frontend'
  ctl annotate --overwrite pod web sim.kplane.io/readiness=fail
  ctl annotate deploy/ng-dep kubernetes.io/change-cause='image 1.25'
  ctl annotate pods --all description-`,
		ValidArgsFunction: completeResourceTypeAndName(f, nil, true),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args)
		},
	}
	flags := cmd.Flags()
	flags.BoolVar(&o.overwrite, "overwrite", false, "allow changing an annotation that already has a value")
	flags.BoolVar(&o.list, "list", false, "print the annotations of each object")
	flags.StringVar(&o.resourceVersion, "resource-version", "", "change the object only if this is still its resourceVersion (one object only)")
	flags.StringVarP(&o.output, "output", "o", "", "print the object instead of a message: name, yaml, json or jsonpath=TEMPLATE")
	flags.StringVar(&o.fieldManager, "field-manager", "kubectl-annotate", "name of the manager recorded for the fields this command writes")
	addDryRunFlag(flags, &o.dryRunFlag)
	o.sel.addFlags(flags, selectionFlags{usage: "identifying the resource to update the annotation", selector: true, fieldSelector: true, all: true, allNamespaces: true})
	return cmd
}

// run is `ctl annotate`.
func (o *annotateOptions) run(ctx context.Context, commandPath string, args []string) error {
	out, err := parseOutput(o.output, "name", "yaml", "json")
	if err != nil {
		return err
	}
	dryRun, err := parseDryRun(o.dryRunFlag)
	if err != nil {
		return err
	}
	if o.list && o.output != "" {
		return fmt.Errorf("--list and --output may not be specified together")
	}
	resources, pairs, err := splitResourcesAndPairs(args, "annotation")
	if err != nil {
		return err
	}
	set, remove, err := parseAnnotationChanges(pairs)
	if err != nil {
		return err
	}
	switch {
	case o.sel.all && o.sel.labelSelector != "":
		return fmt.Errorf("cannot set --all and --selector at the same time")
	case o.sel.all && o.sel.fieldSelector != "":
		return fmt.Errorf("cannot set --all and --field-selector at the same time")
	case o.sel.empty(resources):
		return fmt.Errorf("one or more resources must be specified as <resource> <name> or <resource>/<name>")
	case len(set) == 0 && len(remove) == 0 && !o.list:
		return fmt.Errorf("at least one annotation update is required")
	}
	found, err := o.sel.visit(ctx, o.f, resources, commandPath)
	if err != nil {
		return err
	}
	if !found.single && o.resourceVersion != "" && len(found.infos) > 0 {
		return fmt.Errorf("--resource-version may only be used with a single resource")
	}
	errs := found.errs
	for _, info := range found.infos {
		if err := o.annotateOne(ctx, info, set, remove, found.single, out, dryRun); err != nil {
			errs = append(errs, err)
		}
	}
	return joinErrors(errs)
}

// annotateOne changes one object's annotations and says so.
func (o *annotateOptions) annotateOne(ctx context.Context, info resourceInfo, set map[string]string, remove []string, single bool, out outputFormat, dryRun dryRunStrategy) error {
	obj := info.object
	if o.resourceVersion != "" {
		setResourceVersion(obj, "")
	}
	before, err := marshalObject(obj)
	if err != nil {
		return err
	}
	annotations := stringMap(obj, "annotations")
	if err := applyAnnotationChanges(annotations, set, remove, o.overwrite); err != nil {
		return err
	}
	setStringMap(obj, "annotations", annotations)
	if o.resourceVersion != "" {
		setResourceVersion(obj, o.resourceVersion)
	}

	result := obj
	if dryRun != "client" && !o.list {
		after, err := marshalObject(obj)
		if err != nil {
			return err
		}
		c, err := o.f.Client()
		if err != nil {
			return err
		}
		result, err = metadataChange{before: before, after: after}.send(ctx, c, info, dryRun, o.fieldManager)
		if err != nil {
			return err
		}
	}
	if o.list {
		heading := ""
		if !single {
			heading = listHeading("annotations", info)
		}
		printKeyValues(o.f.out(), heading, stringMap(result, "annotations"))
		return nil
	}
	// Unlike label, annotate always says "annotated", changed or not.
	return printResult(o.f.out(), out, result, "annotated", dryRun)
}

// applyAnnotationChanges sets and removes annotations in place. Without
// overwrite, setting a key that already has a value is refused (all such
// keys in one message), except the change-cause annotation.
func applyAnnotationChanges(annotations, set map[string]string, remove []string, overwrite bool) error {
	if !overwrite {
		var taken []string
		for _, key := range sortedStringKeys(set) {
			if key == changeCauseAnnotation {
				continue
			}
			if value, ok := annotations[key]; ok {
				taken = append(taken, fmt.Sprintf("'%s' already has a value (%s)", key, value))
			}
		}
		if len(taken) > 0 {
			return fmt.Errorf("--overwrite is false but found the following declared annotation(s): %s", strings.Join(taken, "; "))
		}
	}
	for k, v := range set {
		annotations[k] = v
	}
	for _, k := range remove {
		delete(annotations, k)
	}
	return nil
}
