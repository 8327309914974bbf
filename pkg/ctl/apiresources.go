package ctl

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	"kplane/pkg/ctl/printers"
	"kplane/pkg/restmapper"
)

// apiResourcesOptions are the flags of `ctl api-resources`.
type apiResourcesOptions struct {
	f          *factory
	output     string
	namespaced string // "", "true" or "false"
	apiGroup   string
	verbs      []string
	noHeaders  bool
	sortBy     string
}

// newAPIResourcesCommand is `ctl api-resources`: what discovery says the
// server serves.
func newAPIResourcesCommand(f *factory) *cobra.Command {
	o := &apiResourcesOptions{f: f}
	cmd := &cobra.Command{
		Use:   "api-resources",
		Short: "Print the supported API resources on the server",
		Long: `api-resources prints the resource types the apiserver's discovery documents
list: their plural names (what URLs and ` + "`ctl get`" + ` use), short names, API
version, whether they live in a namespace, and their kind. Sorted by API
group, then name, as kubectl sorts them.`,
		Example: `  ctl api-resources
  ctl api-resources --namespaced=false
  ctl api-resources --api-group=apps -o wide`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	flags := cmd.Flags()
	flags.StringVarP(&o.output, "output", "o", "", "output format: wide (adds VERBS and CATEGORIES) or name")
	flags.StringVar(&o.namespaced, "namespaced", "", "true: only namespaced resources; false: only cluster-scoped ones")
	flags.Lookup("namespaced").NoOptDefVal = "true"
	flags.StringVar(&o.apiGroup, "api-group", "", "only the resources of this API group (\"\" is the core group)")
	flags.StringSliceVar(&o.verbs, "verbs", nil, "only the resources that support all these verbs")
	flags.BoolVar(&o.noHeaders, "no-headers", false, "leave out the header row")
	flags.StringVar(&o.sortBy, "sort-by", "", "sort by name or kind instead of API group")
	return cmd
}

func (o *apiResourcesOptions) run(cmd *cobra.Command) error {
	if o.output != "" && o.output != "wide" && o.output != "name" {
		return fmt.Errorf("--output %v is not available", o.output)
	}
	if o.sortBy != "" && o.sortBy != "name" && o.sortBy != "kind" {
		return fmt.Errorf("--sort-by accepts only name or kind")
	}
	m, err := o.f.Mapper(cmd.Context())
	if err != nil {
		return err
	}
	var resources []restmapper.APIResource
	for _, r := range m.Resources() {
		if cmd.Flags().Changed("api-group") && r.Group != o.apiGroup {
			continue
		}
		if o.namespaced != "" {
			want, err := strconv.ParseBool(o.namespaced)
			if err != nil {
				return fmt.Errorf("--namespaced: %w", err)
			}
			if r.Namespaced != want {
				continue
			}
		}
		if !hasAllVerbs(r, o.verbs) {
			continue
		}
		resources = append(resources, r)
	}
	sort.SliceStable(resources, func(i, j int) bool {
		switch o.sortBy {
		case "name":
			return resources[i].Name < resources[j].Name
		case "kind":
			return resources[i].Kind < resources[j].Kind
		}
		if resources[i].Group != resources[j].Group {
			return resources[i].Group < resources[j].Group
		}
		return resources[i].Name < resources[j].Name
	})

	if o.output == "name" {
		for _, r := range resources {
			fmt.Fprintln(o.f.out(), r.GroupResource())
		}
		return nil
	}
	table := &api.Table{ColumnDefinitions: []api.TableColumnDefinition{
		{Name: "Name"}, {Name: "Shortnames"}, {Name: "APIVersion"}, {Name: "Namespaced"}, {Name: "Kind"},
		{Name: "Verbs", Priority: 1}, {Name: "Categories", Priority: 1},
	}}
	for _, r := range resources {
		verbs := slices.Clone(r.Verbs)
		slices.Sort(verbs)
		table.Rows = append(table.Rows, api.TableRow{Cells: []any{
			r.Name, strings.Join(r.ShortNames, ","), r.GroupVersion(), strconv.FormatBool(r.Namespaced), r.Kind,
			strings.Join(verbs, ","), strings.Join(r.Categories, ","),
		}})
	}
	p := printers.NewTablePrinter(o.f.out(), printers.TableOptions{Wide: o.output == "wide", NoHeaders: o.noHeaders})
	p.PrintTable(table, "")
	return p.Flush()
}

// hasAllVerbs reports whether r supports every verb in verbs.
func hasAllVerbs(r restmapper.APIResource, verbs []string) bool {
	for _, v := range verbs {
		if !r.HasVerb(v) {
			return false
		}
	}
	return true
}
