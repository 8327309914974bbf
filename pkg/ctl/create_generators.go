package ctl

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"kplane/pkg/client"
)

// The `ctl create <kind> NAME` subcommands build an object from flags, the
// objects kubectl's generators build, and create it like `create -f`.

// generated creates one object built by a subcommand and prints the
// result. wrapErrors words a failure as "failed to create <kind>: …", as
// kubectl's configmap and deployment generators do (its namespace one
// returns the API error as it is).
func generated(ctx context.Context, f *factory, w *writeFlags, obj map[string]any, wrapErrors bool) error {
	failure := ""
	if wrapErrors {
		kind, _ := obj["kind"].(string)
		failure = "failed to create " + strings.ToLower(kind)
	}
	return generatedAs(ctx, f, w, obj, failure, "created")
}

// generatedAs is generated with the words of its messages: failure
// prefixes an error ("failed to create ClusterIP service"; "" leaves the
// API error as it is) and operation ends the success message ("created",
// "exposed").
func generatedAs(ctx context.Context, f *factory, w *writeFlags, obj map[string]any, failure, operation string) error {
	dryRun, out, validation, err := w.parsed()
	if err != nil {
		return err
	}
	m, err := f.Mapper(ctx)
	if err != nil {
		return err
	}
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	r, err := m.KindFor(apiVersion, kind)
	if err != nil {
		return err
	}
	target := fileObject{resource: r, object: obj, name: nameOf(obj)}
	if r.Namespaced {
		var explicit bool
		if target.namespace, explicit, err = f.Namespace(); err != nil {
			return err
		}
		// A client dry run shows the namespace only when -n chose it, as
		// kubectl's generators set it only then (EnforceNamespace).
		if dryRun != "client" || explicit {
			obj["metadata"].(map[string]any)["namespace"] = target.namespace
		}
	}
	created, err := createObject(ctx, f, target, dryRun, client.CreateOptions{FieldValidation: validation, FieldManager: w.fieldManager})
	if err != nil && failure != "" {
		// A plain error (%v): the API error's reason is not printed.
		return fmt.Errorf("%s: %v", failure, err)
	}
	if err != nil {
		return err
	}
	return printResult(f.out(), out, created, operation, dryRun)
}

// exactlyOneName is the argument check of the subcommands, worded as
// kubectl words it.
func exactlyOneName(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usageError(cmd.CommandPath(), "exactly one NAME is required, got %d", len(args))
	}
	return nil
}

// newCreateNamespaceCommand is `ctl create namespace NAME`.
func newCreateNamespaceCommand(f *factory) *cobra.Command {
	var w writeFlags
	cmd := &cobra.Command{
		Use:     "namespace NAME",
		Aliases: []string{"ns"},
		Short:   "Create a namespace with the specified name",
		Example: "  ctl create namespace lessons",
		Args:    exactlyOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			return generated(cmd.Context(), f, &w, map[string]any{
				"apiVersion": "v1", "kind": "Namespace",
				"metadata": map[string]any{"name": args[0], "creationTimestamp": nil},
				"spec":     map[string]any{}, "status": map[string]any{},
			}, false)
		},
	}
	w.add(cmd.Flags(), "kubectl-create")
	return cmd
}

// newCreateConfigMapCommand is `ctl create configmap NAME --from-literal=…
// --from-file=…`.
func newCreateConfigMapCommand(f *factory) *cobra.Command {
	var w writeFlags
	var literals, files, envFiles []string
	cmd := &cobra.Command{
		Use:     "configmap NAME [--from-literal=key=value] [--from-file=[key=]path]",
		Aliases: []string{"cm"},
		Short:   "Create a config map from literal values or files",
		Long: `configmap creates a ConfigMap whose data comes from --from-literal pairs and
from files (--from-file=path uses the file's name as the key; key=path
chooses the key; a directory contributes each of its files).`,
		Example: `  ctl create configmap settings --from-literal=mode=lesson --from-literal=level=1
  ctl create configmap nginx-conf --from-file=nginx.conf`,
		Args: exactlyOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := dataFromSources(literals, files, envFiles, "ConfigMap", args[0])
			if err != nil {
				return err
			}
			obj := map[string]any{
				"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": args[0], "creationTimestamp": nil},
			}
			if len(data) > 0 {
				obj["data"] = data
			}
			return generated(cmd.Context(), f, &w, obj, true)
		},
	}
	cmd.Flags().StringArrayVar(&literals, "from-literal", nil, "a key and a literal value (key=value); repeat for more")
	cmd.Flags().StringSliceVar(&files, "from-file", nil, "a file ([key=]path) or a directory whose files become keys")
	cmd.Flags().StringSliceVar(&envFiles, "from-env-file", nil, "a file of KEY=value lines (blank lines and # comments skipped)")
	w.add(cmd.Flags(), "kubectl-create")
	return cmd
}

