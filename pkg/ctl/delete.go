package ctl

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/restmapper"
)

// deleteOptions are the flags of `ctl delete`.
type deleteOptions struct {
	f *factory

	filenames      []string
	recursive      bool
	labelSelector  string
	fieldSelector  string
	all            bool
	allNamespaces  bool
	cascade        string
	gracePeriod    int64
	now            bool
	force          bool
	wait           bool
	timeout        time.Duration
	ignoreNotFound bool
	dryRunFlag     string
	output         string
}

// deletePollInterval is how often --wait looks whether a deleted object
// is gone.
const deletePollInterval = 100 * time.Millisecond

// newDeleteCommand is `ctl delete`.
func newDeleteCommand(f *factory) *cobra.Command {
	o := &deleteOptions{f: f}
	cmd := &cobra.Command{
		Use:               "delete ([-f FILENAME] | TYPE [(NAME | -l label | --all)])",
		ValidArgsFunction: completeResourceTypeAndName(f, nil, true),
		Short:             "Delete resources by file names, stdin, resources and names, or by resources and label selector",
		Long: `delete asks the apiserver to delete objects named by argument, by file, by
label selector or all of a type. Deleting is not instant: an object with
finalizers, or with dependents deleted in the foreground, stays (with a
deletionTimestamp) until they are done, and a pod is given its grace period
to stop. By default delete waits until each object is gone, as kubectl does.

--cascade says what happens to the objects the deleted one owns (through
their ownerReferences): background (default) deletes the owner now and lets
the garbage collector delete the dependents after; foreground deletes the
dependents first; orphan leaves them, without the ownerReference.`,
		Example: `  ctl delete -f examples/
  ctl delete pod web-0
  ctl delete deploy/ng-dep --cascade=orphan
  ctl delete pods -l app=nginx
  ctl delete configmaps --all -n lessons`,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd.Context(), cmd.CommandPath(), args) },
	}
	flags := cmd.Flags()
	flags.StringSliceVarP(&o.filenames, "filename", "f", nil, "files, directories or - (stdin) with the objects to delete")
	flags.BoolVarP(&o.recursive, "recursive", "R", false, "process the directories given with -f recursively")
	flags.StringVarP(&o.labelSelector, "selector", "l", "", "delete the objects matching this label selector")
	flags.StringVar(&o.fieldSelector, "field-selector", "", "delete the objects matching this field selector")
	flags.BoolVar(&o.all, "all", false, "delete every object of the types given, in the namespace")
	flags.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "with -l or --all, look in every namespace")
	flags.StringVar(&o.cascade, "cascade", "background", `what happens to dependents: "background", "foreground" or "orphan"`)
	flags.Int64Var(&o.gracePeriod, "grace-period", -1, "seconds a pod gets to stop; -1 uses the object's own; 0 with --force deletes at once")
	flags.BoolVar(&o.now, "now", false, "give pods 1 second to stop (--grace-period=1)")
	flags.BoolVar(&o.force, "force", false, "with --grace-period=0, delete from the API at once without waiting for the node to confirm")
	flags.BoolVar(&o.wait, "wait", true, "wait until the objects are gone before returning")
	flags.DurationVar(&o.timeout, "timeout", 0, "how long --wait waits; 0 waits as long as it takes")
	flags.BoolVar(&o.ignoreNotFound, "ignore-not-found", false, "say nothing about objects that do not exist (the default with --all)")
	flags.StringVarP(&o.output, "output", "o", "", "name: print only kind/name of each deleted object")
	addDryRunFlag(flags, &o.dryRunFlag)
	return cmd
}

// victim is one object to delete.
type victim struct {
	resource  restmapper.APIResource
	namespace string
	name      string
	uid       string
}

