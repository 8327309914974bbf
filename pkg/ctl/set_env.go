package ctl

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"kplane/pkg/client"
)

// setEnvOptions are the flags of `ctl set env`.
type setEnvOptions struct {
	f   *factory
	sel selection

	containers string
	env        []string
	from       string
	prefix     string
	keys       []string
	list       bool
	resolve    bool
	overwrite  bool
	output     string
	dryRunFlag string
}

// newSetEnvCommand is `ctl set env`.
func newSetEnvCommand(f *factory) *cobra.Command {
	o := &setEnvOptions{f: f}
	cmd := &cobra.Command{
		Use:   "env RESOURCE/NAME KEY_1=VAL_1 ... KEY_N=VAL_N",
		Short: "Set, remove or list the environment variables of containers",
		Long: `env changes the environment of the containers of pods or of a workload's pod
template: KEY=VALUE sets a variable, KEY- removes it. --from=configmap/NAME
or --from=secret/NAME adds one variable per key of that object, which the
kubelet reads when it starts the container (valueFrom), so later changes to
the ConfigMap reach only new pods. Keys that are not valid variable names
are upper-cased with '_' for the other characters (my.key → MY_KEY).

--list prints the variables instead (--resolve also reads the values that
come from ConfigMaps and Secrets). -c chooses the containers by name or
shell pattern.`,
		Example: `  ctl set env deployment/web MODE=lesson LEVEL=2
  ctl set env deployment/web LEVEL-
  ctl set env deployment/web --from=configmap/settings --prefix=APP_
  ctl set env deployment/web --list`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.Root().Name(), args)
		},
	}
	flags := cmd.Flags()
	flags.StringVarP(&o.containers, "containers", "c", "*", "the containers to change, by name or shell pattern")
	flags.StringArrayVarP(&o.env, "env", "e", nil, "a variable to set, KEY=VALUE (like a KEY=VALUE argument); repeat for more")
	flags.StringVar(&o.from, "from", "", "configmap/NAME or secret/NAME: add a variable per key of that object")
	flags.StringVar(&o.prefix, "prefix", "", "a prefix for the names of the variables --from adds")
	flags.StringSliceVar(&o.keys, "keys", nil, "with --from, only these keys")
	flags.BoolVar(&o.list, "list", false, "print the variables of each container instead of changing them")
	flags.BoolVar(&o.resolve, "resolve", false, "with --list, print the values that come from ConfigMaps and Secrets too")
	flags.BoolVar(&o.overwrite, "overwrite", true, "change variables that already have a value; false refuses to")
	flags.StringVarP(&o.output, "output", "o", "", "print the objects instead of a message: name, yaml, json or jsonpath=TEMPLATE")
	addDryRunFlag(flags, &o.dryRunFlag)
	o.sel.addFlags(flags, selectionFlags{usage: "the resource to update the env", selector: true, all: true})
	return cmd
}

// envNamePattern is what a variable name must match (the apiserver's
// check, made here first so the mistake is reported before anything is
// sent).
var envNamePattern = regexp.MustCompile(`^[-._a-zA-Z][-._a-zA-Z0-9]*$`)

// invalidEnvChars are what a --from key loses on its way to a name.
var invalidEnvChars = regexp.MustCompile(`[^A-Za-z0-9_]`)

// envChange is the variables to set (in order) and to remove.
type envChange struct {
	set    []map[string]any
	remove []string
}

// run is `ctl set env`.
func (o *setEnvOptions) run(ctx context.Context, rootName string, args []string) error {
	resources, pairs, err := splitResourcesAndPairs(args, "env")
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
	var change envChange
	for _, p := range append(pairs, o.env...) {
		if name, ok := strings.CutSuffix(p, "-"); ok && !strings.Contains(p, "=") {
			change.remove = append(change.remove, name)
			continue
		}
		name, value, _ := strings.Cut(p, "=")
		if !envNamePattern.MatchString(name) {
			return fmt.Errorf("%q is not a valid key name: a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')", name)
		}
		change.set = append(change.set, map[string]any{"name": name, "value": value})
	}
	if o.from != "" {
		fromVars, err := o.fromObject(ctx, rootName)
		if err != nil {
			return err
		}
		change.set = append(change.set, fromVars...)
	}
	infos, err := visitForSet(ctx, o.f, &o.sel, resources, rootName)
	if err != nil {
		return err
	}
	if o.list {
		return o.printLists(ctx, infos)
	}
	send := setChange{f: o.f, out: out, dryRun: dryRun, message: "env updated", failure: "failed to patch env update to pod template: "}
	var errs []error
	for _, info := range infos {
		changed := deepCopyObject(info.object)
		spec, ok := podSpecOf(changed)
		if !ok {
			errs = append(errs, noPodTemplateError(info))
			continue
		}
		containers := o.selectedContainers(spec, info)
		if err := o.applyTo(containers, change, info); err != nil {
			return err
		}
		if err := send.send(ctx, info, changed); err != nil {
			errs = append(errs, err)
		}
	}
	return joinErrors(errs)
}

