package ctl

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"kplane/pkg/client"
)

// writeFlags are the flags every creating or updating verb shares:
// --dry-run, -o and --validate, and the field manager name.
type writeFlags struct {
	dryRunFlag   string
	output       string
	validateFlag string
	fieldManager string
}

// add registers the flags; fieldManager is the verb's default manager
// name, as kubectl names its own ("kubectl-create",
// "kubectl-client-side-apply").
func (w *writeFlags) add(flags *pflag.FlagSet, fieldManager string) {
	addDryRunFlag(flags, &w.dryRunFlag)
	flags.StringVarP(&w.output, "output", "o", "", "print the object instead of a message: name, yaml, json or jsonpath=TEMPLATE")
	flags.StringVar(&w.validateFlag, "validate", "strict", `strict (or true): the server rejects unknown fields; warn: it warns about them; ignore (or false): it drops them silently`)
	flags.StringVar(&w.fieldManager, "field-manager", fieldManager, "name of the manager recorded for the fields this command writes")
}

// parsed returns the dry-run strategy, output format and the server's
// fieldValidation value.
func (w *writeFlags) parsed() (dryRunStrategy, outputFormat, string, error) {
	dryRun, err := parseDryRun(w.dryRunFlag)
	if err != nil {
		return "", outputFormat{}, "", err
	}
	out, err := parseOutput(w.output, "name", "yaml", "json")
	if err != nil {
		return "", outputFormat{}, "", err
	}
	var validation string
	switch w.validateFlag {
	case "strict", "true", "":
		validation = "Strict"
	case "warn":
		validation = "Warn"
	case "ignore", "false":
		validation = "Ignore"
	default:
		return "", outputFormat{}, "", fmt.Errorf("invalid - validate option %q; must be one of: strict (true), warn, ignore (false)", w.validateFlag)
	}
	return dryRun, out, validation, nil
}

// validates reports whether objects are checked for apiVersion and kind
// before they are sent (kubectl's client-side part of --validate).
func (w *writeFlags) validates() bool {
	return w.validateFlag != "ignore" && w.validateFlag != "false"
}

// createOptions are the flags of `ctl create -f`.
type createOptions struct {
	f          *factory
	write      writeFlags
	filenames  []string
	recursive  bool
	saveConfig bool
}

// newCreateCommand is `ctl create`: create objects from files, or a few
// kinds from flags (the subcommands).
func newCreateCommand(f *factory) *cobra.Command {
	o := &createOptions{f: f}
	cmd := &cobra.Command{
		Use:   "create -f FILENAME",
		Short: "Create a resource from a file or from stdin",
		Long: `create sends each object of the files to the apiserver as a new object (a
POST): it fails for an object that already exists, where ` + "`ctl apply`" + `
would update it. Directories contribute their .yaml, .yml and .json files;
- reads standard input.`,
		Example: `  ctl create -f examples/nginx-dep.yaml
  ctl create namespace lessons
  ctl create deployment web --image=nginx --replicas=3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd.Context()) },
	}
	flags := cmd.Flags()
	flags.StringSliceVarP(&o.filenames, "filename", "f", nil, "files, directories or - (stdin) with the objects to create")
	flags.BoolVarP(&o.recursive, "recursive", "R", false, "process the directories given with -f recursively")
	flags.BoolVar(&o.saveConfig, "save-config", false, "record the object in the last-applied-configuration annotation, so that a later apply can compute deletions")
	o.write.add(flags, "kubectl-create")

	cmd.AddCommand(newCreateNamespaceCommand(f))
	cmd.AddCommand(newCreateConfigMapCommand(f))
	cmd.AddCommand(newCreateDeploymentCommand(f))
	cmd.AddCommand(newCreateServiceCommand(f))
	cmd.AddCommand(newCreateSecretCommand(f))
	cmd.AddCommand(newCreateServiceAccountCommand(f))
	cmd.AddCommand(newCreateQuotaCommand(f))
	cmd.AddCommand(newCreateJobCommand(f))
	cmd.AddCommand(newCreateCronJobCommand(f))
	cmd.AddCommand(newCreateRoleCommand(f))
	cmd.AddCommand(newCreateRoleBindingCommand(f))
	cmd.AddCommand(newCreateIngressCommand(f))
	cmd.AddCommand(newCreatePodDisruptionBudgetCommand(f))
	return cmd
}

func (o *createOptions) run(ctx context.Context) error {
	if len(o.filenames) == 0 {
		return errNoFilenames
	}
	dryRun, out, validation, err := o.write.parsed()
	if err != nil {
		return err
	}
	m, err := o.f.Mapper(ctx)
	if err != nil {
		return err
	}
	objects, readErrs := readFileObjects(o.f, m, o.filenames, o.recursive, o.write.validates())
	if len(objects) == 0 && len(readErrs) == 0 {
		return fmt.Errorf("no objects passed to create")
	}
	var errs []error
	for _, obj := range objects {
		if o.saveConfig {
			if _, err := setLastApplied(obj.object); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		created, err := createObject(ctx, o.f, obj, dryRun, client.CreateOptions{FieldValidation: validation, FieldManager: o.write.fieldManager})
		if err != nil {
			errs = append(errs, sourceError("creating", obj.source, err))
			continue
		}
		if err := printResult(o.f.out(), out, created, "created", dryRun); err != nil {
			errs = append(errs, err)
		}
	}
	// kubectl reports the errors of the writes first, then those of
	// reading the files as one more error, bracketed when there are
	// several: [error parsing a.yaml: …, error parsing b.yaml: …].
	if len(readErrs) > 0 {
		errs = append(errs, bracketedErrors(readErrs))
	}
	return joinErrors(errs)
}

// bracketedErrors is a group of errors printed on one line the way
// upstream's aggregate errors print when nested in another.
type bracketedErrors []error

func (e bracketedErrors) Error() string {
	if len(e) == 1 {
		return e[0].Error()
	}
	msgs := make([]string, len(e))
	for i, err := range e {
		msgs[i] = err.Error()
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

// createObject POSTs one object (nothing is sent for a client dry run;
// the server stores nothing for a server dry run) and returns what the
// server answered, or the object itself for a client dry run.
func createObject(ctx context.Context, f *factory, obj fileObject, dryRun dryRunStrategy, opts client.CreateOptions) (map[string]any, error) {
	if dryRun == "client" {
		return obj.object, nil
	}
	c, err := f.Client()
	if err != nil {
		return nil, err
	}
	opts.DryRun = dryRun == "server"
	return c.Dynamic(obj.resource.Client()).Namespace(obj.namespace).Create(ctx, obj.object, opts)
}