func (o *deleteOptions) run(ctx context.Context, commandPath string, args []string) error {
	dryRun, err := parseDryRun(o.dryRunFlag)
	if err != nil {
		return err
	}
	if o.output != "" && o.output != "name" {
		return fmt.Errorf("unexpected -o output mode: %v. We only support '-o name'", o.output)
	}
	propagation, err := o.propagation()
	if err != nil {
		return err
	}
	if len(args) == 0 && len(o.filenames) == 0 {
		return fmt.Errorf("You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")
	}
	if len(args) > 0 && len(o.filenames) > 0 {
		return fmt.Errorf("when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well")
	}
	if o.all {
		// As in kubectl: --all deletes what is there, quietly.
		o.ignoreNotFound = true
	}
	if o.now {
		if o.gracePeriod >= 0 {
			return fmt.Errorf("--now and --grace-period cannot be specified together")
		}
		o.gracePeriod = 1
	}
	if o.force && o.gracePeriod < 0 {
		o.gracePeriod = 0
	}
	if o.gracePeriod == 0 && !o.force {
		// kubectl 1.32 turns a zero grace period without --force into 1.
		o.gracePeriod = 1
	}
	if o.force && o.gracePeriod == 0 {
		fmt.Fprintln(o.f.errOut(), "Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.")
	}

	c, err := o.f.Client()
	if err != nil {
		return err
	}
	m, err := o.f.Mapper(ctx)
	if err != nil {
		return err
	}
	victims, errs, err := o.victims(ctx, c, m, commandPath, args)
	if err != nil {
		return err
	}

	opts := client.DeleteOptions{PropagationPolicy: &propagation}
	if o.gracePeriod >= 0 {
		opts.GracePeriodSeconds = &o.gracePeriod
	}
	if dryRun == "server" {
		opts.DryRun = []string{api.DryRunAll}
	}
	operation := "deleted"
	if o.force && o.gracePeriod == 0 {
		operation = "force deleted"
	}
	var deleted []victim
	for _, v := range victims {
		if dryRun != "client" {
			err := c.Dynamic(v.resource.Client()).Namespace(v.namespace).Delete(ctx, v.name, opts)
			if apierrors.IsNotFound(err) && o.ignoreNotFound {
				continue
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
		}
		deleted = append(deleted, v)
		if o.output == "name" {
			fmt.Fprintf(o.f.out(), "%s/%s\n", v.resource.KindName(), v.name)
		} else {
			fmt.Fprintf(o.f.out(), "%s %q %s%s\n", v.resource.KindName(), v.name, operation, dryRun.suffix())
		}
	}
	if len(victims) == 0 && len(errs) == 0 && o.selecting() {
		fmt.Fprintln(o.f.out(), "No resources found")
	}
	if o.wait && dryRun == "" && !(o.force && o.gracePeriod == 0) {
		if err := o.waitUntilGone(ctx, c, deleted); err != nil {
			errs = append(errs, err)
		}
	}
	return joinErrors(errs)
}

// selecting reports whether objects are chosen by selector or --all
// rather than by name.
func (o *deleteOptions) selecting() bool {
	return o.all || o.labelSelector != "" || o.fieldSelector != ""
}

// propagation reads --cascade.
func (o *deleteOptions) propagation() (api.DeletionPropagation, error) {
	switch strings.ToLower(o.cascade) {
	case "background", "true":
		return api.DeletePropagationBackground, nil
	case "foreground":
		return api.DeletePropagationForeground, nil
	case "orphan", "false":
		return api.DeletePropagationOrphan, nil
	}
	return "", fmt.Errorf(`invalid cascade value (%v). Must be "background", "foreground", or "orphan"`, o.cascade)
}

// victims finds the objects to delete. Named objects and objects from
// files are read first (as kubectl's resource builder does), so a missing
// one is reported as NotFound; selected ones are listed. Errors about
// single objects come back in the list; a command-line mistake is err.
func (o *deleteOptions) victims(ctx context.Context, c *client.Client, m *restmapper.Mapper, commandPath string, args []string) ([]victim, []error, error) {
	namespace, _, err := o.f.Namespace()
	if err != nil {
		return nil, nil, err
	}
	var victims []victim
	var errs []error
	get := func(r restmapper.APIResource, ns, name string) {
		obj, err := c.Dynamic(r.Client()).Namespace(ns).Get(ctx, name, client.GetOptions{})
		if err != nil {
			if !(o.ignoreNotFound && apierrors.IsNotFound(err)) {
				errs = append(errs, err)
			}
			return
		}
		victims = append(victims, victim{resource: r, namespace: ns, name: name, uid: metadataString(obj, "uid")})
	}

	if len(o.filenames) > 0 {
		objects, readErrs := readFileObjects(o.f, m, o.filenames, o.recursive, false)
		errs = append(errs, readErrs...)
		for _, obj := range objects {
			get(obj.resource, obj.namespace, obj.name)
		}
		return victims, errs, nil
	}

	targets, err := resolveArgs(m, args, commandPath)
	if err != nil {
		return nil, nil, err
	}
	selecting := o.selecting()
	for _, t := range targets {
		switch {
		case len(t.names) > 0 && selecting:
			return nil, nil, fmt.Errorf("name cannot be provided when a selector is specified")
		case len(t.names) > 0:
			for _, name := range t.names {
				get(t.resource, namespace, name)
			}
		case !selecting:
			return nil, nil, fmt.Errorf("resource(s) were provided, but no name was specified")
		default:
			ns := namespace
			if o.allNamespaces {
				ns = ""
			}
			list, err := c.Dynamic(t.resource.Client()).Namespace(ns).List(ctx, client.ListOptions{LabelSelector: o.labelSelector, FieldSelector: o.fieldSelector})
			if err != nil {
				errs = append(errs, err)
				continue
			}
			for _, item := range list.Items {
				victims = append(victims, victim{resource: t.resource, namespace: namespaceOf(item), name: nameOf(item), uid: metadataString(item, "uid")})
			}
		}
	}
	return victims, errs, nil
}

// waitUntilGone polls each deleted object until it is gone (or replaced by
// a new object of the same name, which has another UID).
func (o *deleteOptions) waitUntilGone(ctx context.Context, c *client.Client, deleted []victim) error {
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	for _, v := range deleted {
		dyn := c.Dynamic(v.resource.Client()).Namespace(v.namespace)
		for {
			obj, err := dyn.Get(ctx, v.name, client.GetOptions{})
			if apierrors.IsNotFound(err) || (err == nil && metadataString(obj, "uid") != v.uid) {
				break
			}
			if ctx.Err() != nil {
				return fmt.Errorf("timed out waiting for the condition on %s/%s", v.resource.GroupResource(), v.name)
			}
			if err != nil {
				return err
			}
			select {
			case <-ctx.Done():
			case <-time.After(deletePollInterval):
			}
		}
	}
	return nil
}
