package ctl

import (
	"bytes"
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

// labelOptions are the flags of `ctl label`.
type labelOptions struct {
	f   *factory
	sel selection

	overwrite       bool
	list            bool
	resourceVersion string
	output          string
	dryRunFlag      string
	fieldManager    string
}

// newLabelCommand is `ctl label`: add, change or remove labels.
func newLabelCommand(f *factory) *cobra.Command {
	o := &labelOptions{f: f}
	cmd := &cobra.Command{
		Use:   "label [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version]",
		Short: "Update the labels on a resource",
		Long: `label sets (KEY=VALUE) and removes (KEY-) labels. Labels are what
selectors match: a Service's endpoints, a ReplicaSet's pods, a Deployment's
ReplicaSets are all found by label, so relabelling a pod can take it out of
its ReplicaSet (which then makes a new one).

* A key and value must begin and end with a letter or number and may contain
  letters, numbers, '-', '.' and '_', up to 63 characters each; a key may
  start with a DNS subdomain prefix and '/', like example.com/my-app.
* Changing an existing label needs --overwrite; removing one does not.
* With --resource-version the change applies only if the object is still at
  that version (a compare-and-swap), otherwise to whatever version is current.

The change is sent as a JSON merge patch holding only the labels touched.`,
		Example: `  ctl label pods web-0 tier=frontend
  ctl label --overwrite pods web-0 tier=backend
  ctl label pods --all status=unhealthy
  ctl label deploy/ng-dep tier-
  ctl label pods web-0 --list`,
		ValidArgsFunction: completeResourceTypeAndName(f, nil, true),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args)
		},
	}
	flags := cmd.Flags()
	flags.BoolVar(&o.overwrite, "overwrite", false, "allow changing a label that already has a value")
	flags.BoolVar(&o.list, "list", false, "print the labels of each object")
	flags.StringVar(&o.resourceVersion, "resource-version", "", "change the object only if this is still its resourceVersion (one object only)")
	flags.StringVarP(&o.output, "output", "o", "", "print the object instead of a message: name, yaml, json or jsonpath=TEMPLATE")
	flags.StringVar(&o.fieldManager, "field-manager", "kubectl-label", "name of the manager recorded for the fields this command writes")
	addDryRunFlag(flags, &o.dryRunFlag)
	o.sel.addFlags(flags, selectionFlags{usage: "identifying the resource to update the labels", selector: true, fieldSelector: true, all: true, allNamespaces: true})
	return cmd
}

// run is `ctl label`.
func (o *labelOptions) run(ctx context.Context, commandPath string, args []string) error {
	resources, pairs, err := splitResourcesAndPairs(args, "label")
	if err != nil {
		return err
	}
	set, remove, err := parseLabelChanges(pairs)
	if err != nil {
		return err
	}
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
	if err := o.validate(resources, set, remove); err != nil {
		return err
	}
	found, err := o.sel.visit(ctx, o.f, resources, commandPath)
	if err != nil {
		return err
	}
	if !found.single && o.resourceVersion != "" && len(found.infos) > 0 {
		return fmt.Errorf("--resource-version may only be used with a single resource")
	}
	// As kubectl's builder with ContinueOnError: every object is tried,
	// and the failures are reported together at the end.
	errs := found.errs
	for _, info := range found.infos {
		if err := o.labelOne(ctx, info, set, remove, found.single, out, dryRun); err != nil {
			errs = append(errs, err)
		}
	}
	return joinErrors(errs)
}

// validate checks the flags against each other, with kubectl's messages.
func (o *labelOptions) validate(resources []string, set map[string]string, remove []string) error {
	if o.sel.all && o.sel.labelSelector != "" {
		return fmt.Errorf("cannot set --all and --selector at the same time")
	}
	if o.sel.all && o.sel.fieldSelector != "" {
		return fmt.Errorf("cannot set --all and --field-selector at the same time")
	}
	if o.sel.empty(resources) {
		return fmt.Errorf("one or more resources must be specified as <resource> <name> or <resource>/<name>")
	}
	if len(set) == 0 && len(remove) == 0 && !o.list {
		return fmt.Errorf("at least one label update is required")
	}
	return nil
}

// labelOne changes one object's labels and says what happened.
func (o *labelOptions) labelOne(ctx context.Context, info resourceInfo, set map[string]string, remove []string, single bool, out outputFormat, dryRun dryRunStrategy) error {
	obj := info.object
	if o.resourceVersion != "" {
		// Without it in "before", the merge patch is sure to carry the
		// resourceVersion, which makes the server compare it.
		setResourceVersion(obj, "")
	}
	before, err := marshalObject(obj)
	if err != nil {
		return err
	}
	labels := stringMap(obj, "labels")
	local := dryRun == "client" || o.list
	if !local {
		for _, key := range remove {
			if _, ok := labels[key]; !ok {
				fmt.Fprintf(o.f.out(), "label %q not found.\n", key)
			}
		}
	}
	if err := applyLabelChanges(labels, set, remove, o.overwrite); err != nil {
		return err
	}
	setStringMap(obj, "labels", labels)
	if o.resourceVersion != "" {
		setResourceVersion(obj, o.resourceVersion)
	}
	after, err := marshalObject(obj)
	if err != nil {
		return err
	}
	message := labelChangeMessage(before, after, o.overwrite)

	result := obj
	if !local {
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
			heading = listHeading("labels", info)
		}
		printKeyValues(o.f.out(), heading, stringMap(result, "labels"))
		return nil
	}
	return printResult(o.f.out(), out, result, message, dryRun)
}

// applyLabelChanges sets and removes labels in place. Without overwrite,
// setting a key that already has a value is refused, naming every such key
// as kubectl does.
func applyLabelChanges(labels, set map[string]string, remove []string, overwrite bool) error {
	if !overwrite {
		var errs []error
		for _, key := range sortedStringKeys(set) {
			if value, ok := labels[key]; ok {
				errs = append(errs, fmt.Errorf("'%s' already has a value (%s), and --overwrite is false", key, value))
			}
		}
		if len(errs) > 0 {
			return joinErrors(errs)
		}
	}
	for k, v := range set {
		labels[k] = v
	}
	for _, k := range remove {
		delete(labels, k)
	}
	return nil
}

// labelChangeMessage is kubectl's verdict on a label command: "not
// labeled" when nothing changed, "unlabeled" when the object shrank (a
// removal without --overwrite), else "labeled".
func labelChangeMessage(before, after []byte, overwrite bool) string {
	switch {
	case bytes.Equal(before, after):
		return "not labeled"
	case !overwrite && len(after) < len(before):
		return "unlabeled"
	}
	return "labeled"
}
