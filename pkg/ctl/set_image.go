package ctl

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// setImageOptions are the flags of `ctl set image`.
type setImageOptions struct {
	f   *factory
	sel selection

	output     string
	dryRunFlag string
}

// newSetImageCommand is `ctl set image`.
func newSetImageCommand(f *factory) *cobra.Command {
	o := &setImageOptions{f: f}
	cmd := &cobra.Command{
		Use:   "image (-f FILENAME | TYPE NAME) CONTAINER_NAME_1=CONTAINER_IMAGE_1 ... CONTAINER_NAME_N=CONTAINER_IMAGE_N",
		Short: "Change the image of containers",
		Long: `image sets the image of the named containers (or of every container, with
*=IMAGE) in pods or in a workload's pod template. Init containers are
matched by name too. The change is sent as a strategic merge patch; on a
Deployment it starts a rollout, which ` + "`ctl rollout status`" + ` follows and
` + "`ctl rollout undo`" + ` reverts. An image already set changes nothing and
prints nothing.`,
		Example: `  ctl set image deployment/web nginx=nginx:1.27
  ctl set image deployment/web '*=busybox:1.36'
  ctl set image deploy -l app=web nginx=nginx:1.27 --dry-run=client -o yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.Root().Name(), args)
		},
	}
	flags := cmd.Flags()
	flags.StringVarP(&o.output, "output", "o", "", "print the object instead of a message: name, yaml, json or jsonpath=TEMPLATE")
	addDryRunFlag(flags, &o.dryRunFlag)
	o.sel.addFlags(flags, selectionFlags{usage: "identifying the resource to get from a server", selector: true, all: true})
	return cmd
}

// run is `ctl set image`.
func (o *setImageOptions) run(ctx context.Context, rootName string, args []string) error {
	resources, pairs, err := splitResourcesAndPairs(args, "image")
	if err != nil {
		return err
	}
	images := map[string]string{}
	var order []string
	for _, p := range pairs {
		name, image, ok := strings.Cut(p, "=")
		if !ok || name == "" {
			return fmt.Errorf("invalid image format: %s", p)
		}
		if _, seen := images[name]; !seen {
			order = append(order, name)
		}
		images[name] = image
	}
	out, err := parseOutput(o.output, "name", "yaml", "json")
	if err != nil {
		return err
	}
	dryRun, err := parseDryRun(o.dryRunFlag)
	if err != nil {
		return err
	}
	// kubectl reads the objects first, then checks the flags.
	infos, err := visitForSet(ctx, o.f, &o.sel, resources, rootName)
	if err != nil {
		return err
	}
	// kubectl's Validate gathers every mistake into one bracketed error.
	var invalid []error
	if o.sel.all && o.sel.labelSelector != "" {
		invalid = append(invalid, fmt.Errorf("cannot set --all and --selector at the same time"))
	}
	if len(images) == 0 {
		invalid = append(invalid, fmt.Errorf("at least one image update is required"))
	} else if _, wildcard := images["*"]; wildcard && len(images) > 1 {
		invalid = append(invalid, fmt.Errorf("all containers are already specified by *, but saw more than one container_name=container_image pairs"))
	}
	if len(invalid) > 0 {
		return bracketedErrors(invalid)
	}
	change := setChange{f: o.f, out: out, dryRun: dryRun, message: "image updated", failure: "failed to patch image update to pod template: "}
	var errs []error
	for _, info := range infos {
		changed := deepCopyObject(info.object)
		spec, ok := podSpecOf(changed)
		if !ok {
			errs = append(errs, noPodTemplateError(info))
			continue
		}
		containers := containersOf(spec, true)
		for _, name := range order {
			found := false
			for _, c := range containers {
				if c["name"] == name || name == "*" {
					c["image"] = images[name]
					found = true
				}
			}
			if !found {
				errs = append(errs, fmt.Errorf("unable to find container named %q", name))
			}
		}
		if err := change.send(ctx, info, changed); err != nil {
			errs = append(errs, err)
		}
	}
	return joinErrors(errs)
}
