package ctl

import (
	"errors"
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	"kplane/pkg/ctl/printers"
	"kplane/pkg/kubeconfig"
)

// newConfigCommand is `ctl config`: read and change the kubeconfig file,
// the one the other verbs use (see --kubeconfig).
func newConfigCommand(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config SUBCOMMAND",
		Short: "Modify kubeconfig files",
		Long: `config shows and edits the kubeconfig the other verbs use: --kubeconfig,
else the first existing file of $KUBECONFIG (kubectl would merge them all;
ctl reads and writes that one file), else ./.kplane/kubeconfig, else
~/.kube/config.

A kubeconfig lists clusters (where an apiserver is), users (credentials)
and contexts (a cluster, a user and a default namespace); current-context
names the context commands use.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newConfigViewCommand(f))
	cmd.AddCommand(newConfigCurrentContextCommand(f))
	cmd.AddCommand(newConfigUseContextCommand(f))
	cmd.AddCommand(newConfigGetContextsCommand(f))
	cmd.AddCommand(newConfigSetContextCommand(f))
	return cmd
}

// loadKubeconfig reads the kubeconfig the factory points at; a missing
// file is an empty config, as in kubectl.
func loadKubeconfig(f *factory) (*kubeconfig.Config, string, error) {
	path := f.kubeconfigPath()
	if path == "" {
		return &kubeconfig.Config{APIVersion: "v1", Kind: "Config"}, "", nil
	}
	kc, err := kubeconfig.Load(path)
	if err != nil {
		return nil, "", err
	}
	return kc, path, nil
}

// saveKubeconfig writes the config back to its file.
func saveKubeconfig(kc *kubeconfig.Config, path string) error {
	if path == "" {
		return errNoKubeconfig
	}
	if kc.APIVersion == "" {
		kc.APIVersion, kc.Kind = "v1", "Config"
	}
	return kc.WriteFile(path)
}

// newConfigCurrentContextCommand is `ctl config current-context`.
func newConfigCurrentContextCommand(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "current-context",
		Short: "Display the current-context",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			kc, _, err := loadKubeconfig(f)
			if err != nil {
				return err
			}
			if kc.CurrentContext == "" {
				return errors.New("current-context is not set")
			}
			fmt.Fprintln(f.out(), kc.CurrentContext)
			return nil
		},
	}
}

// newConfigUseContextCommand is `ctl config use-context NAME`.
func newConfigUseContextCommand(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:     "use-context CONTEXT_NAME",
		Aliases: []string{"use"},
		Short:   "Set the current-context in a kubeconfig file",
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			kc, path, err := loadKubeconfig(f)
			if err != nil {
				return err
			}
			if !hasContext(kc, args[0]) {
				return fmt.Errorf("no context exists with the name: %q", args[0])
			}
			kc.CurrentContext = args[0]
			if err := saveKubeconfig(kc, path); err != nil {
				return err
			}
			fmt.Fprintf(f.out(), "Switched to context %q.\n", args[0])
			return nil
		},
	}
}

func hasContext(kc *kubeconfig.Config, name string) bool {
	for _, c := range kc.Contexts {
		if c.Name == name {
			return true
		}
	}
	return false
}

// newConfigGetContextsCommand is `ctl config get-contexts [NAME…]`.
func newConfigGetContextsCommand(f *factory) *cobra.Command {
	var output string
	var noHeaders bool
	cmd := &cobra.Command{
		Use:   "get-contexts [(-o|--output=)name] [NAME…]",
		Short: "Describe one or many contexts",
		RunE: func(_ *cobra.Command, args []string) error {
			if output != "" && output != "name" {
				return fmt.Errorf("output must be one of '' or 'name': %v", output)
			}
			kc, _, err := loadKubeconfig(f)
			if err != nil {
				return err
			}
			contexts := append([]kubeconfig.NamedContext(nil), kc.Contexts...)
			sort.Slice(contexts, func(i, j int) bool { return contexts[i].Name < contexts[j].Name })
			var errs []error
			if len(args) > 0 {
				var chosen []kubeconfig.NamedContext
				for _, name := range args {
					found := false
					for _, c := range contexts {
						if c.Name == name {
							chosen, found = append(chosen, c), true
						}
					}
					if !found {
						errs = append(errs, fmt.Errorf("context %s not found", name))
					}
				}
				contexts = chosen
			}
			if output == "name" {
				for _, c := range contexts {
					fmt.Fprintln(f.out(), c.Name)
				}
				return joinErrors(errs)
			}
			table := &api.Table{ColumnDefinitions: []api.TableColumnDefinition{
				{Name: "Current"}, {Name: "Name"}, {Name: "Cluster"}, {Name: "AuthInfo"}, {Name: "Namespace"},
			}}
			for _, c := range contexts {
				current := ""
				if c.Name == kc.CurrentContext {
					current = "*"
				}
				table.Rows = append(table.Rows, api.TableRow{Cells: []any{current, c.Name, c.Context.Cluster, c.Context.User, c.Context.Namespace}})
			}
			p := printers.NewTablePrinter(f.out(), printers.TableOptions{NoHeaders: noHeaders})
			if len(table.Rows) == 0 && !noHeaders {
				// kubectl prints the header even for no contexts.
				fmt.Fprintln(f.out(), "CURRENT   NAME   CLUSTER   AUTHINFO   NAMESPACE")
			}
			p.PrintTable(table, "")
			if err := p.Flush(); err != nil {
				return err
			}
			return joinErrors(errs)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "name: print only the context names")
	cmd.Flags().BoolVar(&noHeaders, "no-headers", false, "leave out the header row")
	return cmd
}

// newConfigSetContextCommand is `ctl config set-context [NAME | --current]`.
func newConfigSetContextCommand(f *factory) *cobra.Command {
	var current bool
	var cluster, user string
	cmd := &cobra.Command{
		Use:   "set-context [NAME | --current] [--cluster=cluster_nickname] [--user=user_nickname] [--namespace=namespace]",
		Short: "Set a context entry in kubeconfig",
		Long: `set-context creates a context or changes one: the cluster, user and
namespace flags given replace those of the context. --current changes the
current context; its most common use sets the namespace commands default to.`,
		Example: `  ctl config set-context --current --namespace=kube-system`,
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			kc, path, err := loadKubeconfig(f)
			if err != nil {
				return err
			}
			name := ""
			switch {
			case current && len(args) > 0:
				return errors.New("you cannot specify both a context name and --current")
			case current:
				if kc.CurrentContext == "" {
					return errors.New("no current context is set")
				}
				name = kc.CurrentContext
			case len(args) == 1 && args[0] != "":
				name = args[0]
			default:
				return errors.New("you must specify a non-empty context name or --current")
			}
			var entry *kubeconfig.NamedContext
			for i := range kc.Contexts {
				if kc.Contexts[i].Name == name {
					entry = &kc.Contexts[i]
				}
			}
			verb := "modified"
			if entry == nil {
				kc.Contexts = append(kc.Contexts, kubeconfig.NamedContext{Name: name})
				entry = &kc.Contexts[len(kc.Contexts)-1]
				verb = "created"
			}
			if cmd.Flags().Changed("cluster") {
				entry.Context.Cluster = cluster
			}
			if cmd.Flags().Changed("user") {
				entry.Context.User = user
			}
			// --namespace (-n) is the root's global flag; here it is the
			// context's namespace, as in kubectl.
			if cmd.Flags().Changed("namespace") {
				entry.Context.Namespace = f.namespaceFlag
			}
			if err := saveKubeconfig(kc, path); err != nil {
				return err
			}
			fmt.Fprintf(f.out(), "Context %q %s.\n", name, verb)
			return nil
		},
	}
	cmd.Flags().BoolVar(&current, "current", false, "change the current context")
	cmd.Flags().StringVar(&cluster, "cluster", "", "the cluster of the context")
	cmd.Flags().StringVar(&user, "user", "", "the user of the context")
	return cmd
}