// selectedContainers are the containers (init containers too) whose names
// match -c; none is a warning, as in kubectl.
func (o *setEnvOptions) selectedContainers(spec map[string]any, info resourceInfo) []map[string]any {
	var out []map[string]any
	for _, c := range containersOf(spec, true) {
		name, _ := c["name"].(string)
		if ok, _ := filepath.Match(o.containers, name); ok {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		fmt.Fprintf(o.f.errOut(), "Warning: %s/%s does not have any containers matching %q\n", info.resource.Kind, info.name, o.containers)
	}
	return out
}

// applyTo changes the env lists of containers: a variable already there
// is replaced in place (refused without --overwrite), a new one appended,
// a removed one dropped.
func (o *setEnvOptions) applyTo(containers []map[string]any, change envChange, info resourceInfo) error {
	for _, c := range containers {
		env, _ := c["env"].([]any)
		for _, v := range change.set {
			i := slices.IndexFunc(env, func(e any) bool { return envName(e) == v["name"] })
			switch {
			case i < 0:
				env = append(env, v)
			case !o.overwrite:
				old, _ := env[i].(map[string]any)
				return fmt.Errorf("%s/%s '%s' already has a value (%v), and --overwrite is false", info.resource.Name, info.name, v["name"], old["value"])
			default:
				env[i] = v
			}
		}
		env = slices.DeleteFunc(env, func(e any) bool { return slices.Contains(change.remove, envName(e)) })
		if len(env) == 0 {
			delete(c, "env")
		} else {
			c["env"] = env
		}
	}
	return nil
}

// envName is an env entry's name.
func envName(e any) string {
	m, _ := e.(map[string]any)
	name, _ := m["name"].(string)
	return name
}

// fromObject reads --from and makes one valueFrom variable per key, in
// key order, warning about keys renamed on the way.
func (o *setEnvOptions) fromObject(ctx context.Context, rootName string) ([]map[string]any, error) {
	sel := selection{}
	found, err := sel.visit(ctx, o.f, []string{o.from}, rootName+" get")
	if err != nil {
		return nil, err
	}
	if len(found.errs) > 0 {
		return nil, found.errs[0]
	}
	source := found.infos[0]
	var refField string
	var keys []string
	switch source.resource.Kind {
	case "ConfigMap":
		refField = "configMapKeyRef"
		data, _ := source.object["data"].(map[string]any)
		keys = sortedKeys(data)
	case "Secret":
		refField = "secretKeyRef"
		data, _ := source.object["data"].(map[string]any)
		keys = sortedKeys(data)
	default:
		return nil, fmt.Errorf("unsupported resource specified in --from")
	}
	var vars []map[string]any
	for _, key := range keys {
		if len(o.keys) > 0 && !slices.Contains(o.keys, key) {
			continue
		}
		name := strings.ToUpper(invalidEnvChars.ReplaceAllString(key, "_"))
		if name != key {
			fmt.Fprintf(o.f.errOut(), "Warning: key %s transferred to %s\n", key, name)
		}
		vars = append(vars, map[string]any{
			"name":      o.prefix + name,
			"valueFrom": map[string]any{refField: map[string]any{"key": key, "name": source.name}},
		})
	}
	return vars, nil
}

// printLists is --list: a heading per container, then its variables; one
// that comes from elsewhere is a comment naming its source, unless
// --resolve reads its value.
func (o *setEnvOptions) printLists(ctx context.Context, infos []resourceInfo) error {
	for _, info := range infos {
		spec, ok := podSpecOf(deepCopyObject(info.object))
		if !ok {
			return noPodTemplateError(info)
		}
		for _, c := range o.selectedContainers(spec, info) {
			fmt.Fprintf(o.f.out(), "# %s %s, container %s\n", info.resource.Kind, info.name, c["name"])
			env, _ := c["env"].([]any)
			for _, e := range env {
				if err := o.printVariable(ctx, o.f.out(), info.namespace, e); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// printVariable prints one env entry of --list.
func (o *setEnvOptions) printVariable(ctx context.Context, w io.Writer, namespace string, e any) error {
	m, _ := e.(map[string]any)
	name := envName(e)
	from, ok := m["valueFrom"].(map[string]any)
	if !ok {
		fmt.Fprintf(w, "%s=%v\n", name, m["value"])
		return nil
	}
	for _, ref := range []struct{ field, kind string }{{"configMapKeyRef", "configmap"}, {"secretKeyRef", "secret"}} {
		r, ok := from[ref.field].(map[string]any)
		if !ok {
			continue
		}
		if o.resolve {
			value, err := o.resolveRef(ctx, namespace, ref.kind, r)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s=%s\n", name, value)
			return nil
		}
		fmt.Fprintf(w, "# %s from %s %s, key %s\n", name, ref.kind, r["name"], r["key"])
		return nil
	}
	if r, ok := from["fieldRef"].(map[string]any); ok {
		fmt.Fprintf(w, "# %s from field path %s\n", name, r["fieldPath"])
	} else if r, ok := from["resourceFieldRef"].(map[string]any); ok {
		fmt.Fprintf(w, "# %s from resource %s\n", name, r["resource"])
	}
	return nil
}

// resolveRef reads the value a configMapKeyRef or secretKeyRef points at.
func (o *setEnvOptions) resolveRef(ctx context.Context, namespace, kind string, ref map[string]any) (string, error) {
	c, err := o.f.Client()
	if err != nil {
		return "", err
	}
	name, _ := ref["name"].(string)
	key, _ := ref["key"].(string)
	if kind == "configmap" {
		cm, err := c.ConfigMaps(namespace).Get(ctx, name, client.GetOptions{})
		if err != nil {
			return "", err
		}
		return cm.Data[key], nil
	}
	secret, err := c.Secrets(namespace).Get(ctx, name, client.GetOptions{})
	if err != nil {
		return "", err
	}
	return string(secret.Data[key]), nil
}