// dataFromSources reads the data of a generated ConfigMap or Secret (kind
// and name word the duplicate-key error): --from-literal pairs, then
// --from-file files, then --from-env-file lines.
func dataFromSources(literals, files, envFiles []string, kind, name string) (map[string]any, error) {
	data := map[string]any{}
	for _, l := range literals {
		key, value, ok := strings.Cut(l, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("invalid literal source %s, expected key=value", l)
		}
		if _, dup := data[key]; dup {
			return nil, fmt.Errorf("cannot add key %q, another key by that name already exists in Data for %s %q", key, kind, name)
		}
		data[key] = value
	}
	for _, spec := range files {
		if err := addFileData(data, spec); err != nil {
			return nil, err
		}
	}
	for _, file := range envFiles {
		content, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("error reading %s: no such file or directory", file)
		}
		for i, line := range strings.Split(string(content), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			key, value, ok := strings.Cut(line, "=")
			if !ok {
				// As kubectl: a bare name takes its value from the environment.
				key, value = line, os.Getenv(line)
			}
			if key == "" {
				return nil, fmt.Errorf("line %d has no key in %s", i+1, file)
			}
			data[key] = value
		}
	}
	return data, nil
}

// addFileData adds a --from-file source to a ConfigMap's data.
func addFileData(data map[string]any, spec string) error {
	key, file, hasKey := strings.Cut(spec, "=")
	if !hasKey {
		key, file = "", spec
	}
	info, err := os.Stat(file)
	if err != nil {
		return fmt.Errorf("error reading %s: no such file or directory", file)
	}
	if info.IsDir() {
		if hasKey {
			return fmt.Errorf("cannot give a key name for a directory path")
		}
		entries, err := os.ReadDir(file)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.Type().IsRegular() {
				if err := addFileData(data, filepath.Join(file, e.Name())); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if key == "" {
		key = filepath.Base(file)
	}
	content, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	data[key] = string(content)
	return nil
}

// newCreateDeploymentCommand is `ctl create deployment NAME --image=…`.
func newCreateDeploymentCommand(f *factory) *cobra.Command {
	var w writeFlags
	var images []string
	var replicas, port int32
	cmd := &cobra.Command{
		Use:     "deployment NAME --image=image [--replicas=N] [--port=port]",
		Aliases: []string{"deploy"},
		Short:   "Create a deployment with the specified name",
		Long: `deployment creates a Deployment labelled app=NAME, selecting app=NAME, with
one container per --image (named after the image) and --replicas pods; the
first container gets --port, as kubectl's generator does.`,
		Example: `  ctl create deployment web --image=nginx --replicas=3
  ctl create deployment web --image=nginx:1.27 --port=80 --dry-run=client -o yaml`,
		Args: exactlyOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(images) == 0 {
				return fmt.Errorf(`required flag(s) "image" not set`)
			}
			name := args[0]
			var containers []any
			for i, image := range images {
				c := map[string]any{"name": containerName(image), "image": image, "resources": map[string]any{}}
				if i == 0 && port >= 0 {
					c["ports"] = []any{map[string]any{"containerPort": port}}
				}
				containers = append(containers, c)
			}
			labels := map[string]any{"app": name}
			return generated(cmd.Context(), f, &w, map[string]any{
				"apiVersion": "apps/v1", "kind": "Deployment",
				"metadata": map[string]any{"name": name, "labels": labels, "creationTimestamp": nil},
				"spec": map[string]any{
					"replicas": replicas,
					"selector": map[string]any{"matchLabels": labels},
					"strategy": map[string]any{},
					"template": map[string]any{
						"metadata": map[string]any{"labels": labels, "creationTimestamp": nil},
						"spec":     map[string]any{"containers": containers},
					},
				},
				"status": map[string]any{},
			}, true)
		},
	}
	cmd.Flags().StringSliceVar(&images, "image", nil, "the image of a container; repeat for more containers")
	cmd.Flags().Int32Var(&replicas, "replicas", 1, "number of replicas")
	cmd.Flags().Int32Var(&port, "port", -1, "the port the first container exposes")
	w.add(cmd.Flags(), "kubectl-create")
	return cmd
}

// invalidNameChars are the characters a container name cannot have.
var invalidNameChars = regexp.MustCompile(`[^a-z0-9-]+`)

// containerName names a container after its image, as kubectl does: the
// last path element without tag or digest ("docker.io/library/nginx:1.27"
// → "nginx"), made a valid DNS label.
func containerName(image string) string {
	name, _, _ := strings.Cut(image, "@")
	if i := strings.LastIndexByte(name, ':'); i > strings.LastIndexByte(name, '/') {
		name = name[:i]
	}
	name = strings.ToLower(path.Base(name))
	name = strings.Trim(invalidNameChars.ReplaceAllString(name, "-"), "-")
	if name == "" {
		name = "container"
	}
	return name
}
