package ctl

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/pflag"

	"kplane/pkg/client"
	"kplane/pkg/restmapper"
)

// selection is how the verbs that change existing objects (scale, label,
// annotate, patch, edit, rollout) say which objects they act on: TYPE NAME…,
// TYPE/NAME…, TYPE with -l or --all, or -f files. It reproduces what those
// verbs ask of kubectl's resource builder: every object is read from the
// server first (the builder's Latest()), so a missing one is a NotFound
// error and the verb works on the live object.
type selection struct {
	filenames     []string
	recursive     bool
	labelSelector string
	fieldSelector string
	all           bool
	allNamespaces bool
	// listWithoutNames makes a bare TYPE mean every object of the type, as
	// kubectl's builder does for the rollout verbs
	// (ResourceTypeOrNameArgs(true, …)); other verbs refuse it.
	listWithoutNames bool
}

// selectionFlags says which of kubectl's selection flags a verb has.
type selectionFlags struct {
	// usage completes the -f help: "files … identifying the resource to <usage>".
	usage         string
	selector      bool
	fieldSelector bool
	all           bool
	allNamespaces bool
}

// addFlags registers the flags a verb has.
func (s *selection) addFlags(flags *pflag.FlagSet, which selectionFlags) {
	flags.StringSliceVarP(&s.filenames, "filename", "f", nil, "files, directories or - (stdin) "+which.usage)
	flags.BoolVarP(&s.recursive, "recursive", "R", false, "process the directories given with -f recursively")
	if which.selector {
		flags.StringVarP(&s.labelSelector, "selector", "l", "", "act on the objects matching this label selector, e.g. -l app=web,tier!=db")
	}
	if which.fieldSelector {
		flags.StringVar(&s.fieldSelector, "field-selector", "", "act on the objects matching this field selector, e.g. --field-selector metadata.name=web")
	}
	if which.all {
		flags.BoolVar(&s.all, "all", false, "act on every object of the types given, in the namespace")
	}
	if which.allNamespaces {
		flags.BoolVarP(&s.allNamespaces, "all-namespaces", "A", false, "with -l or --all, look in every namespace")
	}
}

// selecting reports whether objects are chosen by selector or --all rather
// than by name.
func (s *selection) selecting() bool {
	return s.all || s.labelSelector != "" || s.fieldSelector != ""
}

// empty reports that neither arguments nor files name anything.
func (s *selection) empty(args []string) bool { return len(args) == 0 && len(s.filenames) == 0 }

// resourceInfo is one object a verb acts on, as the server returned it.
type resourceInfo struct {
	resource  restmapper.APIResource
	namespace string // "" for cluster-scoped resources
	name      string
	object    map[string]any
	// source is the file the object was named in, for error messages.
	source string
}

// objectName is how kubectl's messages name the object: "deployment.apps/web".
func (i resourceInfo) objectName() string { return i.resource.KindName() + "/" + i.name }

// dynamic is a client for the object's resource and namespace.
func (i resourceInfo) dynamic(c *client.Client) *client.DynamicClient {
	return c.Dynamic(i.resource.Client()).Namespace(i.namespace)
}

// selected is what visit found.
type selected struct {
	infos []resourceInfo
	// errs are per-object failures (a missing name, an unreadable file),
	// which kubectl reports after acting on the objects it did find.
	errs []error
	// single is kubectl's "single item implied": one object named by
	// argument or file, rather than a list or a selector.
	single bool
}

// visit reads the objects args and s name. err is a mistake in the command
// line, which stops the verb before it does anything.
func (s *selection) visit(ctx context.Context, f *factory, args []string, commandPath string) (selected, error) {
	var out selected
	if len(args) > 0 && len(s.filenames) > 0 {
		return out, fmt.Errorf("when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well")
	}
	c, err := f.Client()
	if err != nil {
		return out, err
	}
	m, err := f.Mapper(ctx)
	if err != nil {
		return out, err
	}
	namespace, _, err := f.Namespace()
	if err != nil {
		return out, err
	}
	get := func(r restmapper.APIResource, ns, name, source string) {
		if !r.Namespaced {
			ns = ""
		}
		obj, err := c.Dynamic(r.Client()).Namespace(ns).Get(ctx, name, client.GetOptions{})
		if err != nil {
			out.errs = append(out.errs, err)
			return
		}
		out.infos = append(out.infos, resourceInfo{resource: r, namespace: ns, name: name, object: obj, source: source})
	}

	if len(s.filenames) > 0 {
		objects, readErrs := readFileObjects(f, m, s.filenames, s.recursive, false)
		out.errs = append(out.errs, readErrs...)
		for _, obj := range objects {
			get(obj.resource, obj.namespace, obj.name, obj.source)
		}
		out.single = len(objects) == 1 && len(readErrs) == 0
		return out, nil
	}

	targets, err := resolveArgs(m, args, commandPath)
	if err != nil {
		return out, err
	}
	out.single = len(targets) == 1 && len(targets[0].names) == 1
	for _, t := range targets {
		switch {
		case len(t.names) > 0 && s.selecting():
			return out, fmt.Errorf("name cannot be provided when a selector is specified")
		case len(t.names) > 0:
			for _, name := range t.names {
				get(t.resource, namespace, name, "")
			}
		case !s.selecting() && !s.listWithoutNames:
			return out, fmt.Errorf("resource(s) were provided, but no name was specified")
		default:
			ns := namespace
			if s.allNamespaces || !t.resource.Namespaced {
				ns = ""
			}
			list, err := c.Dynamic(t.resource.Client()).Namespace(ns).List(ctx, client.ListOptions{LabelSelector: s.labelSelector, FieldSelector: s.fieldSelector})
			if err != nil {
				out.errs = append(out.errs, err)
				continue
			}
			for _, item := range list.Items {
				item = withTypeMeta(item, t.resource.GroupVersion(), t.resource.Kind)
				out.infos = append(out.infos, resourceInfo{resource: t.resource, namespace: namespaceOf(item), name: nameOf(item), object: item})
			}
		}
	}
	return out, nil
}

// decodeInto converts a JSON map into a Go API type by way of its JSON, as
// kubectl converts unstructured objects into typed ones.
func decodeInto[T any](obj map[string]any) (*T, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode object: %w", err)
	}
	out := new(T)
	if err := json.Unmarshal(data, out); err != nil {
		kind, _ := obj["kind"].(string)
		return nil, fmt.Errorf("decode %s: %w", kind, err)
	}
	return out, nil
}
