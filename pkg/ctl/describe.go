package ctl

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/ctl/describe"
	"kplane/pkg/restmapper"
)

// describeOptions are the flags of `ctl describe`.
type describeOptions struct {
	f *factory

	filenames     []string
	recursive     bool
	selector      string
	allNamespaces bool
	showEvents    bool
	chunkSize     int64
}

// newDescribeCommand is `ctl describe`: show objects in detail, with
// their Events, as kubectl describe does.
func newDescribeCommand(f *factory) *cobra.Command {
	o := &describeOptions{f: f, showEvents: true, chunkSize: 500}
	cmd := &cobra.Command{
		Use:               "describe (-f FILENAME | TYPE [NAME_PREFIX | -l label] | TYPE/NAME)",
		ValidArgsFunction: completeResourceTypeAndName(f, nil, true),
		Short:             "Show details of a specific resource or group of resources",
		Long: `describe prints one or more objects in detail: the fields a user asks about
for each kind (a pod's containers and their states, a deployment's rollout
and ReplicaSets, a node's conditions and the pods it runs), the related
objects that explain it, and the Events recorded about it, oldest first.

A NAME that matches no object is taken as a prefix: "ctl describe po ng-dep"
describes every pod whose name starts with ng-dep, as kubectl does.`,
		Example: `  ctl describe pods
  ctl describe po ng-dep-6b558d4747-x2x4j
  ctl describe deploy/ng-dep
  ctl describe rs -l app=nginx
  ctl describe -f examples/nginx-rs.yaml
  ctl describe nodes --show-events=false`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args)
		},
	}
	flags := cmd.Flags()
	flags.StringSliceVarP(&o.filenames, "filename", "f", nil, "files, directories or - (stdin) naming the objects to describe")
	flags.BoolVarP(&o.recursive, "recursive", "R", false, "process the directories given with -f recursively")
	flags.StringVarP(&o.selector, "selector", "l", "", "label selector to filter on, e.g. -l app=web,tier!=db")
	flags.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "describe the matching objects of every namespace")
	flags.BoolVar(&o.showEvents, "show-events", o.showEvents, "print the Events about each object (default true)")
	flags.Int64Var(&o.chunkSize, "chunk-size", o.chunkSize, "list this many objects per request (0: all at once)")
	return cmd
}

// describeItem is one object to describe, as read by name or listed.
type describeItem struct {
	resource restmapper.APIResource
	name     string
	object   map[string]any
}

// run is `ctl describe`.
func (o *describeOptions) run(ctx context.Context, commandPath string, args []string) error {
	if len(args) == 0 && len(o.filenames) == 0 {
		return fmt.Errorf("You must specify the type of resource to describe. Use \"ctl api-resources\" for a complete list of supported resources.\n")
	}
	if len(args) > 0 && len(o.filenames) > 0 {
		return fmt.Errorf("when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well")
	}
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	m, err := o.f.Mapper(ctx)
	if err != nil {
		return err
	}
	namespace, _, err := o.f.Namespace()
	if err != nil {
		return err
	}

	items, errs, err := o.collect(ctx, c, m, namespace, commandPath, args)
	if err != nil {
		return err
	}
	// `describe TYPE NAME` where NAME is no object's name describes the
	// objects whose names start with it (kubectl's
	// DescribeMatchingResources).
	if len(items) == 0 && len(args) == 2 && len(errs) == 1 && apierrors.IsNotFound(errs[0]) && !strings.Contains(args[0], "/") {
		return o.describePrefix(ctx, c, m, namespace, args[0], args[1], errs[0])
	}

	settings := describe.Settings{ShowEvents: o.showEvents, Now: time.Now().Add(clusterOffset(ctx, c))}
	first := true
	seen := map[string]bool{}
	for _, item := range items {
		text, err := o.describeOne(ctx, c, item, settings)
		if err != nil {
			// kubectl reports each distinct failure once.
			if !seen[err.Error()] {
				seen[err.Error()] = true
				errs = append(errs, err)
			}
			continue
		}
		if first {
			fmt.Fprint(o.f.out(), text)
			first = false
		} else {
			fmt.Fprintf(o.f.out(), "\n\n%s", text)
		}
	}
	if len(items) == 0 && len(errs) == 0 {
		if o.allNamespaces {
			fmt.Fprintln(o.f.errOut(), "No resources found")
		} else {
			fmt.Fprintf(o.f.errOut(), "No resources found in %s namespace.\n", namespace)
		}
	}
	return joinErrors(errs)
}

