package ctl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"kplane/pkg/api/patch"
	"kplane/pkg/client"
)

// patchOptions are the flags of `ctl patch`.
type patchOptions struct {
	f   *factory
	sel selection

	patch        string
	patchFile    string
	patchType    string
	subresource  string
	output       string
	dryRunFlag   string
	fieldManager string
}

// patchTypes maps --type to the Content-Type that tells the server how to
// apply the body.
var patchTypes = map[string]client.PatchType{
	"json":      client.JSONPatchType,
	"merge":     client.MergePatchType,
	"strategic": client.StrategicMergePatchType,
}

// newPatchCommand is `ctl patch`.
func newPatchCommand(f *factory) *cobra.Command {
	o := &patchOptions{f: f}
	cmd := &cobra.Command{
		Use:   "patch (-f FILENAME | TYPE NAME) [-p PATCH|--patch-file FILE]",
		Short: "Update fields of a resource",
		Long: `patch changes some fields of an object with one request, which the server
applies to the object as it stands — no read-modify-write on the client, so
no conflict with other writers. The body is JSON or YAML; --type says how
the server applies it:

  strategic  (default) a merge patch that merges lists by their merge key:
             containers by name, ports by containerPort (kplane reads the
             keys from the Go types' patchMergeKey tags, as upstream does)
  merge      an RFC 7386 JSON merge patch: maps merge, lists are replaced,
             null deletes
  json       an RFC 6902 list of operations: add, remove, replace, move,
             copy, test

"patched (no change)" means the object came back exactly as it was.`,
		Example: `  ctl patch deploy ng-dep -p '{"spec":{"replicas":3}}'
  ctl patch deploy ng-dep --type=merge -p '{"spec":{"paused":true}}'
  ctl patch deploy ng-dep --type=json -p '[{"op":"replace","path":"/spec/replicas","value":1}]'
  ctl patch node node1 -p 'spec: {unschedulable: true}'`,
		ValidArgsFunction: completeResourceTypeAndName(f, nil, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args)
		},
	}
	flags := cmd.Flags()
	flags.StringVarP(&o.patch, "patch", "p", "", "the patch, as JSON or YAML")
	flags.StringVar(&o.patchFile, "patch-file", "", "a file holding the patch")
	flags.StringVar(&o.patchType, "type", "strategic", "how the server applies the patch: json, merge or strategic")
	flags.StringVar(&o.subresource, "subresource", "", "patch this subresource (status or scale) instead of the object")
	flags.StringVarP(&o.output, "output", "o", "", "print the object instead of a message: name, yaml, json or jsonpath=TEMPLATE")
	flags.StringVar(&o.fieldManager, "field-manager", "kubectl-patch", "name of the manager recorded for the fields this command writes")
	addDryRunFlag(flags, &o.dryRunFlag)
	o.sel.addFlags(flags, selectionFlags{usage: "identifying the resource to update"})
	return cmd
}

// run is `ctl patch`.
func (o *patchOptions) run(ctx context.Context, commandPath string, args []string) error {
	out, err := parseOutput(o.output, "name", "yaml", "json")
	if err != nil {
		return err
	}
	dryRun, err := parseDryRun(o.dryRunFlag)
	if err != nil {
		return err
	}
	pt, ok := patchTypes[strings.ToLower(o.patchType)]
	if !ok {
		return fmt.Errorf("--type must be one of [json merge strategic], not %q", o.patchType)
	}
	body, err := o.body()
	if err != nil {
		return err
	}
	if o.subresource != "" && o.subresource != "status" && o.subresource != "scale" {
		return fmt.Errorf("invalid subresource value: %q. Must be one of [status scale]", o.subresource)
	}
	if o.sel.empty(args) {
		return fmt.Errorf("You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")
	}
	found, err := o.sel.visit(ctx, o.f, args, commandPath)
	if err != nil {
		return err
	}
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	errs := found.errs
	for _, info := range found.infos {
		if err := o.patchOne(ctx, c, info, pt, body, out, dryRun); err != nil {
			errs = append(errs, err)
		}
	}
	return joinErrors(errs)
}

