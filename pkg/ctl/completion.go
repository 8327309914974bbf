package ctl

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/client"
)

// Shell completion. cobra provides `ctl completion bash|zsh|fish|powershell`
// and the hidden `ctl __complete` that the generated scripts call; a verb
// takes part by setting ValidArgsFunction. The functions here produce what
// kubectl's completion.ResourceTypeAndNameCompletionFunc and friends do:
// first the resource types the server serves (`ctl get po<TAB>`), then,
// after a type, the names of its objects in the namespace of -n
// (`ctl get pods <TAB>`), and after "TYPE/", "TYPE/NAME" pairs.
//
// To hook a verb: set ValidArgsFunction to
//
//	completeResourceTypeAndName(f, nil, true)        // TYPE [NAME...] (get, describe, delete, label)
//	completeResourceTypeAndName(f, nil, false)       // TYPE [NAME]    (edit)
//	completeResourceTypeAndName(f, []string{"deployment"}, false)  // a fixed list of types
//	completeResourceNames(f, "pods")                 // NAME of one type (logs, cordon)
//	completeResourceTypes(f)                         // TYPE only (explain)

// completionTimeout bounds the server calls of one completion, as kubectl
// bounds its with --request-timeout=5s: a TAB must never hang the shell.
const completionTimeout = 5 * time.Second

// completeResourceTypeAndName completes TYPE NAME… and TYPE/NAME…
// arguments. types, when set, is the list of types the verb accepts (scale:
// deployment, replicaset, …); otherwise every type the server lists.
// allowRepeat allows more than one name (get pods a b); names already on
// the command line are not offered again.
func completeResourceTypeAndName(f *factory, types []string, allowRepeat bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		directive := cobra.ShellCompDirectiveNoFileComp
		var comps []string
		switch {
		case len(args) > 0 && !strings.Contains(args[0], "/"):
			// "TYPE NAME…": every argument after the type is a name.
			if allowRepeat || len(args) == 1 {
				comps = completionsWithout(completeNamesOf(cmd, f, args[0], toComplete), args[1:])
			}
		case !strings.Contains(toComplete, "/"):
			if len(args) == 0 {
				comps = completionTypes(cmd, f, types, toComplete)
			} else if allowRepeat {
				// The first argument was TYPE/NAME, so every other one
				// must be too: offer "TYPE/" and let the user go on.
				for _, t := range completionTypes(cmd, f, types, toComplete) {
					comps = append(comps, t+"/")
				}
				directive |= cobra.ShellCompDirectiveNoSpace
			}
		case allowRepeat || len(args) == 0:
			resourceType, prefix, _ := strings.Cut(toComplete, "/")
			for _, name := range completeNamesOf(cmd, f, resourceType, prefix) {
				comps = append(comps, resourceType+"/"+name)
			}
			comps = completionsWithout(comps, args)
		}
		return comps, directive
	}
}

// completeResourceNames completes the names of one resource type, once:
// `ctl logs <TAB>` offers pods, `ctl cordon <TAB>` nodes.
func completeResourceNames(f *factory, resourceType string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return completeNamesOf(cmd, f, resourceType, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeResourceTypes completes one resource type: `ctl explain <TAB>`.
func completeResourceTypes(f *factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return completionTypes(cmd, f, nil, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completionContext is the command's context bounded by completionTimeout.
func completionContext(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithTimeout(ctx, completionTimeout)
}

// completionTypes lists the types to offer: the verb's own list, or every
// resource the server can get, named as `api-resources -o name` names them
// ("pods", "deployments.apps").
func completionTypes(cmd *cobra.Command, f *factory, types []string, prefix string) []string {
	candidates := types
	if candidates == nil {
		ctx, cancel := completionContext(cmd)
		defer cancel()
		m, err := f.Mapper(ctx)
		if err != nil {
			return nil
		}
		for _, r := range m.Resources() {
			if r.HasVerb("get") {
				candidates = append(candidates, r.GroupResource())
			}
		}
	}
	var out []string
	for _, c := range candidates {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// completeNamesOf lists the names of the objects of resourceType in the
// command's namespace that start with prefix. Any failure (no cluster, an
// unknown type) offers nothing, as a completion must never print errors.
func completeNamesOf(cmd *cobra.Command, f *factory, resourceType, prefix string) []string {
	ctx, cancel := completionContext(cmd)
	defer cancel()
	m, err := f.Mapper(ctx)
	if err != nil {
		return nil
	}
	r, err := m.ResourceFor(resourceType)
	if err != nil {
		return nil
	}
	c, err := f.Client()
	if err != nil {
		return nil
	}
	namespace, _, err := f.Namespace()
	if err != nil || !r.Namespaced {
		namespace = ""
	}
	list, err := c.Dynamic(r.Client()).Namespace(namespace).List(ctx, client.ListOptions{})
	if err != nil {
		return nil
	}
	var names []string
	for _, item := range list.Items {
		if name := nameOf(item); strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// completionsWithout is a without the elements of b.
func completionsWithout(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}