// collect resolves the arguments or files to the objects to describe.
// Objects that do not exist are errors in the second list; a mistake in
// the command line is the third result.
func (o *describeOptions) collect(ctx context.Context, c *client.Client, m *restmapper.Mapper, namespace, commandPath string, args []string) ([]describeItem, []error, error) {
	var items []describeItem
	var errs []error
	if len(o.filenames) > 0 {
		objects, readErrs := readFileObjects(o.f, m, o.filenames, o.recursive, false)
		errs = append(errs, readErrs...)
		for _, obj := range objects {
			item, err := get(ctx, c, obj.resource, obj.namespace, obj.name)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			items = append(items, item)
		}
		return items, errs, nil
	}
	targets, err := resolveArgs(m, args, commandPath)
	if err != nil {
		return nil, nil, err
	}
	listNamespace := namespace
	if o.allNamespaces {
		listNamespace = ""
	}
	for _, t := range targets {
		if len(t.names) > 0 && o.selector != "" {
			return nil, nil, fmt.Errorf("name cannot be provided when a selector is specified")
		}
		if len(t.names) > 0 && o.allNamespaces {
			return nil, nil, fmt.Errorf("a resource cannot be retrieved by name across all namespaces")
		}
		if len(t.names) > 0 {
			for _, name := range t.names {
				item, err := get(ctx, c, t.resource, namespace, name)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				items = append(items, item)
			}
			continue
		}
		listed, err := o.list(ctx, c, t.resource, listNamespace)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		items = append(items, listed...)
	}
	return items, errs, nil
}

// get reads one object by name.
func get(ctx context.Context, c *client.Client, r restmapper.APIResource, namespace, name string) (describeItem, error) {
	obj, err := c.Dynamic(r.Client()).Namespace(namespace).Get(ctx, name, client.GetOptions{})
	if err != nil {
		return describeItem{}, err
	}
	obj = withTypeMeta(obj, r.GroupVersion(), r.Kind)
	return describeItem{resource: r, name: name, object: obj}, nil
}

// list lists a resource (narrowed by -l), a page of --chunk-size at a
// time.
func (o *describeOptions) list(ctx context.Context, c *client.Client, r restmapper.APIResource, namespace string) ([]describeItem, error) {
	dyn := c.Dynamic(r.Client()).Namespace(namespace)
	opts := client.ListOptions{LabelSelector: o.selector, Limit: o.chunkSize}
	var items []describeItem
	for {
		list, err := dyn.List(ctx, opts)
		if err != nil {
			return items, err
		}
		for _, obj := range list.Items {
			obj = withTypeMeta(obj, r.GroupVersion(), r.Kind)
			items = append(items, describeItem{resource: r, name: nameOf(obj), object: obj})
		}
		if list.Continue == "" {
			return items, nil
		}
		opts.Continue = list.Continue
	}
}

// describePrefix describes every object of typ in the namespace whose
// name starts with prefix, each followed by a blank line; when there is
// none, the original NotFound error stands.
func (o *describeOptions) describePrefix(ctx context.Context, c *client.Client, m *restmapper.Mapper, namespace, typ, prefix string, notFound error) error {
	r, err := m.ResourceFor(typ)
	if err != nil {
		return err
	}
	items, err := o.list(ctx, c, r, namespace)
	if err != nil {
		return err
	}
	settings := describe.Settings{ShowEvents: o.showEvents, Now: time.Now().Add(clusterOffset(ctx, c))}
	found := false
	for _, item := range items {
		if !strings.HasPrefix(item.name, prefix) {
			continue
		}
		found = true
		text, err := o.describeOne(ctx, c, item, settings)
		if err != nil {
			return err
		}
		fmt.Fprintf(o.f.out(), "%s\n", text)
	}
	if !found {
		return notFound
	}
	return nil
}

// describeOne fetches what one object's description needs and renders it.
func (o *describeOptions) describeOne(ctx context.Context, c *client.Client, item describeItem, settings describe.Settings) (string, error) {
	obj := item.object
	in := describe.Input{Object: obj}
	fetcher := relatedFetcher{c: c, chunkSize: o.chunkSize}
	if o.showEvents && describesEvents(item.resource) {
		// As in kubectl, events that cannot be listed leave the section
		// empty rather than failing the description.
		in.Events, _ = fetcher.events(ctx, item.resource, obj)
	}
	related, err := fetcher.related(ctx, item.resource, obj)
	if err != nil {
		return "", err
	}
	in.Related = related
	text, err := describe.Describe(in, settings)
	if err != nil {
		return "", fmt.Errorf("describe %s %q: %w", item.resource.KindName(), item.name, err)
	}
	return text, nil
}

// describesEvents reports whether kubectl's describer of a kind prints
// Events; for the others it does not even look them up.
func describesEvents(r restmapper.APIResource) bool {
	switch r.Group + "/" + r.Kind {
	case "/Secret", "/Namespace", "/ResourceQuota", "/LimitRange",
		"rbac.authorization.k8s.io/Role", "rbac.authorization.k8s.io/ClusterRole",
		"rbac.authorization.k8s.io/RoleBinding", "rbac.authorization.k8s.io/ClusterRoleBinding":
		return false
	}
	return true
}