// body reads -p or --patch-file and turns YAML into JSON; a body that
// already looks like JSON is sent as written, as kubectl sends it (so a
// broken one is the server's to report).
func (o *patchOptions) body() ([]byte, error) {
	switch {
	case o.patch != "" && o.patchFile != "":
		return nil, fmt.Errorf("--patch and --patch-file are mutually exclusive")
	case o.patch == "" && o.patchFile == "":
		return nil, fmt.Errorf("must specify --patch or --patch-file containing the contents of the patch")
	}
	raw := []byte(o.patch)
	if o.patchFile != "" {
		data, err := os.ReadFile(o.patchFile)
		if err != nil {
			return nil, fmt.Errorf("unable to read patch file: %w", err)
		}
		raw = data
	}
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		return raw, nil
	}
	data, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("unable to parse %q: %w", raw, err)
	}
	return data, nil
}

// patchOne sends the patch to one object (with --dry-run=client, applies
// it locally instead) and says whether it changed anything.
func (o *patchOptions) patchOne(ctx context.Context, c *client.Client, info resourceInfo, pt client.PatchType, body []byte, out outputFormat, dryRun dryRunStrategy) error {
	// What the patch is compared with: the object, or its subresource.
	before := info.object
	if o.subresource != "" {
		current, err := getSubresource(ctx, c, info, o.subresource)
		if err != nil {
			return err
		}
		before = current
	}
	var result map[string]any
	if dryRun == "client" {
		patched, err := applyPatchLocally(info, pt, body)
		if err != nil {
			return err
		}
		result = patched
	} else {
		opts := client.PatchOptions{DryRun: dryRun == "server", FieldManager: o.fieldManager}
		var subresource []string
		if o.subresource != "" {
			subresource = []string{o.subresource}
		}
		patched, err := info.dynamic(c).Patch(ctx, info.name, pt, body, opts, subresource...)
		if err != nil {
			return err
		}
		result = patched
	}
	// kubectl compares the object it read with the one the server
	// returned: equal means the patch changed nothing.
	message := "patched"
	if reflect.DeepEqual(before, result) {
		message = "patched (no change)"
	}
	// Unlike the other writing verbs, kubectl patch adds no "(dry run)".
	return printResult(o.f.out(), out, result, message, "")
}

// getSubresource reads a subresource (status, scale) of the object.
func getSubresource(ctx context.Context, c *client.Client, info resourceInfo, subresource string) (map[string]any, error) {
	_, body, err := c.Do(ctx, http.MethodGet, info.resource.Path(info.namespace, info.name)+"/"+subresource, nil, nil)
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("decode the %s of %s: %w", subresource, info.objectName(), err)
	}
	return normalizeJSONNumbers(obj).(map[string]any), nil
}

// applyPatchLocally applies a patch to the object read, as the server
// would, for --dry-run=client.
func applyPatchLocally(info resourceInfo, pt client.PatchType, body []byte) (map[string]any, error) {
	original, err := json.Marshal(info.object)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", info.objectName(), err)
	}
	goType := apiTypes[info.resource.Group+"/"+info.resource.Kind]
	patched, err := patch.Apply(string(pt), original, body, goType)
	if err != nil {
		return nil, fmt.Errorf("apply the patch to %s: %w", info.objectName(), err)
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(patched))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("decode the patched %s: %w", info.objectName(), err)
	}
	return normalizeJSONNumbers(obj).(map[string]any), nil
}

// normalizeJSONNumbers turns json.Numbers into int64 or float64, as the
// dynamic client decodes them, so that objects compare equal.
func normalizeJSONNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case map[string]any:
		for k, item := range v {
			v[k] = normalizeJSONNumbers(item)
		}
	case []any:
		for i, item := range v {
			v[i] = normalizeJSONNumbers(item)
		}
	}
	return v
}
