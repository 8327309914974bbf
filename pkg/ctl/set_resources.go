package ctl

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
)

// setResourcesOptions are the flags of `ctl set resources`.
type setResourcesOptions struct {
	f   *factory
	sel selection

	containers string
	limits     string
	requests   string
	output     string
	dryRunFlag string
}

// newSetResourcesCommand is `ctl set resources`.
func newSetResourcesCommand(f *factory) *cobra.Command {
	o := &setResourcesOptions{f: f}
	cmd := &cobra.Command{
		Use:   "resources (-f FILENAME | TYPE NAME) ([--limits=LIMITS & --requests=REQUESTS]",
		Short: "Set the resource requests and limits of containers",
		Long: `resources sets the requests (what the scheduler reserves on a node for the
container) and limits (what the container may use at most) of containers,
e.g. --requests=cpu=100m,memory=64Mi --limits=memory=128Mi. The values
named are set; the others are kept. -c chooses the containers by name or
shell pattern (default: all).`,
		Example: `  ctl set resources deployment/web --requests=cpu=100m,memory=64Mi --limits=memory=128Mi
  ctl set resources deployment/web -c nginx --limits=cpu=500m`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.Root().Name(), args)
		},
	}
	flags := cmd.Flags()
	flags.StringVarP(&o.containers, "containers", "c", "*", "the containers to change, by name or shell pattern")
	flags.StringVar(&o.limits, "limits", "", "limits, resource=quantity[,resource=quantity…]: cpu=200m,memory=512Mi")
	flags.StringVar(&o.requests, "requests", "", "requests, resource=quantity[,resource=quantity…]: cpu=100m,memory=256Mi")
	flags.StringVarP(&o.output, "output", "o", "", "print the objects instead of a message: name, yaml, json or jsonpath=TEMPLATE")
	addDryRunFlag(flags, &o.dryRunFlag)
	o.sel.addFlags(flags, selectionFlags{usage: "identifying the resource to get from a server", selector: true, all: true})
	return cmd
}

// parseResourceList reads resource=quantity[,…] as kubectl does, each
// quantity written in its canonical form.
func parseResourceList(spec string) (map[string]any, error) {
	out := map[string]any{}
	if spec == "" {
		return out, nil
	}
	for _, pair := range strings.Split(spec, ",") {
		name, value, ok := strings.Cut(pair, "=")
		if !ok || name == "" || value == "" {
			return nil, fmt.Errorf("Invalid argument syntax %s, expected <resource>=<value>", pair)
		}
		q, err := api.ParseQuantity(value)
		if err != nil {
			return nil, fmt.Errorf("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
		}
		out[name] = q.String()
	}
	return out, nil
}

// run is `ctl set resources`.
func (o *setResourcesOptions) run(ctx context.Context, rootName string, args []string) error {
	out, err := parseOutput(o.output, "name", "yaml", "json")
	if err != nil {
		return err
	}
	dryRun, err := parseDryRun(o.dryRunFlag)
	if err != nil {
		return err
	}
	infos, err := visitForSet(ctx, o.f, &o.sel, args, rootName)
	if err != nil {
		return err
	}
	if o.limits == "" && o.requests == "" {
		return fmt.Errorf("you must specify an update to requests or limits (in the form of --requests/--limits)")
	}
	limits, err := parseResourceList(o.limits)
	if err != nil {
		return err
	}
	requests, err := parseResourceList(o.requests)
	if err != nil {
		return err
	}
	send := setChange{f: o.f, out: out, dryRun: dryRun, message: "resource requirements updated", failure: "failed to patch resources update to pod template "}
	var errs []error
	for _, info := range infos {
		changed := deepCopyObject(info.object)
		spec, ok := podSpecOf(changed)
		if !ok {
			errs = append(errs, noPodTemplateError(info))
			continue
		}
		found := false
		for _, c := range containersOf(spec, true) {
			name, _ := c["name"].(string)
			if ok, _ := filepath.Match(o.containers, name); !ok {
				continue
			}
			found = true
			resources, _ := c["resources"].(map[string]any)
			if resources == nil {
				resources = map[string]any{}
				c["resources"] = resources
			}
			mergeResourceList(resources, "limits", limits)
			mergeResourceList(resources, "requests", requests)
		}
		if !found {
			errs = append(errs, fmt.Errorf("unable to find container named %s", o.containers))
			continue
		}
		if err := send.send(ctx, info, changed); err != nil {
			errs = append(errs, err)
		}
	}
	return joinErrors(errs)
}

// mergeResourceList sets the named quantities of resources.<field>.
func mergeResourceList(resources map[string]any, field string, values map[string]any) {
	if len(values) == 0 {
		return
	}
	list, _ := resources[field].(map[string]any)
	if list == nil {
		list = map[string]any{}
		resources[field] = list
	}
	for k, v := range values {
		list[k] = v
	}
}
